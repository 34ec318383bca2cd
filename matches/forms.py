"""Forms of the live-play pages."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.variants import Variant, game
from matches.models import BotKind


class TableForm(forms.Form):
    """Open a table: the game and its options."""

    variant = forms.ChoiceField(label=_("Game"), choices=Variant.choices, initial=Variant.BAO2)
    colour_twos = forms.BooleanField(
        label=_("Coloured twos (Bao 2)"),
        required=False,
        help_text=_("Only for Bao 2."),
    )
    clocks = forms.BooleanField(label=_("Clocks"), required=False, initial=True)
    first_action_seconds = forms.IntegerField(
        label=_("Seconds for the first action of a deal"), min_value=5, max_value=600, initial=30
    )
    action_seconds = forms.IntegerField(
        label=_("Seconds for later actions"), min_value=5, max_value=600, initial=20
    )
    time_limit_minutes = forms.IntegerField(
        label=_("Match time limit (minutes, 0: none)"), min_value=0, max_value=600, initial=60
    )
    rated = forms.BooleanField(label=_("Rated"), required=False)
    spectators_allowed = forms.BooleanField(
        label=_("Spectators allowed"), required=False, initial=True
    )

    def service_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of :func:`matches.services.tables.open_table`."""
        data = self.cleaned_data
        options: dict[str, Any] = {
            "first_action_seconds": data["first_action_seconds"],
            "action_seconds": data["action_seconds"],
        }
        if "colour_twos" in game(data["variant"]).options:
            options["colour_twos"] = data["colour_twos"]
        return {
            "variant": data["variant"],
            "options": options,
            "clocks": data["clocks"],
            "time_limit_seconds": data["time_limit_minutes"] * 60,
            "rated": data["rated"],
            "spectators_allowed": data["spectators_allowed"],
        }


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
