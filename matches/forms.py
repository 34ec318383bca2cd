"""Forms of the live-play pages."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.actions import SANCTIONS
from engine.variants import variant_facts
from games.options import OPTION_NAMES, offered_bounds
from games.variants import DEFAULT_GAME, Variant, game, is_game
from matches.models import BotKind
from matches.services.play import REASON_LENGTH

#: The engine's number options offered when opening a table (bounds: :func:`offered_bounds`).
NUMBER_OPTIONS = ("first_action_seconds", "action_seconds", "a_attempts", "deals", "base")
#: Help under an option's field.
OPTION_HELP = {
    "a_attempts": _("Failed attempts at the last level before the team drops back."),
    "colour_twos": _("Red 2s (♥2, ♦2) are worth more than black ones."),
    "show_history": _(
        "Casual tables only: the last trick and the cards each player has played stay visible."
    ),
}
#: The engine's yes/no options offered when opening a table.
BOOLEAN_OPTIONS = ("colour_twos", "show_history")


def game_defaults(variant: str) -> dict[str, Any]:
    """The engine options of ``variant`` with their defaults."""
    return dict(variant_facts(variant).options)


class TableForm(forms.Form):
    """Open a table of one game: every option the engine has for it, as a field with the
    engine's default (``variant``: the game; a posted ``variant`` wins)."""

    variant = forms.ChoiceField(
        label=_("Game"), choices=Variant.choices, initial=DEFAULT_GAME, widget=forms.HiddenInput
    )
    clocks = forms.BooleanField(label=_("Clocks"), required=False, initial=True)
    time_limit_minutes = forms.IntegerField(
        label=OPTION_NAMES["time_limit_minutes"], min_value=0, max_value=600
    )
    rated = forms.BooleanField(
        label=_("Rated"),
        # the glossary's one word for "rated" (计分) reads like mere scoring: say what it does
        help_text=_("Counts for the ladder: the result changes the players' ratings."),
        required=False,
    )
    spectators_allowed = forms.BooleanField(
        label=_("Spectators allowed"), required=False, initial=True
    )
    phrases_allowed = forms.BooleanField(
        label=_("Quick phrases allowed"),
        help_text=_("Short fixed phrases the players may send (never at a rated table)."),
        required=False,
        initial=True,
    )

    def __init__(self, *args: Any, variant: str = DEFAULT_GAME, **kwargs: Any) -> None:
        """The fields of ``variant``'s options (an unknown game: Bao 2's fields)."""
        super().__init__(*args, **kwargs)
        if self.is_bound and is_game(self.data.get("variant")):
            variant = self.data["variant"]
        if not is_game(variant):
            variant = DEFAULT_GAME
        self.game = game(variant)
        self.defaults = game_defaults(variant)
        self.fields["variant"].initial = variant
        self.fields["time_limit_minutes"].initial = self.defaults.get("time_limit_minutes", 0)
        bounds = variant_facts(variant).option_bounds
        for name in NUMBER_OPTIONS:
            if name in self.defaults:
                low, high = offered_bounds(name, bounds)
                self.fields[name] = forms.IntegerField(
                    label=OPTION_NAMES[name],
                    help_text=OPTION_HELP.get(name, ""),
                    min_value=low,
                    max_value=high,
                    initial=self.defaults[name],
                    required=False,
                )
        for name in BOOLEAN_OPTIONS:
            if name in self.defaults:
                self.fields[name] = forms.BooleanField(
                    label=OPTION_NAMES[name],
                    help_text=OPTION_HELP.get(name, ""),
                    required=False,
                    initial=self.defaults[name],
                )
        # the game first, the table's own settings last
        order = ["variant", "clocks", *NUMBER_OPTIONS, "time_limit_minutes", *BOOLEAN_OPTIONS]
        self.order_fields([*order, "rated", "spectators_allowed", "phrases_allowed"])

    def clean(self) -> dict[str, Any]:
        """Played cards are never shown at a rated table (rule 八.7)."""
        data = super().clean()
        if data.get("rated") and data.get("show_history"):
            self.add_error("show_history", _("Played cards cannot be shown at a rated table."))
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :func:`matches.services.tables.open_table`: the clock
        seconds and coloured twos always, another number option when given, played cards
        only when shown (left out, an option keeps the engine's default)."""
        data = self.cleaned_data
        options: dict[str, Any] = {}
        for name in NUMBER_OPTIONS:
            if name in self.defaults and data.get(name) is not None:
                options[name] = data[name]
        for name in ("first_action_seconds", "action_seconds"):
            options.setdefault(name, self.defaults[name])
        if "colour_twos" in self.defaults:
            options["colour_twos"] = data["colour_twos"]
        if data.get("show_history"):
            options["show_history"] = True
        return {
            "variant": data["variant"],
            "options": options,
            "clocks": data["clocks"],
            "time_limit_seconds": data["time_limit_minutes"] * 60,
            "rated": data["rated"],
            "spectators_allowed": data["spectators_allowed"],
            "phrases_allowed": data["phrases_allowed"],
        }


class RefereeForm(forms.Form):
    """A referee's sanction: which, against which seat, and why."""

    sanction = forms.ChoiceField(choices=[(s, s) for s in SANCTIONS])
    target = forms.IntegerField(min_value=0, max_value=3)
    reason = forms.CharField(max_length=REASON_LENGTH, strip=True)


class SeatForm(forms.Form):
    """Take a seat, stand up, or put a bot in a seat."""

    action = forms.ChoiceField(
        choices=[("sit", "sit"), ("leave", "leave"), ("bot", "bot")], widget=forms.HiddenInput
    )
    seat = forms.IntegerField(min_value=0, max_value=3, required=False)
    bot = forms.ChoiceField(
        choices=[
            (BotKind.HEURISTIC, BotKind.HEURISTIC.label),
            (BotKind.RANDOM, BotKind.RANDOM.label),
            (BotKind.SEARCH, BotKind.SEARCH.label),
        ],
        required=False,
    )
