"""Card memory for the heuristic (Guandan): what one seat has seen played, and what is left.

A player counts cards: every play of the deal is shown to the seat still in it (a seat is asked
to answer every play of every trick), so the cards still unseen — the two decks less its own
hand and every card seen played — are all the other seats can still hold between them.
:class:`DealMemory` keeps that from the seat's own observations only (the current trick of each
observation; nothing hidden), and :class:`Unseen` answers what a player asks of it: can anyone
still beat this single, pair, triple, sequence, or this bomb?

The answers are about the union of the other hands (the partner's cards included, since the
seat cannot tell them apart), bounded by the most cards an opponent may hold: so "nobody can
beat it" is certain when the memory saw the whole deal, and a memory that did not (a bot made
mid-deal) counts the cards it missed as unseen, which only makes it more careful.

It also reads each seat's behaviour (:meth:`Unseen.opp_beats`): a seat that passed on a play of
its opponents probably holds no plain play of that type above it (a pass on its partner's play
says nothing), and a seat that paid tribute paid its highest card (wild cards excepted). These
are likelihoods, not certainties (passing is always allowed), so only the heuristic's choice to
take a trick with a play no opponent can beat reads them; the certain answers above do not.
"""

from __future__ import annotations

from typing import Any

from engine.cards import RANK_NAMES

__all__ = ["DealMemory", "Unseen"]

_RANK_INDEX = {name: i for i, name in enumerate(RANK_NAMES)}
_CARD_ID = {(s + r): i for i, (s, r) in enumerate((s, r) for s in "SHCD" for r in "23456789TJQKA")}
_CARD_ID["SB"] = 52
_CARD_ID["HR"] = 53
#: Guandan deals 27 cards a seat; tribute and return leave every hand at 27 when play begins.
HAND_SIZE = 27
#: Sequence positions 0..13 (0 the low ace, 1..12 the ranks 2..K, 13 the high ace) -> rank.
_POS_RANK = (12,) + tuple(range(12)) + (12,)
#: (cards per rank, length) of each sequence type.
_SEQ_SHAPE = {"straight": (1, 5), "pair_chain": (2, 3), "triple_chain": (3, 2)}
#: Cards of one rank that each plain type needs (a full house: its triple, the pair aside).
_GROUP_SIZE = {"single": 1, "pair": 2, "triple": 3, "full_house": 3}


def _card_rank(card: str) -> str:
    """The rank name of a card string (``SB`` / ``HR`` for the jokers)."""
    return card if card in ("SB", "HR") else card[1]


def _seq_pos(key: str) -> int:
    return 13 if key == "A" else _RANK_INDEX[key] + 1


def _bomb_tier(size: int) -> int:
    """Tier of a rank bomb of ``size`` cards in Guandan's bomb order (the straight flush is 2,
    between the 5- and 6-card bombs; the joker bomb 8)."""
    return size - 4 if size < 6 else size - 3


class DealMemory:
    """What a seat saw of one Guandan deal: every card it saw played, its own included (see the module docstring). ``update`` it with each observation."""

    def __init__(self) -> None:
        """An empty memory (no deal seen yet)."""
        self.key: Any = None
        self.complete = False
        self.played: list[list[str]] = [[] for _ in range(4)]
        self.trick: list[tuple[int, tuple[str, ...] | None]] = []
        self.hand: list[str] = []
        self.early: Any = None  # the deal whose tribute or return it saw
        #: Per seat, what it showed it cannot beat: (type, key) of each play of its opponents
        #: it passed on (a pass on its partner's play says nothing), and the tribute it paid.
        self.passed: list[list[tuple[str, str | None]]] = [[] for _ in range(4)]
        #: Per seat, the highest card it may hold: ``(paid, returned)`` of the tribute it paid
        #: (the highest card of its hand, wild cards excepted), ``None`` when it paid none.
        self.tribute: list[tuple[str, str | None] | None] = [None] * 4

    def update(self, obs: dict[str, Any]) -> None:
        """Take in one observation of the seat (a new deal starts a fresh memory). Before play
        (tribute, return) it only notes that it saw the deal from its start."""
        key = (obs.get("deal_no"), tuple(obs.get("levels") or ()), obs.get("level"))
        if obs.get("phase") in ("tribute", "return"):
            self.early = key
            return
        seat = obs["seat"]
        hand = list(obs["hand"])
        gone = self.hand[:]
        fresh = key != self.key
        for t in hand:
            if t in gone:
                gone.remove(t)
            else:  # a card it did not hold: another deal
                fresh = True
                break
        if fresh:
            self.key = key
            # complete when it saw the deal from its start: nothing missed
            self.complete = bool(obs.get("first_action")) or self.early == key
            self.played = [[] for _ in range(len(obs["counts"]))]
            self.passed = [[] for _ in range(len(obs["counts"]))]
            self.tribute = [None] * len(obs["counts"])
            self.trick = []
            gone = []
            trib = obs.get("tribute")
            if trib and not trib.get("anti"):
                for g, c, back in zip(trib["givers"], trib["paid"], trib["returned"], strict=False):
                    if isinstance(c, str) and 0 <= g < len(self.tribute):
                        self.tribute[g] = (c, back if isinstance(back, str) else None)
        # its own cards gone since its last observation (what it played, as the rules took it)
        self.played[seat].extend(gone)
        self.hand = hand
        trick: list[tuple[int, tuple[str, ...] | None]] = []
        for e in obs["trick"]:
            cards = e.get("cards")
            trick.append((e["seat"], None if cards is None else tuple(cards)))
        seen = self.trick
        # the same trick goes on (the seat's own last entry may differ: a timeout)
        if trick[: len(seen)] == seen or (
            seen and seen[-1][0] == seat and trick[: len(seen) - 1] == seen[:-1]
        ):
            start = len(seen)
        else:
            start = 0
        standing: dict[str, Any] | None = None
        for i, e in enumerate(obs["trick"]):
            s = e["seat"]
            cards = e.get("cards")
            if cards is not None:
                standing = e
                if i >= start and s != seat:
                    self.played[s].extend(cards)
            elif (
                i >= start and s != seat and standing is not None and standing["seat"] % 2 != s % 2
            ):
                self.passed[s].append((standing["type"], standing.get("key")))
        self.trick = trick

    def record(self, seat: int, cards: list[str] | None) -> None:
        """Note the seat's own answer (its cards, ``None`` for a pass) to the trick it saw, so
        that the next observation's trick is read as its continuation. (Its own cards are
        counted as gone when its next observation's hand no longer holds them.)"""
        self.trick.append((seat, None if cards is None else tuple(cards)))

    def unseen(self, obs: dict[str, Any], rules: Any) -> Unseen:
        """The cards the seat has not seen (two decks less its hand and every card seen
        played), and the most cards an opponent still in the deal may hold."""
        left = [2] * 54
        for t in obs["hand"]:
            left[_CARD_ID[t]] -= 1
        seat = obs["seat"]
        for cards in self.played:  # its own plays too: they left its hand
            for t in cards:
                left[_CARD_ID[t]] -= 1
        counts = obs["counts"]
        n = len(counts)
        most = 0
        for s in range(n):
            if s % 2 == seat % 2 or counts[s] == 0:
                continue
            c = counts[s]
            if c is None:
                c = HAND_SIZE - len(self.played[s]) if self.complete else HAND_SIZE
            most = max(most, c)
        unseen = Unseen([max(0, k) for k in left], rules, most)
        for s in range(n):
            if s % 2 == seat % 2 or counts[s] == 0:
                continue
            unseen.opponents.append((s, counts[s]))
            unseen.caps[s] = self._caps(s, rules, unseen.wilds)
        return unseen

    def _caps(self, s: int, rules: Any, wilds: int) -> dict[str, int]:
        """What seat ``s`` showed it cannot beat without a bomb: per plain type, the lowest
        order (see :meth:`Unseen.order`) of a play of its opponents it passed on, or its
        tribute's; a play at or above it is one it probably cannot beat. A seat that cannot
        beat a single of some order can beat no pair, triple or full house of that order."""
        caps: dict[str, int] = {}
        value = rules.value
        for type_, key in self.passed[s]:
            if key is None:
                continue
            v = Unseen.order_of(value, type_, key)
            if v < caps.get(type_, 999):
                caps[type_] = v
        trib = self.tribute[s]
        if trib is not None:
            paid, back = trib
            v = value[_RANK_INDEX[_card_rank(paid)]]
            if back is not None:
                v = max(v, value[_RANK_INDEX[_card_rank(back)]])
            if wilds:  # a wild card it may hold plays as the level rank
                v = max(v, value[rules.level_index])
            for t in ("single", "pair", "triple", "full_house"):
                caps[t] = min(caps.get(t, 999), v)
        # no single above: no pair above; no pair above: no triple or full house above
        chain = ("single", "pair", "triple", "full_house")
        low = 999
        for t in chain[:3]:
            low = min(low, caps.get(t, 999))
            if low < 999:
                caps[t] = low
        if "triple" in caps:
            caps["full_house"] = min(caps.get("full_house", 999), caps["triple"])
        return caps


class Unseen:
    """Counts of the cards unseen by a seat, read as what the other hands can still play."""

    def __init__(self, left: list[int], rules: Any, most: int) -> None:
        """``left``: unseen copies per card id; ``rules``: the deal's combo rules (card order,
        wild card); ``most``: the most cards an opponent holds."""
        self.most = most
        #: Unseen copies per card id (0..53).
        self.left = left
        self.value: list[int] = rules.value
        self.level: int = rules.level_index
        wild = rules.wild
        self.wilds = left[wild]
        nat = [0] * 15
        suits = [[0] * 13 for _ in range(4)]
        for c in range(52):
            k = left[c]
            if k and c != wild:
                nat[c % 13] += k
                suits[c // 13][c % 13] += k
        nat[13] = left[52]
        nat[14] = left[53]
        self.nat = nat
        self.suits = suits
        #: The opponents still in the deal: (seat, count shown or ``None``).
        self.opponents: list[tuple[int, int | None]] = []
        #: Per opponent seat, what it showed it cannot beat (:meth:`DealMemory._caps`).
        self.caps: dict[int, dict[str, int]] = {}

    @staticmethod
    def order_of(value: list[int], type_: str, key: str) -> int:
        """A plain play's order within its type: the card order of its key (a full house by its
        triple), a sequence by its position (the low ace 0 … the high ace 13)."""
        if type_ in _SEQ_SHAPE:
            return _seq_pos(key)
        return value[_RANK_INDEX[key]]

    def opp_beats(self, type_: str, key: str | None) -> bool:
        """Whether an opponent still in the deal may beat a plain play ``type_``/``key``
        without a bomb: the unseen cards hold a higher play of its type (:meth:`plain_beats`)
        and some opponent has shown neither too few cards for it nor (by a pass on such a
        play, or its tribute) that it holds none so high."""
        if not self.plain_beats(type_, key):
            return False
        if key is None or type_ not in _GROUP_SIZE and type_ not in _SEQ_SHAPE:
            return True
        need = (
            _SEQ_SHAPE[type_][0] * _SEQ_SHAPE[type_][1]
            if type_ in _SEQ_SHAPE
            else (5 if type_ == "full_house" else _GROUP_SIZE[type_])
        )
        v = self.order_of(self.value, type_, key)
        for s, c in self.opponents:
            if c is not None and c < need:
                continue
            if self.caps.get(s, {}).get(type_, 999) <= v:
                continue
            return True
        return False

    # -- plain plays ------------------------------------------------------------------------
    def _group(self, r: int, per: int) -> bool:
        """Whether ``per`` cards of rank ``r`` can be made from the unseen cards (wilds help,
        except for jokers; two wilds alone are a pair of the level rank only)."""
        nat = self.nat[r]
        if r >= 13 or per == 1:
            return nat >= per
        if nat + self.wilds < per:
            return False
        return nat >= 1 or r == self.level

    def plain_beats(self, type_: str, key: str | None) -> bool:
        """Whether the unseen cards hold a play of the same type higher than ``type_``/``key``
        (no bomb), within the most cards an opponent holds."""
        if key is None:
            return True
        most = self.most
        if type_ in _SEQ_SHAPE:
            per, length = _SEQ_SHAPE[type_]
            if most < per * length:
                return False
            top = _seq_pos(key)
            for end in range(top + 1, 14):
                missing = 0
                for p in range(end - length + 1, end + 1):
                    missing += max(0, per - self.nat[_POS_RANK[p]])
                if missing <= self.wilds:
                    return True
            return False
        group = _GROUP_SIZE.get(type_)
        if group is None:
            return True  # a type this memory does not read: assume it can be beaten
        if most < (5 if type_ == "full_house" else group):
            return False
        v = self.value[_RANK_INDEX[key]]
        for r in range(13 if group == 3 else 15):
            if self.value[r] > v and self._group(r, group):
                return True
        return group == 1 and self.wilds > 0 and self.value[self.level] > v

    # -- bombs ------------------------------------------------------------------------------
    def best_bomb(self) -> tuple[int, int] | None:
        """The highest bomb the unseen cards can make (bomb order: tier, then key), within the
        most cards an opponent holds; ``None`` when they make none."""
        most = self.most
        best: tuple[int, int] | None = None
        if most < 4:
            return None
        if self.nat[13] >= 2 and self.nat[14] >= 2:
            return (8, 0)
        for r in range(13):
            size = min(self.nat[r] + self.wilds, most, 10)
            if size >= 4 and (self.nat[r] >= 2 or r == self.level):
                order = (_bomb_tier(size), self.value[r])
                if best is None or order > best:
                    best = order
        if most >= 5 and (best is None or best < (2, 99)):
            for s in range(4):
                row = self.suits[s]
                for end in range(4, 14):
                    missing = 0
                    for p in range(end - 4, end + 1):
                        if row[_POS_RANK[p]] == 0:
                            missing += 1
                    if missing <= self.wilds:
                        order = (2, end)
                        if best is None or order > best:
                            best = order
        return best

    def beats(self, type_: str, key: str | None, size: int | None) -> tuple[bool, bool]:
        """(a plain play beats it, a bomb beats it) for a play of ``type_``/``key``/``size``."""
        bomb = self.best_bomb()
        if type_ == "bomb":
            order = (_bomb_tier(size or 4), self.value[_RANK_INDEX[key or "2"]])
            return False, bomb is not None and bomb > order
        if type_ == "straight_flush":
            return False, bomb is not None and bomb > (2, _seq_pos(key or "5"))
        if type_ == "joker_bomb":
            return False, False
        return self.plain_beats(type_, key), bomb is not None
