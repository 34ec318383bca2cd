"""How an event's matches end (第十四条 of the national Guandan rules): the one check of an
organiser's choice, for tournaments and league seasons alike, and the words that say it.

Four ending modes, derived from what is set (no field stores the mode):

- ``to_top`` 计局制: a level game ends when a team passes the top level (A, Bao 2's second A);
- ``deals`` 计副制: after a number of deals (the engine option ``deals``) the higher level (or
  the most points) wins;
- ``time`` 计时制: when the match time (minutes) runs out, at the end of the deal in progress;
- ``time_deals`` 计时计副制: whichever of the two comes first.

A level game ends by passing the top level in every mode. The point games (Nanping Red Two,
Shuangkou) are always played over a number of deals (the game's default when none is set):
their modes are ``deals`` and ``time_deals``. Equal levels at a limit are a draw, except in a
knockout, where the tables play on one deal at a time (the engine's ``play_on_tie``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from engine.variants import variant_facts
from games.variants import game as game_facts

TO_TOP, DEALS, TIME, TIME_DEALS = "to_top", "deals", "time", "time_deals"
#: The modes and their names, as the organiser's form offers them.
ENDINGS = (
    (TO_TOP, gettext_lazy("Until a side passes A")),
    (DEALS, gettext_lazy("After a number of deals")),
    (TIME, gettext_lazy("When the match time runs out")),
    (TIME_DEALS, gettext_lazy("Time or deals, whichever comes first")),
)
#: The most deals an event may set for a match (the engine allows more).
MAX_DEALS = 50
#: The longest match time an event may set, in minutes.
MAX_MINUTES = 24 * 60


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def ending_of(variant: str, deals: Any, minutes: Any) -> str:
    """The mode that ``deals`` (the match option, None: not set) and ``minutes`` (the match
    time, 0: none) make for ``variant``'s matches."""
    by_deals = bool(deals) or not game_facts(variant).levels
    by_time = bool(minutes)
    if by_deals:
        return TIME_DEALS if by_time else DEALS
    return TIME if by_time else TO_TOP


def ending_problems(variant: str, ending: Any, deals: Any, minutes: Any) -> dict[str, list[str]]:
    """What is wrong with ending ``variant``'s matches by ``ending`` (a mode of
    :data:`ENDINGS`; None: the mode ``deals`` and ``minutes`` make) with ``deals`` deals (None:
    not set) and a match time of ``minutes``: each problem in the organiser's words, under the
    field it concerns (``ending``, ``deals``, ``time_limit_minutes``), all at once. Empty when
    the choice is sound."""
    facts = game_facts(variant)
    problems: dict[str, list[str]] = {}
    if ending is None:
        ending = ending_of(variant, deals, minutes)
    if ending not in dict(ENDINGS):
        names = "; ".join(str(name) for _key, name in ENDINGS)
        return {"ending": [_("Choose how matches end: %(names)s.") % {"names": names}]}
    if not facts.levels and ending in (TO_TOP, TIME):
        problems["ending"] = [
            _(
                "%(game)s is played over a number of deals: choose “After a number of deals” "
                "or “Time or deals, whichever comes first”."
            )
            % {"game": facts.label}
        ]
    by_deals = ending in (DEALS, TIME_DEALS)
    by_time = ending in (TIME, TIME_DEALS)
    deal_words = _("Give the number of deals of a match: a whole number from 1 to %(high)d.") % {
        "high": MAX_DEALS
    }
    if by_deals:
        if deals is None:
            if facts.levels:
                problems["deals"] = [deal_words]
        elif not _whole(deals) or not 1 <= deals <= MAX_DEALS:
            problems["deals"] = [deal_words]
    elif deals and facts.levels:
        problems["deals"] = [
            _(
                "Deals are counted only when matches end after a number of deals (or by time "
                "or deals): leave it empty or choose such an ending."
            )
        ]
    if by_time:
        if not _whole(minutes) or not 1 <= minutes <= MAX_MINUTES:
            problems["time_limit_minutes"] = [
                _("Give the match time: a whole number of minutes from 1 to %(high)d.")
                % {"high": MAX_MINUTES}
            ]
    elif minutes and facts.levels:
        problems["time_limit_minutes"] = [
            _(
                "A match time counts only when matches end by time (or by time or deals): set "
                "it to 0 or choose such an ending."
            )
        ]
    return problems


def ending_text(variant: str, deals: Any, minutes: Any) -> str:
    """How ``variant``'s matches end, for players: e.g. "Ends after 8 deals" (计副制：8 副);
    ``deals`` None for a point game: its default."""
    facts = game_facts(variant)
    if deals is None and not facts.levels:
        deals = default_deals(variant)
    mode = ending_of(variant, deals, minutes)
    if mode == DEALS:
        return _("Ends after %(deals)d deals") % {"deals": deals}
    if mode == TIME:
        return _("Ends when %(minutes)d minutes are up") % {"minutes": minutes}
    if mode == TIME_DEALS:
        return _("Ends after %(minutes)d minutes or %(deals)d deals, whichever comes first") % {
            "minutes": minutes,
            "deals": deals,
        }
    return _("Ends when a side passes A")


def default_deals(variant: str) -> int:
    """The number of deals of a point game's match when none is set (0 for a level game)."""
    return int(variant_facts(variant).options.get("deals", 0))
