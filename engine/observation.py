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

An observation is read-only: the dict itself is new, but the lists and dicts in it may be
shared with other observations of the same match (a trick's entries, the standing play, the
finished tribute, the previous deal's summary, the match's items, the per-seat flags while
they stay the same; a pass's trick entry is one dict per seat for every match). The engine
never changes a part it has
handed out (it builds a new one when the state changes), so an observation kept stays as it
was; a caller that wants to change one copies it first. A random playout builds one
observation per action, and the parts that did not change cost nothing to share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cards import CARD_STRS
from engine.display import display_order

_STR = CARD_STRS
_STR_OF = _STR.__getitem__

if TYPE_CHECKING:
    from engine.deal import Deal


def _copy_flat(data: dict[str, Any]) -> dict[str, Any]:
    """Copy of a dict whose values are scalars or lists of scalars."""
    return {k: v[:] if isinstance(v, list) else v for k, v in data.items()}


def copy_previous(summary: dict[str, Any]) -> dict[str, Any]:
    """A copy of a recorded deal summary (``Match.deals[-1]``) whose lists are fresh (a
    summary is never changed once recorded: ``Match.observation`` makes one copy per deal)."""
    return _copy_flat(summary)


#: A pass's trick entry per seat (an observation is read-only: one dict serves every pass).
_PASS_ENTRY = tuple({"seat": s, "pass": True} for s in range(8))


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
    cards = combo.cards
    if rules is not None and len(cards) > 1 and not _one_rank(cards, rules):
        cards = display_order(combo, rules)
    out["cards"] = list(map(_STR_OF, cards))
    out["seat"] = seat
    return out


def _one_rank(cards: tuple[int, ...], rules: Any) -> bool:
    """Whether sorted ``cards`` are all of one rank, none of them wild: their reading order
    (:func:`engine.display.display_order`: by strength, which goes by rank, then suit) is
    then their id order, and the observation skips the call."""
    first = cards[0]
    if first >= 52:  # jokers: one rank is one card id
        if cards[-1] != first:
            return False
    else:
        rank = first % 13
        for c in cards:
            if c >= 52 or c % 13 != rank:
                return False
    is_wild = rules.is_wild
    for c in cards:
        if is_wild(c):
            return False
    return True


class _TrickJson:
    """The current trick's JSON entries, kept on the deal (``deal.cache["trick_json"]``) and
    extended once per play: a trick list only grows, and a new trick is a new list. The
    entries are built once and never changed: every observation of the trick shares them."""

    __slots__ = ("trick", "entries", "combos", "last_play")

    def __init__(self, trick: list[Any]) -> None:
        self.trick = trick
        #: Per entry: its JSON dict (a pass's too), never handed out.
        self.entries: list[dict[str, Any]] = []
        self.combos: list[Any] = []
        #: Index of the last play (not a pass) in the entries, -1 if none.
        self.last_play = -1

    def extend(self, deal: Deal) -> None:
        """Add the entries of the plays and passes made since the last call."""
        trick = self.trick
        entries = self.entries
        combos = self.combos
        rules = deal.combos
        for i in range(len(entries), len(trick)):
            s, c = trick[i]
            if c is None:
                entries.append(_PASS_ENTRY[s])
            else:
                self.last_play = i
                entries.append(_entry(s, c, rules))
            combos.append(c)

    def standing(self, deal: Deal) -> dict[str, Any] | None:
        """The standing play's entry (shared: never change it), ``None`` when nothing
        stands."""
        standing = deal.standing
        if standing is None:
            return None
        seat = deal.standing_seat
        i = self.last_play
        combos = self.combos
        entries = self.entries
        if i < 0 or combos[i] is not standing or entries[i]["seat"] != seat:
            # a position set up by hand: the standing play may be any entry, or none
            for i in range(len(entries) - 1, -2, -1):
                if i < 0:
                    return _entry(seat, standing, deal.combos)  # type: ignore[arg-type]
                if combos[i] is standing and entries[i]["seat"] == seat:
                    break
        return entries[i]


def _trick_json(deal: Deal) -> _TrickJson:
    """The deal's :class:`_TrickJson`, brought up to date."""
    trick = deal.trick
    cached: _TrickJson | None = deal.cache.get("trick_json")
    if cached is None or cached.trick is not trick or len(cached.entries) > len(trick):
        cached = deal.cache["trick_json"] = _TrickJson(trick)
    if len(cached.entries) < len(trick):
        cached.extend(deal)
    return cached


#: The keys every deal observation starts with, in order: each observation is a copy of this
#: template with its values stored (a copy and stores cost less than a display of as many keys).
_DEAL_KEYS = dict.fromkeys(
    (
        "variant",
        "seat",
        "phase",
        "level",
        "turn",
        "actors",
        "lead",
        "lead_kind",
        "counts",
        "askable",
        "finished",
        "initiative",
        "stuck",
        "suspended",
        "trick",
        "standing",
        "first_action",
    )
)
#: The deal cache's key of each seat's hand strings (no tuple built per observation).
_STR_KEY: list[tuple[str, int]] = [("str", s) for s in range(8)]


def deal_observation(deal: Deal, seat: int | None) -> dict[str, Any]:
    """The observation of one deal for ``seat`` (``None``: spectator)."""
    # (one function, its helpers' steps written out: a random playout builds one for every
    # action, and each call costs more than most of the steps)
    phase = deal.phase
    playing = phase == "play" or phase == "immune"
    if playing or phase == "over":
        turn = deal.turn
        actors = [] if turn is None else [turn]
    else:
        turn = deal.to_move()
        actors = deal.actors()
    cache = deal.cache
    trick = deal.trick
    tj: _TrickJson | None = cache.get("trick_json")
    if tj is None or tj.trick is not trick or len(tj.entries) > len(trick):
        tj = cache["trick_json"] = _TrickJson(trick)
    if len(tj.entries) < len(trick):
        tj.extend(deal)
    sizes = deal.sizes
    # a hidden count is None
    counts: list[int | None] = sizes[:]  # type: ignore[assignment]
    askable = [False] * len(sizes)
    revealed = deal.revealed
    for s, k in enumerate(sizes):
        if k > 6 and s != seat:
            if k > 10:  # no one may ask
                counts[s] = None
            elif not revealed[s]:
                counts[s] = None
                # 7–10 cards not asked yet: anyone may ask (bao2.md §9)
                askable[s] = playing
    obs = _DEAL_KEYS.copy()
    obs["variant"] = deal.variant
    obs["seat"] = seat
    obs["phase"] = phase
    obs["level"] = deal.level
    obs["turn"] = turn
    obs["actors"] = actors
    obs["lead"] = phase == "play" and deal.leading and turn is not None
    obs["lead_kind"] = deal.lead_kind if phase == "play" else None
    obs["counts"] = counts
    obs["askable"] = askable
    # copies of the per-seat flags, shared by the observations until one of them changes
    finished = deal.finished
    initiative = deal.initiative
    stuck = deal.stuck
    suspended = deal.suspended
    flags = cache.get("flags")
    if (
        flags is None
        or flags[0] != finished
        or flags[1] != initiative
        or flags[2] != stuck
        or flags[3] != suspended
    ):
        flags = cache["flags"] = (finished[:], initiative[:], stuck[:], suspended[:])
    obs["finished"] = flags[0]
    obs["initiative"] = flags[1]
    obs["stuck"] = flags[2]
    obs["suspended"] = flags[3]
    obs["trick"] = tj.entries[:]
    obs["standing"] = None if deal.standing is None else tj.standing(deal)
    if seat is None:
        obs["first_action"] = None
    else:
        obs["first_action"] = not deal.acted[seat]
        hand: list[str] | None = cache.get(_STR_KEY[seat])
        obs["hand"] = _hand_strs(deal, seat)[:] if hand is None else hand[:]
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
    standing = None if deal.standing is None else _trick_json(deal).standing(deal)
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
