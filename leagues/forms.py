"""Forms of the league pages (the services check every value again)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from clubs.models import Club, User
from games import endings
from games.variants import game as game_facts
from games.variants import is_game
from leagues.models import League, Season
from leagues.services.setup import SEASON_FIELDS, past_start, season_problems


class LeagueForm(forms.ModelForm):
    """A new league's name, description, inter-club flag and promotion / relegation."""

    class Meta:
        model = League
        fields = ["name", "description", "inter_club", "promote", "relegate"]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}


class InviteForm(forms.Form):
    """Invite a club by its address name."""

    slug = forms.SlugField(label=_("Club address name"), max_length=60)

    def clean_slug(self) -> Club:
        """The club named."""
        club = Club.objects.filter(slug=self.cleaned_data["slug"]).first()
        if club is None:
            raise forms.ValidationError(_("No club has this address name."))
        return club


class SeasonForm(forms.ModelForm):
    """A season's game, entries, format, match settings (how matches end: 第十四条, as a
    tournament's), points, tie-breaks and calendar."""

    ending = forms.ChoiceField(
        label=_("Matches end"),
        choices=[("", _("As the deals and the match time below say")), *endings.ENDINGS],
        required=False,
    )

    class Meta:
        model = Season
        fields = list(SEASON_FIELDS)
        widgets = {"starts_on": forms.DateInput(attrs={"type": "date"})}
        labels = {"deals": _("Deals per match")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        order = list(self.fields)
        order.remove("ending")
        order.insert(order.index("time_limit_minutes"), "ending")
        self.order_fields(order)

    def clean(self) -> dict[str, Any]:
        """How matches end, checked as a tournament's (:func:`games.endings.ending_problems`:
        the settings the mode chosen does not use are cleared); and what the model's
        constraints refuse on the fields concerned (a field with an error is left out of the
        constraint check, so no constraint's name is shown)."""
        data = super().clean()
        ending = data.pop("ending", "") or None
        variant = data.get("variant")
        if is_game(variant) and not {"deals", "time_limit_minutes"} & set(self.errors):
            if ending in (endings.TO_TOP, endings.TIME) and game_facts(variant).levels:
                data["deals"] = 0
            if ending in (endings.TO_TOP, endings.DEALS):
                data["time_limit_minutes"] = 0
            found = endings.ending_problems(
                variant, ending, data.get("deals") or None, data.get("time_limit_minutes") or 0
            )
            for field, problems in found.items():
                for problem in problems:
                    self.add_error(field, problem)
        values = {f: data.get(f) for f in ("points_win", "points_draw", "points_loss", "starts_on")}
        season = Season(**values)
        for field, problems in {**season_problems(season), **past_start(season, None)}.items():
            for problem in problems:
                self.add_error(field, problem)
        return data


def _choices(users: list[User]) -> list[tuple[int, str]]:
    return [(u.pk, u.name) for u in users]


class TeamForm(forms.Form):
    """A club's team: its name, captain and roster, chosen among the club's members."""

    name = forms.CharField(label=_("Team name"), max_length=60)
    captain = forms.TypedChoiceField(label=_("Captain"), coerce=int)
    players = forms.TypedMultipleChoiceField(
        label=_("Players"), coerce=int, widget=forms.CheckboxSelectMultiple
    )
    division = forms.TypedChoiceField(label=_("Division"), coerce=int)

    def __init__(self, *args: Any, members: list[User], divisions: list, **kwargs: Any) -> None:
        """Offer the club's ``members`` and the season's ``divisions``."""
        super().__init__(*args, **kwargs)
        self.fields["captain"].choices = _choices(members)
        self.fields["players"].choices = _choices(members)
        self.fields["division"].choices = [(d.pk, d.name) for d in divisions]


class NextSeasonForm(forms.ModelForm):
    """The next season's name and first day (its divisions come from the closed season's
    standings, by promotion and relegation)."""

    class Meta:
        model = Season
        fields = ["name", "starts_on"]
        widgets = {"starts_on": forms.DateInput(attrs={"type": "date"})}


class RosterForm(forms.Form):
    """A team's roster and captain, chosen among the club's members who may play for it."""

    players = forms.TypedMultipleChoiceField(
        label=_("Players"), coerce=int, widget=forms.CheckboxSelectMultiple
    )
    captain = forms.TypedChoiceField(label=_("Captain"), coerce=int)

    def __init__(self, *args: Any, eligible: list[User], **kwargs: Any) -> None:
        """Offer the ``eligible`` members as players and as captain."""
        super().__init__(*args, **kwargs)
        self.fields["players"].choices = _choices(eligible)
        self.fields["captain"].choices = _choices(eligible)


class ProposeForm(forms.Form):
    """A time for the fixture."""

    when = forms.DateTimeField(
        label=_("Date and time"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M"],
    )


class LineUpForm(forms.Form):
    """One pair of the roster for each table of a team fixture."""

    def __init__(self, *args: Any, roster: list[User], tables: int, **kwargs: Any) -> None:
        """Two choices of ``roster`` per table."""
        super().__init__(*args, **kwargs)
        for table in range(1, tables + 1):
            for seat in (1, 2):
                self.fields[f"t{table}p{seat}"] = forms.TypedChoiceField(
                    label=_("Table %(table)d, player %(seat)d") % {"table": table, "seat": seat},
                    choices=_choices(roster),
                    coerce=int,
                )
        self.tables = tables

    def pairs(self) -> list[list[int]]:
        """The chosen user ids, table by table."""
        return [
            [self.cleaned_data[f"t{t}p1"], self.cleaned_data[f"t{t}p2"]]
            for t in range(1, self.tables + 1)
        ]


class TableResultForm(forms.Form):
    """The organiser's corrected result of one table (the home side's view)."""

    table = forms.IntegerField(min_value=1, max_value=4, widget=forms.HiddenInput)
    home_score = forms.IntegerField(
        label=pgettext_lazy("fixture side", "Home"), min_value=0, max_value=100_000
    )
    away_score = forms.IntegerField(
        label=pgettext_lazy("fixture side", "Away"), min_value=0, max_value=100_000
    )
