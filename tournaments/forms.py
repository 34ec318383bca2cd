"""The one place a tournament's settings are checked: :class:`TournamentSettingsForm`.

Every way in gives its values to :func:`check_settings` through the service
(:func:`tournaments.services.setup.create_tournament` and ``update_tournament``): the web form
(:class:`TournamentForm` below, which only reads its widgets) and the API
(``tournaments.api.serializers.TournamentSerializer``, which passes the settings on unread). A
refusal lists every problem at once, each named by the field's label and kept per field in
``fields`` (the web form shows each beside its field), with the code of the first problem.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from clubs.forms import show_refusal
from engine.match import Match as EngineMatch
from engine.match import OptionError
from games import endings
from games.options import OPTION_NAMES, offered_bounds, option_problem
from games.variants import GAMES
from games.variants import game as game_facts
from matches.messages import MatchError
from matches.services import tables as match_tables
from tournaments import comparisons, pairing, standings
from tournaments import cuts as cut_plan
from tournaments import series as tie_series
from tournaments.models import (
    KNOCKOUT_FORMATS,
    Scoring,
    SeriesMode,
    Tournament,
    TournamentFormat,
    UnitKind,
)
from tournaments.services.errors import TournamentError

#: The settings an organiser may set, by the web form and the API alike.
EDITABLE: tuple[str, ...] = (
    "name",
    "description",
    "variant",
    "format",
    "unit_kind",
    "rounds_planned",
    "groups",
    "cycles",
    "third_place",
    "rated",
    "online",
    "match_options",
    "time_limit_minutes",
    "tiebreaks",
    "points_win",
    "points_draw",
    "registration_opens",
    "registration_closes",
    "checkin_required",
    "checkin_minutes",
    "late_until_round",
    "starts_at",
    "round_minutes",
    "start_when_ready",
    "no_show_minutes",
    "cuts",
    "duplicate",
    "scoring",
    "series",
)
#: Whole-number settings and their bounds (every number bounded).
NUMBERS = {
    "rounds_planned": (1, 30),
    "groups": (1, 16),
    "time_limit_minutes": (0, 24 * 60),
    "points_win": (0, 10),
    "points_draw": (0, 10),
    "checkin_minutes": (0, 24 * 60),
    "late_until_round": (0, 30),
    "round_minutes": (1, 7 * 24 * 60),
    "no_show_minutes": (0, 24 * 60),
}
#: An event open to several clubs (:mod:`tournaments.services.eligibility`): each player's
#: rating bounds and rated matches on the platform ladder of the game, the cap on entries (a team
#: event's on teams) and a team event's pairs (or players) per team; empty or 0: none.
CONDITIONS = {
    "min_rating": (0, 4000),
    "max_rating": (0, 4000),
    "min_rated_matches": (0, 1000),
    "max_entries": (0, 512),
    "team_size": (0, 8),
}
EDITABLE = (*EDITABLE, *CONDITIONS)
NUMBERS = {**NUMBERS, **CONDITIONS}
FLAGS = ("third_place", "rated", "online", "checkin_required", "start_when_ready", "duplicate")
TIMES = ("registration_opens", "registration_closes", "starts_at")
#: Settings every tournament has, given or not (the others are checked when given).
ALWAYS = ("name", "variant", "starts_at")
#: Settings that may be empty.
MAY_BE_EMPTY: tuple[str, ...] = (
    "description",
    "tiebreaks",
    "match_options",
    "registration_opens",
    "registration_closes",
    "cuts",
    "series",
)
MAY_BE_EMPTY = (*MAY_BE_EMPTY, "min_rating", "max_rating")  # no rating bound
#: The refusal code of a problem a field's own check finds (a type, a bound, a choice).
FIELD_CODES = {
    "name": "bad_name",
    "description": "bad_description",
    "variant": "bad_variant",
    "format": "bad_format",
    "unit_kind": "bad_unit_kind",
    "tiebreaks": "bad_tiebreaks",
    "match_options": "bad_options",
    "cuts": "bad_cuts",
    "scoring": "bad_scoring",
    "series": "bad_series",
    "cycles": "bad_cycles",
    "ending": "bad_ending",
    "deals": "bad_ending",
    **dict.fromkeys(NUMBERS, "bad_number"),
    **dict.fromkeys(FLAGS, "bad_flag"),
    **dict.fromkeys(TIMES, "bad_time"),
}


def _all(message: str) -> dict[str, str]:
    """The same message for every way a field's own check can fail."""
    return dict.fromkeys(
        (
            "required",
            "invalid",
            "invalid_choice",
            "invalid_list",
            "max_length",
            "min_value",
            "max_value",
            "step_size",
        ),
        message,
    )


class FlagField(forms.Field):
    """Yes or no, given as a boolean (not a word that reads as one)."""

    def to_python(self, value: Any) -> bool:
        """``value`` itself if it is a boolean; refused otherwise."""
        if not isinstance(value, bool):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return value


class WholeNumberField(forms.IntegerField):
    """An integer (a boolean is not one), bounded."""

    def to_python(self, value: Any) -> int | None:
        """Refuse a boolean, then read the number as Django does."""
        if isinstance(value, bool):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        result: int | None = super().to_python(value)
        return result


class AwareDateTimeField(forms.Field):
    """A moment with its time zone: an aware ``datetime`` or an ISO 8601 text with an offset."""

    def to_python(self, value: Any) -> datetime | None:
        """The moment, or ``None`` for an empty value; a time without a zone is refused."""
        if value in (None, ""):
            return None
        if isinstance(value, str):
            value = parse_datetime(value.strip())
        if not isinstance(value, datetime) or timezone.is_naive(value):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return value


class OptionsField(forms.Field):
    """The match options: an object (checked against the game in the form's ``clean``)."""

    def to_python(self, value: Any) -> dict[str, Any]:
        """``value`` if it is an object, ``{}`` if empty; refused otherwise."""
        if value in (None, ""):
            return {}
        if not isinstance(value, dict):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return value


class CutPlanField(forms.Field):
    """A low-position elimination plan (第二十九条): a text such as ``3:12, 5:6`` or a list of
    ``{"after_round", "keep"}`` objects (:func:`tournaments.cuts.parse_plan`), stored as the
    list; checked against the format and the rounds in the form's ``clean``."""

    def to_python(self, value: Any) -> list[dict[str, int]]:
        """The plan as stored; every part that cannot be read is refused at once."""
        try:
            return [cut.to_json() for cut in cut_plan.parse_plan(value)]
        except cut_plan.PlanError as error:
            raise ValidationError(error.problems, code="bad_cuts") from None


class TournamentSettingsForm(forms.Form):
    """A tournament's settings (:data:`EDITABLE`), read from Python values: those given, over
    the tournament's own when it is edited. Only the settings present are checked, except
    :data:`ALWAYS`; ``changed`` are the settings the caller sets now (a start time already
    past is refused only when it is set now, at ``now``)."""

    def __init__(
        self, values: dict[str, Any], changed: set[str], now: datetime | None = None
    ) -> None:
        super().__init__(data=values)
        self.changed = changed
        self.now = now or timezone.now()
        #: Problems of the ending (第十四条) under fields the form may not have (``deals`` is
        #: a match option), reported with the others by :meth:`refusal`.
        self.ending_problems: dict[str, list[str]] = {}
        numbers = _("Enter a whole number from %(low)d to %(high)d.")
        names = ", ".join(standings.TIEBREAKS)
        fields: dict[str, forms.Field] = {
            "name": forms.CharField(
                max_length=120,
                strip=False,
                error_messages=_all(_("Give the tournament a name of 1 to 120 characters.")),
            ),
            "description": forms.CharField(
                max_length=5000,
                strip=False,
                error_messages=_all(_("The description is at most 5000 characters.")),
            ),
            "variant": forms.ChoiceField(
                choices=[(variant, variant) for variant in GAMES],
                error_messages=_all(
                    _("Tournaments are played in Bao 2, Guandan, Nanping Red Two or Shuangkou.")
                ),
            ),
            "format": forms.ChoiceField(
                choices=TournamentFormat.choices,
                error_messages=_all(_("Choose Swiss, round robin or single elimination.")),
            ),
            "unit_kind": forms.ChoiceField(
                choices=UnitKind.choices,
                error_messages=_all(_("Choose pairs, single players or an individual event.")),
            ),
            "tiebreaks": forms.MultipleChoiceField(
                choices=[(name, name) for name in standings.TIEBREAKS],
                error_messages=_all(_("Tie-breaks are chosen from: %(names)s") % {"names": names}),
            ),
            "match_options": OptionsField(
                error_messages=_all(_("Match options must be an object."))
            ),
            "cuts": CutPlanField(),
            "cycles": WholeNumberField(
                min_value=1,
                max_value=pairing.MAX_CYCLES,
                error_messages=_all(
                    _(
                        "A round robin is played once or twice: 1 (single round robin) or 2 "
                        "(double round robin)."
                    )
                ),
            ),
            "scoring": forms.ChoiceField(
                choices=Scoring.choices,
                error_messages=_all(_("Choose club scoring or the national rules.")),
            ),
            "series": forms.ChoiceField(
                choices=SeriesMode.choices,
                error_messages=_all(
                    _("Choose one game, 2 or 3 games added up, best of three or best of five.")
                ),
            ),
            "ending": forms.ChoiceField(
                choices=endings.ENDINGS,
                required=False,
                error_messages=_all(
                    _("Choose how matches end: %(names)s.")
                    % {"names": "; ".join(str(name) for _key, name in endings.ENDINGS)}
                ),
            ),
            **{
                field: WholeNumberField(
                    min_value=low,
                    max_value=high,
                    error_messages=_all(numbers % {"low": low, "high": high}),
                )
                for field, (low, high) in NUMBERS.items()
            },
            **{
                field: FlagField(required=False, error_messages=_all(_("Choose yes or no.")))
                for field in FLAGS
            },
            **{
                field: AwareDateTimeField(
                    error_messages={
                        **_all(_("Times must be given with a time zone.")),
                        "required": _("Give the start time."),
                    }
                )
                for field in TIMES
            },
        }
        self.fields = {
            name: field for name, field in fields.items() if name in values or name in ALWAYS
        }
        for name in MAY_BE_EMPTY:
            if name in self.fields:
                self.fields[name].required = False

    def clean_name(self) -> str:
        """A name that is not only spaces."""
        name: str = self.cleaned_data["name"]
        if not name.strip():
            raise ValidationError(self.fields["name"].error_messages["required"], code="bad_name")
        return name

    def clean_tiebreaks(self) -> list[str]:
        """Each tie-break once."""
        tiebreaks: list[str] = self.cleaned_data["tiebreaks"]
        if len(set(tiebreaks)) != len(tiebreaks):
            raise ValidationError(_("A tie-break is listed twice."), code="bad_tiebreaks")
        return tiebreaks

    def clean_starts_at(self) -> datetime:
        """A start set now is not already past (a minute of grace: a form gives minutes, so
        "start now" is a few seconds past)."""
        starts: datetime = self.cleaned_data["starts_at"]
        if "starts_at" in self.changed and starts < self.now - timedelta(minutes=1):
            raise ValidationError(
                _("%(when)s has passed: choose a time in the future.")
                % {"when": timezone.localtime(starts).strftime("%Y-%m-%d %H:%M")},
                code="past_start",
            )
        return starts

    def clean(self) -> dict[str, Any]:
        """The checks across settings, on those that passed their own: the entry kind the
        game allows (and its default), the format an individual event allows, the match
        options the game and a competition table allow, and the registration window."""
        data = self.cleaned_data
        data.setdefault("format", TournamentFormat.SWISS)
        if "variant" in data:
            self._check_kind(data)
            self._check_ending(data)
            self._check_scoring(data)
            if "match_options" in data:
                self._check_options(data)
        self._check_window(data)
        self._check_conditions(data)
        self._check_cuts(data)
        self._check_duplicate(data)
        self._check_groups(data)
        self._check_cycles(data)
        self._check_series(data)
        return data

    def _check_cycles(self, data: dict[str, Any]) -> None:
        """A double round robin (双循环赛, 第二十七条三) is a round robin's (of each group in a
        group round robin), and the cycles are fixed once round 1 is paired (the second
        cycle's rounds follow the first's)."""
        cycles = data.get("cycles")
        if cycles is None or "cycles" in self.errors:
            return
        if cycles > 1 and data.get("format") != TournamentFormat.ROUND_ROBIN:
            problem = _(
                "A double round robin is a round robin: choose round robin as the format, or a "
                "single round robin."
            )
            self.add_error("cycles", ValidationError(problem, code="bad_cycles"))
        elif "cycles" in self.changed and self.rounds_paired and self.cycles_before != cycles:
            problem = _("The round robin cycles cannot change once the first round is paired.")
            self.add_error("cycles", ValidationError(problem, code="started"))

    #: The tournament's cycles before this change (editing).
    cycles_before = 1

    def _check_series(self, data: dict[str, Any]) -> None:
        """A knockout tie played as a series of games (多局制淘汰赛, 第三十条): a single
        elimination's, of Bao 2 or Guandan (a drawn game plays on, :mod:`tournaments.series`);
        2 or 3 games added up need the national rules' 级分; fixed once round 1 is paired."""
        mode = data.get("series") or ""
        if "series" in self.errors or not (mode or "series" in self.changed):
            return
        problems = []
        if "series" in self.changed and self.rounds_paired and self.series_before != mode:
            problems.append(_("The games per tie cannot change once the first round is paired."))
        elif mode:
            if data.get("format") != TournamentFormat.ELIMINATION:
                problems.append(
                    _("A series of games per tie is for a single elimination (第三十条).")
                )
            if "variant" in data and not game_facts(data["variant"]).levels:
                problems.append(_("A series of games per tie is played in Bao 2 or Guandan."))
            elif mode in tie_series.SUM_MODES and data.get("scoring") != Scoring.NATIONAL:
                problems.append(
                    _("Adding up grade points needs the national rules' scoring (计分方式).")
                )
        for problem in problems:
            self.add_error("series", ValidationError(problem, code="bad_series"))

    #: The tournament's games per tie before this change (editing).
    series_before = ""

    def _check_scoring(self, data: dict[str, Any]) -> None:
        """The national rules' 场分 and 级分 (第十三条) score a game won by levels (Bao 2,
        Guandan); checked when the scoring or the game is set now. Their tie-break order
        (第二十七、二十八条) applies unless the event ticks its own
        (:func:`tournaments.selectors.tiebreaks_of`)."""
        if data.get("scoring") != Scoring.NATIONAL or not {"scoring", "variant"} & self.changed:
            return
        if not game_facts(data["variant"]).levels:
            self.add_error(
                "scoring",
                ValidationError(
                    _("The national rules score games won by levels: Bao 2 and Guandan."),
                    code="bad_scoring",
                ),
            )

    def _check_groups(self, data: dict[str, Any]) -> None:
        """Groups (分组循环赛, 第二十七条一) are a round robin's, and fixed once round 1 is
        paired (the groups are drawn from its entries)."""
        groups = data.get("groups")
        if groups is None or "groups" in self.errors:
            return
        if groups > 1 and data.get("format") != TournamentFormat.ROUND_ROBIN:
            problem = _("Groups are for a round robin: choose round robin or 1 group.")
            self.add_error("groups", ValidationError(problem, code="bad_groups"))
        elif "groups" in self.changed and self.rounds_paired and self.groups_before != groups:
            problem = _("The groups cannot change once the first round is paired.")
            self.add_error("groups", ValidationError(problem, code="started"))

    #: The tournament's groups before this change (editing).
    groups_before = 1

    def _check_duplicate(self, data: dict[str, Any]) -> None:
        """A duplicate event (复式赛): a game whose every table can be dealt the same cards
        (:func:`tournaments.comparisons.plays_duplicate`), live tables, and a format that
        ranks by the comparison (not a knockout, where each game needs its own winner)."""
        if not data.get("duplicate") or "duplicate" in self.errors:
            return
        problems = []
        if "variant" in data and not comparisons.plays_duplicate(data["variant"]):
            problems.append(_("A duplicate event is played in Bao 2 or Guandan."))
        if data.get("format") in KNOCKOUT_FORMATS:
            problems.append(
                _("A duplicate event ranks by comparing tables: choose Swiss or round robin.")
            )
        if data.get("online") is False:
            problems.append(
                _("A duplicate event is played online: only live tables are dealt the same cards.")
            )
        for problem in problems:
            self.add_error("duplicate", ValidationError(problem, code="bad_duplicate"))

    #: The low-position cuts already made (editing a running event), and its rounds paired.
    made_cuts: list[cut_plan.Cut] = []
    rounds_paired = 0

    def _check_cuts(self, data: dict[str, Any]) -> None:
        if "cuts" not in data or any(f in self.errors for f in ("format", "rounds_planned")):
            return
        problems = cut_plan.check_plan(
            cut_plan.parse_plan(data["cuts"]),
            swiss=data.get("format") == TournamentFormat.SWISS,
            rounds_planned=data.get(
                "rounds_planned", Tournament._meta.get_field("rounds_planned").get_default()
            ),
            made=self.made_cuts,
            rounds_paired=self.rounds_paired,
        )
        if problems:
            self.add_error("cuts", ValidationError(problems, code="bad_cuts"))

    def _check_kind(self, data: dict[str, Any]) -> None:
        facts = game_facts(data["variant"])
        if not facts.fixed_sides:  # partners change every deal (Red Two): only individually
            default_kind = UnitKind.INDIVIDUAL
        else:
            default_kind = UnitKind.PAIR if facts.pairs else UnitKind.SINGLE
        if "unit_kind" in self.errors:
            return
        kind = data.setdefault("unit_kind", default_kind)
        if facts.seats == 2 and kind != UnitKind.SINGLE:
            problem = _("Two-player Shuangkou is played by single players.")
        elif facts.seats == 4 and kind == UnitKind.SINGLE:
            problem = _("Four-player games are played by pairs or individually.")
        elif not facts.fixed_sides and kind != UnitKind.INDIVIDUAL:
            problem = _(
                "Nanping Red Two is played as an individual event: partners change every deal."
            )
        else:
            if kind == UnitKind.INDIVIDUAL and data.get("format") != TournamentFormat.SWISS:
                if "format" not in self.errors:
                    self.add_error(
                        "format",
                        ValidationError(
                            _("Individual events are played in Swiss rounds."), code="bad_format"
                        ),
                    )
            return
        self.add_error("unit_kind", ValidationError(problem, code="bad_unit_kind"))

    def _check_ending(self, data: dict[str, Any]) -> None:
        """How matches end (第十四条): the mode the deals and the match time make, or the one
        chosen (``ending``, not stored), checked when any of them (or the game) is set now
        (:func:`games.endings.ending_problems`, the check leagues share)."""
        if not self.changed & {"variant", "match_options", "time_limit_minutes", "ending"}:
            return
        if {"ending", "match_options", "time_limit_minutes"} & set(self.errors):
            return
        options = data.get("match_options") or {}
        problems = endings.ending_problems(
            data["variant"],
            data.get("ending") or None,
            options.get("deals"),
            data.get("time_limit_minutes") or 0,
        )
        for field in [f for f in problems if f in self.fields]:
            self.add_error(field, ValidationError(problems.pop(field), code="bad_ending"))
        self.ending_problems = problems  # fields the form lacks (the deals, a match time)

    def _check_options(self, data: dict[str, Any]) -> None:
        options = dict(data["match_options"])
        if "play_on_tie" in options:
            self.add_error(
                "match_options",
                ValidationError(
                    _("Whether a tied match plays on follows from the format (knockout)."),
                    code="bad_options",
                ),
            )
            return
        if "deals" in self.ending_problems:
            options.pop("deals", None)  # said once, in the organiser's words
        try:
            checked = EngineMatch.new(data["variant"], "options-check", options)
        except OptionError as error:
            field = error.option if error.option in self.fields else "match_options"
            self.add_error(field, ValidationError(option_problem(error), code="bad_options"))
            return
        try:  # a tournament's tables are competition tables, rated or not
            match_tables.check_history(
                checked.options, rated=bool(data.get("rated")), competition=True
            )
        except MatchError as error:
            self.add_error("match_options", ValidationError(error.message, code=error.code))

    def _check_window(self, data: dict[str, Any]) -> None:
        if any(field in self.errors for field in TIMES) or "starts_at" not in data:
            return
        opens, closes = data.get("registration_opens"), data.get("registration_closes")
        if opens and closes and opens >= closes:
            self.add_error(
                "registration_closes",
                ValidationError(_("Registration must open before it closes."), code="bad_time"),
            )
        if closes and closes > data["starts_at"] and not data.get("late_until_round"):
            self.add_error(
                "registration_closes",
                ValidationError(
                    _("Registration closes at the latest when play starts."), code="bad_time"
                ),
            )

    #: Whether teams have entered (editing): the team size is then fixed.
    teams_entered = False

    def _check_conditions(self, data: dict[str, Any]) -> None:
        """An event open to several clubs: a minimum rating not above the maximum, a cap that
        leaves two entries to play, a team event of pairs or single players whose size is
        fixed once a team has entered."""
        low, high = data.get("min_rating"), data.get("max_rating")
        if low is not None and high is not None and low > high:
            problem = _("The maximum rating is below the minimum rating (%(low)d).") % {"low": low}
            self.add_error("max_rating", ValidationError(problem, code="bad_conditions"))
        if data.get("max_entries") == 1:
            problem = _("A cap of 1 leaves nobody to play: 0 for no cap, or 2 or more.")
            self.add_error("max_entries", ValidationError(problem, code="bad_conditions"))
        size = data.get("team_size")
        if size is None or "team_size" in self.errors:
            return
        if size and data.get("unit_kind") == UnitKind.INDIVIDUAL:
            problem = _("A team event is played by pairs or single players.")
            self.add_error("team_size", ValidationError(problem, code="bad_team_size"))
        elif "team_size" in self.changed and self.teams_entered and size != self.team_size_before:
            problem = _("The team size cannot change once a team has entered.")
            self.add_error("team_size", ValidationError(problem, code="started"))

    #: The tournament's team size before this change (editing).
    team_size_before = 0

    def refusal(self) -> TournamentError:
        """Every problem found, as one refusal (see the module)."""
        problems = [
            (
                field,
                error.code if error.code not in (None, *_BUILT_IN) else FIELD_CODES[field],
                error.messages[0],
            )
            for field, errors in self.errors.as_data().items()
            for error in errors
        ] + [
            (field, "bad_ending", message)
            for field, messages in self.ending_problems.items()
            for message in messages
        ]
        lines = [
            _("%(field)s: %(message)s") % {"field": label(field), "message": message}
            for field, _code, message in problems
        ]
        code = problems[0][1] or FIELD_CODES[problems[0][0]]
        refusal = TournamentError(code, " ".join(lines))
        fields: dict[str, list[str]] = {}
        for field, _code, message in problems:
            fields.setdefault(field, []).append(message)
        refusal.fields = fields  # type: ignore[attr-defined]
        return refusal


#: The codes of Django's own field checks, reported with the field's code (:data:`FIELD_CODES`).
_BUILT_IN = (
    "required",
    "invalid",
    "invalid_choice",
    "invalid_list",
    "max_length",
    "min_value",
    "max_value",
    "step_size",
)


#: Labels of the settings that are no model field (the web form's own labels).
LABELS = {
    "ending": gettext_lazy("Matches end"),
    "deals": gettext_lazy("Deals per match"),
}


def label(field: str) -> str:
    """The field's verbose name, as the form's label shows it."""
    if field in LABELS:
        return str(LABELS[field])
    try:
        model_field = Tournament._meta.get_field(field)
    except Exception:  # not a model field
        return field
    return str(getattr(model_field, "verbose_name", field))


def check_settings(
    data: dict[str, Any], tournament: Tournament | None, now: datetime | None = None
) -> dict[str, Any]:
    """``data``, the settings to set (over ``tournament``'s own when editing one), checked by
    :class:`TournamentSettingsForm`; returns the values to store (on creation also the
    defaults the checks chose: format, entry kind, match options, tie-breaks). Raises
    :class:`TournamentError` naming every problem, having changed nothing."""
    unknown = set(data) - {*EDITABLE, "ending"}
    if unknown:
        raise TournamentError("bad_field", _("Unknown field: %(f)s") % {"f": sorted(unknown)[0]})
    values = {field: getattr(tournament, field) for field in EDITABLE} if tournament else {}
    values.update(data)
    form = TournamentSettingsForm(values, set(data), now)
    if tournament is not None and tournament.pk:
        form.rounds_paired = tournament.rounds.count()
        form.groups_before = tournament.groups
        form.cycles_before = tournament.cycles
        form.series_before = tournament.series
        stored = cut_plan.parse_plan(tournament.cuts or [])
        form.made_cuts = cut_plan.made_cuts(stored, form.rounds_paired)
        form.teams_entered = tournament.club_teams.exists()
        form.team_size_before = tournament.team_size
    if not form.is_valid() or form.ending_problems:
        raise form.refusal()
    clean = form.cleaned_data
    clean.pop("ending", None)  # not stored: the deals and the match time make the mode
    if tournament is not None:
        return {field: clean[field] for field in data if field != "ending"}
    clean.setdefault("match_options", {})
    clean.setdefault("tiebreaks", [])
    return clean


# The web form: the organiser's settings page. It reads its widgets into the values the API
# takes and checks nothing itself: every rule is :class:`TournamentSettingsForm`'s, reached
# through the service, so the page and the API refuse the same settings in the same words.

#: The tie-breaks as the pages name them (the form's boxes, the standings' columns).
TIEBREAK_LABELS = {
    "match_points": gettext_lazy("Match points"),
    "level_diff": gettext_lazy("Level / point difference"),
    "buchholz": gettext_lazy("Buchholz"),
    "sonneborn_berger": gettext_lazy("Sonneborn-Berger"),
    "head_to_head": gettext_lazy("Head-to-head"),
    "wins": gettext_lazy("Wins"),
    "grade_points": gettext_lazy("Grade points"),
    "head_to_head_grades": gettext_lazy("Grade points between the tied"),
    "opponent_grades": gettext_lazy("Opponents' grade points"),
    "duplicate": gettext_lazy("Duplicate score (%)"),
}

#: The engine options of a match the form offers as fields (the open-table form's set, plus
#: the number of deals of the point-scored games); each applies only to games that have it.
OPTION_FIELDS = ("colour_twos", "deals", "first_action_seconds", "action_seconds")

#: The form's sections: the few fields most events need first, the rest folded with defaults.
SECTIONS = (
    ("", ("name", "variant", "format", "unit_kind", "starts_at", "rounds_planned")),
    (
        gettext_lazy("Matches"),
        (
            "online",
            "rated",
            "ending",
            "deals",
            "time_limit_minutes",
            *(name for name in OPTION_FIELDS if name != "deals"),
            "third_place",
            "series",
            "duplicate",
        ),
    ),
    (
        gettext_lazy("Registration and check-in"),
        (
            "registration_opens",
            "registration_closes",
            "checkin_required",
            "checkin_minutes",
            "late_until_round",
        ),
    ),
    (
        gettext_lazy("Rounds and standings"),
        (
            "round_minutes",
            "start_when_ready",
            "no_show_minutes",
            "scoring",
            "groups",
            "cycles",
            "tiebreaks",
            "cuts",
        ),
    ),
    (
        gettext_lazy("Clubs and entry conditions"),
        ("max_entries", "min_rating", "max_rating", "min_rated_matches", "team_size"),
    ),
    (gettext_lazy("Description"), ("description",)),
)

#: The settings of the web form that are stored as they are (the option fields and the
#: ending are gathered into ``match_options`` and the match time).
WEB_SETTINGS = tuple(
    name
    for _title, names in SECTIONS
    for name in names
    if name not in OPTION_FIELDS and name != "ending"
)

#: The choices that have a default: left out, they keep it.
DEFAULTED = ("format", "unit_kind", "scoring")

#: The round robin's cycles as the form offers them (第二十七条二、三).
CYCLE_CHOICES = (
    (1, pgettext_lazy("tournament format", "Single round robin")),
    (2, pgettext_lazy("tournament format", "Double round robin")),
)

DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class TypedText(forms.CharField):
    """A value typed or chosen in the web form, passed on as typed (a whole number, a choice):
    whether it is a good one is :class:`TournamentSettingsForm`'s to say."""

    def has_changed(self, initial: Any, data: Any) -> bool:
        """Changed when its text differs from the stored value's (5 and "5" are the same)."""
        return super().has_changed("" if initial is None else str(initial), data)


class CutPlanTextField(TypedText):
    """The web form's input of a low-position elimination plan: one line such as ``3:12, 5:6``
    (after round 3 keep 12, after round 5 keep 6), shown back the same way and passed on as
    typed (read and checked by :class:`CutPlanField`)."""

    def prepare_value(self, value: Any) -> Any:
        """A stored plan (a list) as its text; a text typed in as it is."""
        if isinstance(value, list):
            try:
                return cut_plan.format_plan(cut_plan.parse_plan(value))
            except cut_plan.PlanError:
                return ""
        return value

    def has_changed(self, initial: Any, data: Any) -> bool:
        """Changed when the text differs from the stored plan's."""
        return forms.CharField.has_changed(self, self.prepare_value(initial or []), data)


def _web_field(name: str) -> forms.Field:
    """The input of the setting ``name``, labelled as the refusals name it (:func:`label`)."""
    model_field = Tournament._meta.get_field(name)
    assert isinstance(model_field, models.Field)  # a setting is a column of the tournament
    kwargs: dict[str, Any] = {"label": capfirst(label(name)), "required": False}
    if name in FLAGS or name == "duplicate":
        return forms.BooleanField(**kwargs)
    if name == "cycles":
        return TypedText(widget=forms.Select(choices=CYCLE_CHOICES), **kwargs)
    if name in TIMES:
        return forms.DateTimeField(widget=DATETIME, **kwargs)
    if name in NUMBERS:
        return TypedText(widget=forms.NumberInput, **kwargs)
    if model_field.choices:
        choices = list(model_field.choices)
        if not model_field.has_default():
            choices.insert(0, ("", "---------"))
        return TypedText(widget=forms.Select(choices=choices), **kwargs)
    if name == "description":
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), **kwargs)
    return TypedText(widget=forms.TextInput(attrs={"maxlength": 120}), **kwargs)


def _seconds_field(name: str) -> forms.IntegerField:
    """A clock option's input (seconds for an action), the game's default when empty, with
    the bounds offered to a person."""
    low, high = offered_bounds(name)
    return forms.IntegerField(
        label=OPTION_NAMES[name],
        min_value=low,
        max_value=high,
        required=False,
        help_text=gettext_lazy("Empty: the game's default."),
    )


class TournamentForm(forms.Form):
    """The settings an organiser edits on the web, grouped as :data:`SECTIONS`; the match
    options are fields (:data:`OPTION_FIELDS`), gathered into ``match_options``. It only reads
    its widgets: the service checks the values (:func:`check_settings`), and :meth:`refused`
    shows its refusal beside the fields."""

    tiebreaks = forms.MultipleChoiceField(
        label=gettext_lazy("Tie-breaks (after match points)"),
        choices=[
            (k, v) for k, v in TIEBREAK_LABELS.items() if k not in ("match_points", "duplicate")
        ],
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    colour_twos = forms.BooleanField(
        label=gettext_lazy("Coloured twos (Bao 2)"),
        required=False,
        help_text=gettext_lazy("Only for Bao 2."),
    )
    ending = TypedText(
        label=gettext_lazy("Matches end"),
        required=False,
        widget=forms.Select(
            choices=[
                ("", gettext_lazy("As the deals and the match time below say")),
                *endings.ENDINGS,
            ]
        ),
        help_text=gettext_lazy(
            "National rules, 第十四条: a side that passes A wins at once in every mode; at a "
            "time or deal limit the higher level wins and equal levels draw (in a knockout "
            "they play on, one deal at a time)."
        ),
    )
    deals = forms.IntegerField(
        label=gettext_lazy("Deals per match"),
        required=False,
        help_text=gettext_lazy(
            "When matches end after a number of deals. Nanping Red Two and Shuangkou: "
            "empty for the game's default."
        ),
    )
    first_action_seconds = _seconds_field("first_action_seconds")
    cuts = CutPlanTextField(
        label=gettext_lazy("Low-position elimination"),
        required=False,
        max_length=120,
        help_text=gettext_lazy(
            "Swiss only. Round:entries kept, e.g. 3:12, 5:6: after round 3 the best 12 play "
            "on, after round 5 the best 6; the others keep their place below them. Empty: "
            "no cut."
        ),
        widget=forms.TextInput(attrs={"placeholder": "3:12, 5:6", "autocomplete": "off"}),
    )
    action_seconds = _seconds_field("action_seconds")

    #: Help beside a setting's input.
    HELP = {
        "max_entries": gettext_lazy(
            "0: no cap. Entries over the cap (teams, in a team event) wait; when one withdraws "
            "before the start, the first waiting one moves up and is told."
        ),
        "min_rating": gettext_lazy(
            "Empty: none. Each player's rating on the platform ladder of this game, which every "
            "club's rated matches feed; the host club invites other clubs on the Clubs page."
        ),
        "team_size": gettext_lazy(
            "0: not a team event. Each team is a club's named team of this many pairs (or "
            "players), entered by its captain; the team standings add up their results."
        ),
        "groups": gettext_lazy(
            "Round robin only (第二十七条): the entries are spread over this many groups by "
            "serpentine seeding, each group a round robin of its own; the best of each group "
            "go on to the next stage. 1: no groups."
        ),
        "cycles": gettext_lazy(
            "Round robin only (第二十七条): in a double round robin every two entries meet again "
            "after the first cycle, sides swapped; in a group round robin, within each group. "
            "Twice the rounds."
        ),
        "unit_kind": gettext_lazy(
            "Nanping Red Two is played as an individual event: partners change every deal."
        ),
        "duplicate": gettext_lazy(
            "Bao 2 and Guandan, online, Swiss or round robin: every table of a round gets "
            "the same cards, and entries are ranked by comparing their results deal by deal."
        ),
        "series": gettext_lazy(
            "Single elimination of Bao 2 or Guandan (第三十条): each tie is 2 or 3 games whose "
            "grade points are added up (national rules' scoring; a tie in the sum goes to the "
            "games won, then to one deciding game), or best of three or five (a drawn game "
            "plays on one deal at a time)."
        ),
        "scoring": gettext_lazy(
            "National rules (第十三条): 2/1/0 match points and grade points, for Bao 2 and "
            "Guandan; ranked by match points, grade points, grade points between the tied and "
            "the opponents' grade points unless tie-breaks are ticked below. Fixed once round 1 "
            "is paired."
        ),
    }

    def __init__(self, data: Any = None, instance: Tournament | None = None) -> None:
        self.instance = instance or Tournament()
        initial = forms.model_to_dict(self.instance, fields=[*WEB_SETTINGS, "match_options"])
        options = initial.pop("match_options", None) or {}
        super().__init__(data, initial=initial)
        for name in WEB_SETTINGS:
            if name not in self.fields:
                self.fields[name] = _web_field(name)
            if name in self.HELP:
                self.fields[name].help_text = self.HELP[name]
        for name in OPTION_FIELDS:
            if name in options:
                self.initial[name] = options[name]
        if self.instance.pk:
            self.initial["ending"] = endings.ending_of(
                self.instance.variant, options.get("deals"), self.instance.time_limit_minutes
            )
        # marked: the settings that cannot be left empty (the ending mode decides whether a
        # match time is needed: empty is none)
        for name in WEB_SETTINGS:
            optional = ("time_limit_minutes", "groups", *CONDITIONS)
            if name in ALWAYS or name in NUMBERS and name not in optional:
                self.fields[name].widget.attrs["required"] = True
        for name in ("format", "unit_kind"):
            self.fields[name].widget.attrs["required"] = True

    def clean(self) -> dict[str, Any]:
        """Gather the option fields the game has into ``match_options`` (an empty field: the
        game's default)."""
        super().clean()
        data = self.cleaned_data
        for name in (
            *DEFAULTED,
            "groups",
            "cycles",
            *CONDITIONS,
        ):  # left out: the default, or unchanged
            if name in ("min_rating", "max_rating"):
                continue  # empty: no bound
            if data.get(name) == "":
                data.pop(name)
        variant = data.get("variant") or self.instance.variant
        facts = game_facts(variant) if variant in GAMES else None
        known = set(facts.options) if facts else set()
        ending = data.get("ending") or ""
        levels = bool(facts and facts.levels)
        if levels and ending in (endings.TO_TOP, endings.TIME):
            data.pop("deals", None)  # the mode chosen counts no deals: the field is ignored
        elif levels:
            known.add("deals")  # a level game's deal limit (计副制)
        if ending in (endings.TO_TOP, endings.DEALS) or data.get("time_limit_minutes") in (
            None,
            "",
        ):
            data["time_limit_minutes"] = 0  # no match time
        options = {}
        for name in OPTION_FIELDS:
            value = data.pop(name, None)
            if name in known and value not in (None, "") and (name != "colour_twos" or value):
                options[name] = value
        data["match_options"] = options
        if not ending:
            data.pop("ending", None)
        return data

    def sections(self) -> list[dict[str, Any]]:
        """The bound fields by section; a folded section opens when one of its fields has an
        error."""
        out = []
        for title, names in SECTIONS:
            fields = [self[name] for name in names]
            out.append({"title": title, "fields": fields, "open": any(f.errors for f in fields)})
        return out

    def changed_settings(self) -> dict[str, Any]:
        """The changed settings, the option fields counted as ``match_options``."""
        names = {"match_options" if n in OPTION_FIELDS else n for n in self.changed_data}
        if names & {"ending", "match_options", "time_limit_minutes"}:
            # the ending mode is the deals and the match time together: set and check both
            names |= {"ending", "match_options", "time_limit_minutes"}
        return {n: self.cleaned_data[n] for n in names if n in self.cleaned_data}

    def refused(self, error: TournamentError) -> None:
        """Show the service's refusal: each problem beside the field it names (all at once),
        else above the form."""
        show_refusal(self, error)
