"""Observations: what one seat (or a spectator) may know, as JSON-ready dicts.

An observation is the ONLY thing the platform sends to a client. It holds the seat's own hand,
the plays of the current trick (past tricks only under ``show_history``: cards stack face down,
bao2.md 八.7), each other player's card count only when the rules show it (6 or fewer always;
7 to 10 once someone asked in this deal; never above 10), the finishing order, levels, whose
turn it is (``turn``; ``actors``: every seat that may act now, both tribute givers during
tribute) and whether they lead, initiative flags, and the tribute / immune-window facts the
seat may know; ``askable`` (per seat) says whose count may be asked now (7 to 10 cards, not
asked yet in this deal: no one can ask about a seat holding more than 10, so the page offers
the question only there). A spectator (``seat=None``) gets the same without any hand.
:meth:`engine.match.Match.observation` adds the match state to :func:`deal_observation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cards import card_str
from engine.display import display_order

_STR = [card_str(c) for c in range(54)]

if TYPE_CHECKING:
    from engine.deal import Deal


def _copy_flat(data: dict[str, Any]) -> dict[str, Any]:
    """Copy of a dict whose values are scalars or lists of scalars."""
    return {k: v[:] if isinstance(v, list) else v for k, v in data.items()}


#: The last deal summary copied and its keys holding lists (a summary is never changed once
#: recorded: ``Match.deals`` only grows). Replaced as a whole, so threads may share it.
_PREVIOUS: tuple[Any, tuple[str, ...]] = (None, ())


def copy_previous(summary: dict[str, Any]) -> dict[str, Any]:
    """A copy of a recorded deal summary (``Match.deals[-1]``) whose lists are fresh."""
    global _PREVIOUS
    cached = _PREVIOUS
    if cached[0] is not summary:
        keys = tuple(k for k, v in summary.items() if isinstance(v, list))
        cached = _PREVIOUS = (summary, keys)
    out = summary.copy()
    for k in cached[1]:
        out[k] = out[k][:]
    return out


def _entry(seat: int, combo: Any, rules: Any = None) -> dict[str, Any]:
    """A trick entry: ``combo.to_json()`` plus the seat, or a pass. With the deal's combo
    ``rules`` the cards are in reading order (engine.display: a full house as its triple then
    its pair, a straight low to high with the wild card where it stands)."""
    if combo is None:
        return {"seat": seat, "pass": True}
    out: dict[str, Any] = {"type": combo.type}
    if combo.key is not None:
        out["key"] = combo.key
    if combo.size is not None:
        out["size"] = combo.size
    if combo.length is not None:
        out["length"] = combo.length
    if combo.lines is not None:
        out["lines"] = combo.lines
    cards = combo.cards if rules is None else display_order(combo, rules)
    out["cards"] = [_STR[c] for c in cards]
    out["seat"] = seat
    return out


def _cached_entries(deal: Deal) -> tuple[list[dict[str, Any]], list[Any]]:
    """The current trick's JSON entries and combos, kept on the deal (shared: never hand them
    out). Built once per play: a trick list only grows, and a new trick is a new list."""
    trick = deal.trick
    cached = deal.cache.get("trick_json")
    if cached is None or cached[0] is not trick or len(cached[1]) > len(trick):
        cached = deal.cache["trick_json"] = (trick, [], [])
    entries: list[dict[str, Any]] = cached[1]
    combos: list[Any] = cached[2]
    n = len(entries)
    if n < len(trick):
        for s, c in trick[n:]:
            entries.append(_entry(s, c, deal.combos))
            combos.append(c)
    return entries, combos


def _standing_entry(deal: Deal, entries: list[dict[str, Any]], combos: list[Any]) -> Any:
    """The standing play's entry (a fresh dict) or ``None`` when nothing stands."""
    standing = deal.standing
    if standing is None:
        return None
    seat = deal.standing_seat
    for i in range(len(entries) - 1, -1, -1):
        if combos[i] is standing and entries[i]["seat"] == seat:
            st_entry = entries[i].copy()
            st_entry["cards"] = st_entry["cards"][:]
            return st_entry
    return _entry(seat, standing, deal.combos)  # type: ignore[arg-type]


def _trick_entries(deal: Deal) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The current trick as JSON entries (fresh dicts) and the standing play's entry (fresh,
    ``None`` when nothing stands)."""
    entries, combos = _cached_entries(deal)
    st_entry = _standing_entry(deal, entries, combos)
    out = []
    for e in entries:
        if "cards" in e:
            e = e.copy()
            e["cards"] = e["cards"][:]
            out.append(e)
        else:
            out.append({"seat": e["seat"], "pass": True})
    return out, st_entry


def deal_observation(deal: Deal, seat: int | None) -> dict[str, Any]:
    """The observation of one deal for ``seat`` (``None``: spectator)."""
    turn = deal.to_move()
    phase = deal.phase
    revealed = deal.revealed
    trick, st_entry = _trick_entries(deal)
    # a hidden count is None
    counts: list[int | None] = list(deal.sizes)
    askable = [False] * len(counts)
    asking = phase in ("play", "immune")
    for s, k in enumerate(deal.sizes):
        if k > 6 and s != seat and (k > 10 or not revealed[s]):
            counts[s] = None
            # 7–10 cards not asked yet: anyone may ask (bao2.md §9); above 10 no one may
            askable[s] = asking and k <= 10
    obs: dict[str, Any] = {
        "variant": deal.variant,
        "seat": seat,
        "phase": phase,
        "level": deal.level,
        "turn": turn,
        "actors": deal.actors()
        if phase in ("tribute", "return")
        else ([] if turn is None else [turn]),
        "lead": phase == "play" and deal.leading and turn is not None,
        "lead_kind": deal.lead_kind if phase == "play" else None,
        "counts": counts,
        "askable": askable,
        "finished": deal.finished[:],
        "initiative": deal.initiative[:],
        "stuck": deal.stuck[:],
        "suspended": deal.suspended[:],
        "trick": trick,
        "standing": st_entry,
        "first_action": None if seat is None else not deal.acted[seat],
    }
    if seat is not None:
        obs["hand"] = _hand_strs(deal, seat)[:]
    if deal.options.get("show_history"):
        obs["history"] = [[_entry(s, c, deal.combos) for s, c in t] for t in deal.history]
    info = deal.rules.public_info(deal, seat)
    if info:
        obs.update(info)
    if deal.result is not None:
        obs["result"] = _copy_flat(deal.result)
    return obs


def _hand_strs(deal: Deal, seat: int) -> list[str]:
    """The seat's hand as card strings, kept on the deal until it changes (shared)."""
    hand: list[str] | None = deal.cache.get(("str", seat))
    if hand is None:
        hand = deal.cache["str", seat] = [_STR[c] for c in deal.hand(seat)]
    return hand


#: The keys of :func:`play_view`: what a bot's play decision reads.
PLAY_VIEW_KEYS = (
    "variant",
    "seat",
    "phase",
    "level",
    "turn",
    "lead",
    "initiative",
    "hand",
    "standing",
)


def play_view(deal: Deal, seat: int) -> dict[str, Any]:
    """The bots' light observation of ``seat``: the items of ``deal_observation(deal, seat)``
    named in :data:`PLAY_VIEW_KEYS`, equal to them, and nothing else (so it can tell no more
    than the observation). The platform never sends it; a bot choosing a play reads only
    these, and a random playout spends a third of its time building the rest. Its ``hand`` is
    shared with the deal's cache: read it, never change it."""
    phase = deal.phase
    turn = deal.to_move()
    standing = None if deal.standing is None else _standing_entry(deal, *_cached_entries(deal))
    return {
        "variant": deal.variant,
        "seat": seat,
        "phase": phase,
        "level": deal.level,
        "turn": turn,
        "lead": phase == "play" and deal.leading and turn is not None,
        "initiative": deal.initiative[:],
        "hand": _hand_strs(deal, seat),
        "standing": standing,
    }
