"""The engine's match options in the platform's words: one name per option, shared by every
form that offers them, and the translated sentence for an option the engine refuses
(:class:`engine.match.OptionError`)."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.deal import DealRules
from engine.match import OptionError

#: The shortest clock a person is offered (seconds for an action): the engine allows shorter,
#: which only the tests use.
PERSON_MIN_SECONDS = 5
CLOCK_OPTIONS = ("first_action_seconds", "action_seconds")

#: The name of each option a person may set, as the forms label it.
OPTION_NAMES = {
    "first_action_seconds": _("Seconds for the first action of a deal"),
    "action_seconds": _("Seconds for later actions"),
    "a_attempts": _("Attempts at A"),
    "deals": _("Deals in the match"),
    "base": _("Base (points per unit)"),
    "time_limit_minutes": _("Match time limit (minutes, 0: none)"),
    "colour_twos": _("Coloured twos"),
    "show_history": _("Show played cards"),
}


def option_problem(error: OptionError) -> str:
    """The engine's refusal of an option as a sentence in the active language, naming the
    option and, for a number, its bounds."""
    if error.kind == "unknown":
        return gettext("There is no match option “%(option)s”.") % {"option": error.option}
    name = OPTION_NAMES.get(error.option, error.option)
    if error.kind == "bool":
        return gettext("%(field)s: choose yes or no.") % {"field": name}
    return gettext("%(field)s must be a whole number from %(low)d to %(high)d.") % {
        "field": name,
        "low": error.low,
        "high": error.high,
    }


def offered_bounds(
    option: str, bounds: Mapping[str, tuple[int, int]] = DealRules.option_bounds
) -> tuple[int, int]:
    """The (lowest, highest) value a form offers for a whole-number option: the engine's
    ``bounds`` (by default those every game shares), a clock from
    :data:`PERSON_MIN_SECONDS`."""
    low, high = bounds[option]
    if option in CLOCK_OPTIONS:
        low = max(low, PERSON_MIN_SECONDS)
    return low, high
