"""Combo rules of Guandan (掼蛋) and Bao 2 (保2): classification, comparison, legal plays.

One :class:`GuandanRules` object holds the rules of one variant at one level rank
(``docs/rules/guandan.md`` §1–§3, ``docs/rules/bao2.md`` §1–§4); Bao 2's are the subclass
:class:`engine.variants.bao2.Bao2Rules`, which overrides the named hooks that differ (the level
ranks, ``types``, ``joker_bomb_tier``, :meth:`GuandanRules.bomb_reading`); this class never asks
which variant it is:

* the two ♥ level cards are wild (逢人配): in a combo of two or more cards a wild card
  stands for any card except a joker; alone it is a single of the level rank;
* keys are maximised over every way the wild cards can complete the declared type;
* single order ``2 < 3 < … < A < level rank < SB < HR``; sequences in natural order with the
  A low or high, never wrapping;
* printed identity (bao2.md §3): five cards whose printed suits are all the same (a wild card
  is the ♥ it is) read only as a straight flush; five cards whose printed ranks are all the
  same read only as a bomb;
* Bao 2 only: ``supreme`` (8 of a rank), ``immune`` (8 natural + both wilds), ``dragon`` (10
  consecutive of one suit), ``two_bomb`` (exactly four natural 2s, its only reading), no
  combo from 9 cards of a rank, and the closed-loop bomb order;
* Guandan: bombs of 4..10 cards, plain bomb order, no Bao 2 types.

Public API (besides the :class:`~engine.combo.ComboRules` interface):

* ``legal_combos(hand, standing=None)``: every distinct multiset of card ids of the hand
  that forms a combo, once per reading (so ``S3 D3`` and ``S3 C3`` are two pairs, two copies
  of ``S3 D3`` one; ``S3 S4 S5 S6 H7`` at level 7 is listed as a straight flush and as a
  straight); with ``standing``, exactly those that beat it. ``immune`` is never listed.
  Natural 2s are not filtered: use :func:`has_natural_two` or
  ``legal_combos(rules.without_natural_twos(hand), standing)`` for a player without
  initiative (Bao 2's little-2 restriction).
* ``abstract_moves(hand, standing=None, allow_two=True) -> list[Move]``: the fast path for
  bots and random play. One :class:`Move` per distinct reading ``(type, key, size)`` the hand
  can play (beating ``standing`` if given; without natural 2s if ``allow_two`` is false),
  computed from rank counts and per-suit rank masks with precomputed tables, never listing
  card combinations (about 20 µs for a 27-card lead, less for a follow). Each move names
  one materialisation: natural cards per rank (``naturals``, jokers as ranks 13/14), the
  number of wild cards (as few as possible) and the suit of a straight flush or dragon.
* ``materialize(hand, move) -> Combo``: the concrete cards of a move (lowest card ids of
  each rank, the wild cards only where the move needs them); the combo is one of
  ``legal_combos(hand)`` with exactly the move's reading.
* ``bomb_reading(rank, naturals, wilds)``, ``value`` (card-order value per rank index),
  ``wild`` (card id of the wild cards), ``level_index``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations, compress, product
from operator import itemgetter
from types import MemberDescriptorType
from typing import NamedTuple

from engine.cards import HR, RANK_NAMES, SB, InvalidCard
from engine.combo import Combo, ComboRules

NAMES = RANK_NAMES  # rank index -> name; 13 = SB, 14 = HR
_RANK_INDEX = {name: i for i, name in enumerate(NAMES)}
HEART = 1

#: Types that beat every non-bomb (``immune`` never beats anything, see ``beats``).
BOMB_TYPES = frozenset(
    ("bomb", "straight_flush", "joker_bomb", "dragon", "supreme", "two_bomb", "immune")
)
#: Types compared in sequence order (A low or high, key = highest rank of the sequence).
SEQUENCE_TYPES = frozenset(("straight", "straight_flush", "pair_chain", "triple_chain", "dragon"))
NON_BOMB_TYPES = (
    "single",
    "pair",
    "triple",
    "full_house",
    "straight",
    "pair_chain",
    "triple_chain",
)
GUANDAN_TYPES = NON_BOMB_TYPES + ("bomb", "straight_flush", "joker_bomb")
BAO2_TYPES = GUANDAN_TYPES + ("dragon", "supreme", "two_bomb", "immune")


def _pos_rank(p: int) -> int:
    """Rank index of a sequence position: 0 is the low A, 1..12 are 2..K, 13 the high A."""
    return 12 if p in (0, 13) else p - 1


def _seq_pos(key: str) -> int:
    """Sequence position of a sequence key (the A is only ever the top of a high sequence)."""
    return 13 if key == "A" else _RANK_INDEX[key] + 1


def _seq_templates(
    length: int, per_rank: int
) -> list[tuple[tuple[tuple[int, int], ...], int, str]]:
    """Every canonical natural content of a sequence type, with the number of wild cards.

    A template is ``(((rank, natural_count), ...), wilds, key)``: the natural cards it needs per
    rank, how many wild cards complete it, and the maximised key. Each natural content appears
    once, with the highest window that can hold it (wild maximisation), so enumerating the
    templates never yields the same multiset twice. At most two wild cards exist.
    """
    total = length * per_rank
    best: dict[tuple[tuple[int, int], ...], tuple[int, int]] = {}
    for start in range(14 - length + 1):
        positions = range(start, start + length)
        for shape in product(range(per_rank + 1), repeat=length):
            wilds = total - sum(shape)
            if wilds > 2:
                continue
            content = tuple(
                sorted((_pos_rank(p), c) for p, c in zip(positions, shape, strict=True) if c)
            )
            if not content:
                continue
            previous = best.get(content)
            if previous is None or previous[0] < start:
                best[content] = (start, wilds)
    out = []
    for content, (start, wilds) in best.items():
        out.append((content, wilds, NAMES[_pos_rank(start + length - 1)]))
    out.sort(key=lambda t: (_seq_pos(t[2]), t[0]))
    return out


def _windows(length: int) -> list[tuple[frozenset[int], str]]:
    """Windows of ``length`` consecutive positions, highest first: (rank set, key name)."""
    out = []
    for start in range(14 - length, -1, -1):
        ranks = frozenset(_pos_rank(p) for p in range(start, start + length))
        out.append((ranks, NAMES[_pos_rank(start + length - 1)]))
    return out


_WINDOWS = {length: _windows(length) for length in (2, 3, 5, 10)}
#: :func:`_seq_pos` of each rank name of a sequence key.
_SEQ_POS = {name: _seq_pos(name) for name in NAMES[:13]}


def _seq_key(rc: dict[int, int], length: int, per_rank: int) -> str | None:
    """Maximised key of natural rank counts ``rc`` (wild cards filling the gaps) as a sequence of
    ``length`` ranks with ``per_rank`` cards each, or ``None``. The caller guarantees that the
    card count is ``length * per_rank``."""
    for count in rc.values():
        if count > per_rank:
            return None
    for ranks, key in _WINDOWS[length]:
        if ranks.issuperset(rc):
            return key
    return None


_STRAIGHTS = _seq_templates(5, 1)
_PAIR_CHAINS = _seq_templates(3, 2)
_TRIPLE_CHAINS = _seq_templates(2, 3)
_DRAGONS = _seq_templates(10, 1)

_new = object.__new__


def _slot_setter(name: str) -> Callable[[Combo, object], None]:
    """The setter of one of Combo's slots (the frozen dataclass refuses plain assignment)."""
    slot: MemberDescriptorType = vars(Combo)[name]
    return slot.__set__


_set_type = _slot_setter("type")
_set_key = _slot_setter("key")
_set_cards = _slot_setter("cards")
_set_size = _slot_setter("size")
_set_length = _slot_setter("length")
_set_lines = _slot_setter("lines")


def _combo(type: str, key: str | None, cards: tuple[int, ...], size: int | None) -> Combo:
    """Build a :class:`Combo` (same object as the constructor makes, without its overhead)."""
    obj = _new(Combo)
    _set_type(obj, type)
    _set_key(obj, key)
    _set_cards(obj, cards)
    _set_size(obj, size)
    _set_length(obj, None)
    _set_lines(obj, None)
    return obj


class Move(NamedTuple):
    """An abstract play: what a bot decides before choosing concrete cards.

    ``naturals`` is ``((rank_index, count), ...)`` of the natural (non-wild) cards, jokers as
    rank 13 (``SB``) and 14 (``HR``); ``wilds`` the number of wild cards; ``suit`` the suit
    index of a straight flush or dragon (else ``None``). ``type``, ``key`` and ``size`` are the
    reading the concrete combo will have.
    """

    type: str
    key: str | None
    size: int | None
    naturals: tuple[tuple[int, int], ...]
    wilds: int
    suit: int | None = None


_mk = Move._make
#: A move's ``key`` (a C-level getter for ``map``).
_MOVE_KEY = itemgetter(1)


#: The bomb moves per rank, natural count and wild count, per rules class (and its
#: ``max_bomb``): :meth:`GuandanRules.bomb_reading` reads the rank and the counts only, never
#: the level, so every level of a variant shares one table (built once, never changed).
_BOMB_TABLES: dict[tuple[type, int], list[list[list[list[Move]]]]] = {}


class GuandanRules(ComboRules):
    """Guandan combo rules at one level rank (see the module docstring). The class attributes
    and :meth:`bomb_reading` are the hooks a sister variant overrides (:class:`~engine.variants.
    bao2.Bao2Rules`)."""

    #: The variant these rules are for.
    variant = "guandan"
    #: The level ranks the variant plays at (rank names); the first is a match's first level.
    level_names: tuple[str, ...] = tuple(NAMES[:13])
    #: The combo types this variant has (``read_as`` refuses any other).
    types: tuple[str, ...] = GUANDAN_TYPES
    #: The most cards one rank's bomb may have (guandan.md §2: 10, every natural and wild).
    max_bomb = 10
    #: Tier of the joker bomb in the bomb order (:meth:`_bomb_order`): above the 10-card bomb.
    joker_bomb_tier = 8

    def __init__(self, level: str | None = None) -> None:
        """Rules at ``level`` (a rank name; default the variant's first level);
        ``ValueError`` for a rank the variant has no level of."""
        if level is None:
            level = self.level_names[0]
        if level not in self.level_names:
            raise ValueError(f"no level {level!r} in {self.variant}")
        self.level = level
        self.level_index = lvl = _RANK_INDEX[level]
        #: Card id of the two wild cards (the ♥ level card).
        self.wild = HEART * 13 + lvl
        #: Card-order value per rank index (0..14): level rank above A, then SB, HR.
        self.value = [2 * r for r in range(15)]
        self.value[lvl] = 25
        self._value_of = {NAMES[r]: v for r, v in enumerate(self.value)}
        #: Rank indexes 0..12 from the lowest to the highest in card order.
        self.order = sorted(range(13), key=lambda r: self.value[r])
        #: Whether the variant has dragons (10 consecutive cards of one suit), as its types say.
        self.has_dragon = "dragon" in self.types
        self._build_move_tables()

    def _build_move_tables(self) -> None:
        """Abstract moves of one rank (singles, pairs, triples, bombs) for every count."""
        lvl = self.level_index
        self._t_single = [_mk(("single", NAMES[r], None, ((r, 1),), 0, None)) for r in range(15)]
        self._t_single.append(_mk(("single", NAMES[lvl], None, (), 1, None)))
        nat = [_mk(("pair", NAMES[r], None, ((r, 2),), 0, None)) for r in range(15)]
        nat.append(_mk(("pair", NAMES[lvl], None, (), 2, None)))
        wil = [_mk(("pair", NAMES[r], None, ((r, 1),), 1, None)) for r in range(13)]
        self._t_pair = (nat, wil)
        # indexed by the count of natural cards, 1..3; index 0 (no natural card) is never read
        # and repeats index 1 so that every entry is a Move
        self._t_triple = [
            [_mk(("triple", NAMES[r], None, ((r, k),), 3 - k, None)) for k in (1, 1, 2, 3)]
            for r in range(13)
        ]
        key = (type(self), self.max_bomb)
        shared = _BOMB_TABLES.get(key)
        if shared is not None:
            self._t_bomb = shared
            return
        bombs: list[list[list[list[Move]]]] = []
        for r in range(13):
            per_n = []
            for n in range(9):
                per_w = []
                for w in range(3):
                    moves = []
                    seen = set()
                    for j in range(w + 1):
                        for k in range(max(1, 4 - j), n + 1):
                            rd = self.bomb_reading(r, k, j)
                            if rd is None or rd[0] == "immune" or rd in seen:
                                continue
                            seen.add(rd)
                            moves.append(_mk((rd[0], rd[1], rd[2], ((r, k),), j, None)))
                    per_w.append(moves)
                per_n.append(per_w)
            bombs.append(per_n)
        self._t_bomb = _BOMB_TABLES[key] = bombs

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.level!r})"

    # ------------------------------------------------------------------ classification

    def bomb_reading(
        self, rank: int, naturals: int, wilds: int
    ) -> tuple[str, str | None, int | None] | None:
        """Reading of ``naturals`` natural cards of one rank plus ``wilds`` wild cards, four cards
        or more: ``(type, key, size)`` or ``None`` when they form no combo. Guandan: a bomb of
        up to :attr:`max_bomb` cards. A variant with other readings of one rank's cards (Bao 2's
        ``two_bomb``, ``supreme``, ``immune``) overrides this hook; the reading may depend on
        the class and its ``max_bomb``, never on the level (the bomb move table is shared by
        every level, see ``_BOMB_TABLES``)."""
        n = naturals + wilds
        if n > self.max_bomb:
            return None
        return ("bomb", NAMES[rank], n)

    def readings(self, cards: Sequence[int]) -> list[Combo]:
        """Every reading of exactly these cards as one combo (keys maximised), ``[]`` if none.

        Raises :class:`InvalidCard` for an id that is not a card.
        """
        n = len(cards)
        if n == 0:
            return []
        if n == 1:
            c = cards[0]
            if type(c) is int and 0 <= c <= HR:
                return [_SINGLE_COMBOS[c]]
        for c in cards:
            if type(c) is not int or not 0 <= c <= HR:
                raise InvalidCard(f"no card has id {c!r}")
        srt = tuple(sorted(cards))
        wild = self.wild
        j = 0
        sb = hr = 0
        rc: dict[int, int] = {}
        suits = set()
        for c in srt:
            if c == wild:
                j += 1
            elif c == SB:
                sb += 1
            elif c == HR:
                hr += 1
            else:
                r = c % 13
                rc[r] = rc.get(r, 0) + 1
                suits.add(c // 13)
        out: list[Combo] = []
        if sb or hr:
            if n == 2 and (sb == 2 or hr == 2):
                out.append(_combo("pair", "SB" if sb else "HR", srt, None))
            elif n == 4 and sb == 2 and hr == 2:
                out.append(_combo("joker_bomb", None, srt, None))
            elif n == 5 and (sb == 2) != (hr == 2) and sb + hr == 2 and len(rc) == 1:
                (r,) = rc
                out.append(_combo("full_house", NAMES[r], srt, None))
            return out
        value = self.value
        if len(rc) <= 1:
            r = next(iter(rc)) if rc else self.level_index
            key = NAMES[r]
            if n == 2:
                out.append(_combo("pair", key, srt, None))
            elif n == 3:
                out.append(_combo("triple", key, srt, None))
            else:
                if n == 5 and j == 2 and r != self.level_index:
                    out.append(_combo("full_house", key, srt, None))
                bomb = self.bomb_reading(r, n - j, j)
                if bomb is not None:
                    out.append(_combo(bomb[0], bomb[1], srt, bomb[2]))
            return out
        if n == 5:
            if len(rc) == 2:
                (a, ca), (b, cb) = rc.items()
                best = -1
                if ca <= 3 and cb <= 2:
                    best = a
                if cb <= 3 and ca <= 2 and (best < 0 or value[b] > value[best]):
                    best = b
                if best >= 0:
                    out.append(_combo("full_house", NAMES[best], srt, None))
            seq = _seq_key(rc, 5, 1)
            if seq is not None:
                same_printed = len(suits) == 1 and (j == 0 or HEART in suits)
                if len(suits) == 1:
                    out.append(_combo("straight_flush", seq, srt, None))
                if not same_printed:
                    out.append(_combo("straight", seq, srt, None))
        elif n == 6:
            seq = _seq_key(rc, 3, 2)
            if seq is not None:
                out.append(_combo("pair_chain", seq, srt, None))
            seq = _seq_key(rc, 2, 3)
            if seq is not None:
                out.append(_combo("triple_chain", seq, srt, None))
        elif n == 10 and self.has_dragon and len(suits) == 1:
            seq = _seq_key(rc, 10, 1)
            if seq is not None:
                out.append(_combo("dragon", seq, srt, None))
        return out

    def read_as(self, cards: Sequence[int], type: str) -> Combo | None:
        """The reading of these cards as the declared type (key maximised), or ``None``."""
        if type not in self.types:
            return None
        for combo in self.readings(cards):
            if combo.type == type:
                return combo
        return None

    # ------------------------------------------------------------------ comparison

    def is_bomb(self, combo: Combo) -> bool:
        """Whether the combo is a bomb: bombs, straight flushes, the joker bomb and, in Bao 2,
        dragons, supremes, the two_bomb and the immune bomb (which never beats, see ``beats``)."""
        return combo.type in BOMB_TYPES

    def _bomb_order(self, combo: Combo) -> tuple[int, int]:
        """Position of a bomb in the bomb order: (tier, key value)."""
        t = combo.type
        if t == "bomb":
            size = combo.size or 4
            tier = size - 4 if size < 6 else size - 3
            return (tier, self._value_of[combo.key])  # type: ignore[index]
        if t == "straight_flush":
            return (2, _seq_pos(combo.key))  # type: ignore[arg-type]
        if t == "joker_bomb":
            return (self.joker_bomb_tier, 0)
        if t == "dragon":
            return (6, _seq_pos(combo.key))  # type: ignore[arg-type]
        if t == "supreme":
            return (7, self._value_of[combo.key])  # type: ignore[index]
        return (-1, 0)

    def card_strength(self, card: int) -> int:
        """Card order (§2): ``2 < … < A < level rank < SB < HR``; a wild card counts as the
        level rank it is."""
        return self.value[card % 13 if card < 52 else card - 39]

    def is_wild(self, card: int) -> bool:
        """Whether the card is a wild card (逢人配, the ♥ level card)."""
        return card == self.wild

    def bomb_strength(self, combo: Combo) -> tuple[int, ...]:
        """The bomb order (:meth:`beats`; ``two_bomb`` lowest), then fewer wild cards."""
        return (*self._bomb_order(combo), combo.cards.count(self.wild))

    def beats(self, play: Combo, standing: Combo) -> bool:
        """Whether ``play`` beats ``standing`` (bao2.md §4, guandan.md §3).

        Non-bombs beat only the same type with a higher key (card order, or sequence order for
        sequences). Bombs beat every non-bomb; among bombs the order is
        ``bomb 4 < bomb 5 < straight_flush < bomb 6 < …`` then ``joker_bomb`` (Guandan: bombs up
        to 10 cards; Bao 2: bombs up to 7, then ``joker_bomb < dragon < supreme``), ties broken
        by key, equal not higher. Bao 2's ``two_bomb`` beats non-bombs and ``supreme`` only;
        when it stands, every bomb but ``supreme``, ``two_bomb`` and a size-4 bomb of 2s beats
        it. ``immune`` never beats and is never beaten.
        """
        pt = play.type
        st = standing.type
        if pt == "immune" or st == "immune":
            return False
        if pt == "two_bomb":
            return st == "supreme" or st not in BOMB_TYPES
        if st == "two_bomb":
            if pt == "supreme" or pt not in BOMB_TYPES:
                return False
            return not (pt == "bomb" and play.size == 4 and play.key == "2")
        if pt in BOMB_TYPES:
            if st not in BOMB_TYPES:
                return True
            return self._bomb_order(play) > self._bomb_order(standing)
        if pt != st or st in BOMB_TYPES:
            return False
        if pt in SEQUENCE_TYPES:
            return _seq_pos(play.key) > _seq_pos(standing.key)  # type: ignore[arg-type]
        return self._value_of[play.key] > self._value_of[standing.key]  # type: ignore[index]

    # ------------------------------------------------------------------ card-level enumeration

    def _split(self, hand: Sequence[int]) -> tuple[list[list[int]], int, int, int]:
        """Natural cards per rank (sorted), and the counts of wild cards, SB and HR."""
        wild = self.wild
        nat: list[list[int]] = [[] for _ in range(13)]
        w = sb = hr = 0
        for c in sorted(hand):
            if c == wild:
                w += 1
            elif c < 52:
                if c < 0:
                    raise InvalidCard(f"no card has id {c!r}")
                nat[c % 13].append(c)
            elif c == SB:
                sb += 1
            elif c == HR:
                hr += 1
            else:
                raise InvalidCard(f"no card has id {c!r}")
        return nat, min(w, 2), sb, hr

    def legal_combos(self, hand: Sequence[int], standing: Combo | None = None) -> list[Combo]:
        """Every distinct combo the hand can play: each distinct multiset of card ids that forms
        a combo, once per reading (key maximised). With ``standing``, exactly the combos that
        beat it. ``immune`` is never listed (it cannot lead nor beat; the deal layer offers it
        in the immune window). Initiative (the little-2 restriction) is the caller's concern:
        see :func:`has_natural_two`.
        """
        gen = _Gen(self, hand)
        if standing is None:
            gen.all()
            return gen.out
        st = standing.type
        if st == "immune":
            return []
        beats = self.beats
        if st in BOMB_TYPES:
            gen.bombs()
            return [c for c in gen.out if beats(c, standing)]
        if st in SEQUENCE_TYPES:
            gen.floor = _seq_pos(standing.key)  # type: ignore[arg-type]
        elif st == "full_house":
            gen.floor = self._value_of[standing.key]  # type: ignore[index]
        getattr(gen, st)()
        out = [c for c in gen.out if beats(c, standing)]
        gen.out = out
        gen.bombs()  # every bomb beats every non-bomb
        return out

    def has_natural_two(self, combo: Combo) -> bool:
        """Whether the combo holds a natural 2 (a 2 that is not this deal's wild card)."""
        return has_natural_two(combo, self)

    def without_natural_twos(self, hand: Sequence[int]) -> list[int]:
        """The hand minus its natural 2s (bao2.md §5: what a player without initiative may use).

        ``legal_combos(without_natural_twos(hand), standing)`` is exactly the list of legal
        combos filtered by ``not has_natural_two``."""
        wild = self.wild
        return [c for c in hand if c >= 52 or c % 13 or c == wild]

    # ------------------------------------------------------------------ abstract moves (bots)

    def abstract_moves(
        self, hand: Sequence[int], standing: Combo | Move | None = None, allow_two: bool = True
    ) -> list[Move]:
        """Distinct readings the hand can play, one :class:`Move` per ``(type, key, size)``.

        Fast path for bots and random play: works on rank counts and suit masks, never lists
        card combinations. Each move carries the natural cards per rank and the wild cards of
        one materialisation, chosen with the fewest wild cards (and, for full houses, the
        lowest pair), so that :meth:`materialize` returns a combo with exactly that reading.
        With ``standing``, only moves that beat it; with ``allow_two=False``, no move uses a
        natural 2 (the little-2 restriction). ``immune`` is never listed.
        """
        return self.hand_moves(hand, allow_two).moves(standing)

    def hand_moves(self, hand: Sequence[int], allow_two: bool = True) -> HandMoves:
        """A :class:`HandMoves` bound to this hand: ``moves(standing)`` gives exactly what
        :meth:`abstract_moves` gives for the same hand and ``allow_two``, and
        ``materialize(move)`` what :meth:`materialize` gives. It memoises what depends on the
        hand only (its bombs, its leads), so a caller that keeps it while the hand does not
        change (a bot between two of its plays) pays for them once."""
        return HandMoves(self, hand, allow_two)

    def materialize(self, hand: Sequence[int], move: Move) -> Combo:
        """Concrete cards for an abstract move from :meth:`abstract_moves` on this hand.

        Takes the lowest card ids of each rank (the suit's card for straight flushes and
        dragons), changes one card of a straight if its printed suits would all be the same,
        and adds the move's wild cards. Raises ``ValueError`` if the hand lacks the cards.
        """
        return self._materialize(hand.count, move)

    def _materialize(self, held: Callable[[int], int], move: Move) -> Combo:
        """:meth:`materialize` with ``held(card)``: the number of copies of a card in the hand."""
        wild = self.wild
        if move.type == "single" and len(move.naturals) == 1 and not move.wilds:
            r = move.naturals[0][0]  # the lowest card id of the rank (a joker: itself)
            for c in (r, 13 + r, 26 + r, 39 + r) if r < 13 else (SB if r == 13 else HR,):
                if c != wild and held(c):
                    return _SINGLE_COMBOS[c]
            raise ValueError(f"the hand cannot play {move}")
        cards: list[int] = []
        if held(wild) < move.wilds:
            raise ValueError(f"the hand cannot play {move}")
        if move.suit is not None:
            base = move.suit * 13
            for r, _ in move.naturals:
                if base + r == wild or not held(base + r):
                    raise ValueError(f"the hand cannot play {move}")
                cards.append(base + r)
        else:
            for r, k in move.naturals:
                have = _rank_cards(held, r, wild)
                if len(have) < k:
                    raise ValueError(f"the hand cannot play {move}")
                cards.extend(have[:k])
            if move.type == "straight":
                suits = {c // 13 for c in cards}
                if len(suits) == 1 and (move.wilds == 0 or HEART in suits):
                    for i, (r, _) in enumerate(move.naturals):
                        other = [c for c in _rank_cards(held, r, wild) if c // 13 not in suits]
                        if other:
                            cards[i] = other[0]
                            break
                    else:
                        raise ValueError(f"the hand cannot play {move}")
        cards.extend([wild] * move.wilds)
        cards.sort()
        return _combo(move.type, move.key, tuple(cards), move.size)


class _Gen:
    """One enumeration of a hand's card-level combos (state of a single call, never reused)."""

    __slots__ = ("rules", "nat", "w", "sb", "hr", "W", "WT", "out", "S", "dist", "floor")

    def __init__(self, rules: GuandanRules, hand: Sequence[int]) -> None:
        self.rules = rules
        #: Full houses, straights and chains with a key order at or below this are skipped
        #: (card-order value for full houses, sequence position for sequences).
        self.floor = -1
        self.nat, self.w, self.sb, self.hr = rules._split(hand)
        self.W = W = rules.wild
        self.WT = ((), (W,), (W, W))
        self.out: list[Combo] = []
        self.dist = dist = [tuple(dict.fromkeys(lst)) for lst in self.nat]
        #: S[r][k]: the distinct sorted sub-multisets of k natural cards of rank r (k <= count).
        self.S: list[list[tuple[tuple[int, ...], ...]]] = []
        for lst, d in zip(self.nat, dist, strict=True):
            row: list[tuple[tuple[int, ...], ...]] = [((),)]
            if lst:
                row.append(tuple((c,) for c in d))
                for k in range(2, len(lst) + 1):
                    row.append(tuple(dict.fromkeys(combinations(lst, k))))
            self.S.append(row)

    def subs(self, r: int, k: int) -> tuple[tuple[int, ...], ...]:
        """Distinct sorted sub-multisets of ``k`` natural cards of rank ``r``."""
        row = self.S[r]
        return row[k] if k < len(row) else ()

    def all(self) -> None:
        """Every lead."""
        self.single()
        self.pair()
        self.triple()
        self.full_house()
        self.straight()
        self.pair_chain()
        self.triple_chain()
        self.bombs()

    def bombs(self) -> None:
        """Every bomb-like lead (no ``immune``)."""
        self.bomb()
        self.straight_flush()
        if self.sb == 2 and self.hr == 2:
            self.out.append(_combo("joker_bomb", None, (SB, SB, HR, HR), None))
        if self.rules.has_dragon:
            self.dragon()

    def single(self) -> None:
        """Each distinct card alone."""
        out = self.out
        for r in range(13):
            key = NAMES[r]
            for c in self.dist[r]:
                out.append(_combo("single", key, (c,), None))
        if self.w:
            out.append(_combo("single", self.rules.level, (self.W,), None))
        if self.sb:
            out.append(_combo("single", "SB", (SB,), None))
        if self.hr:
            out.append(_combo("single", "HR", (HR,), None))

    def pair(self) -> None:
        """Pairs: two naturals, a natural and a wild card, two wild cards (level), joker pairs."""
        out = self.out
        W = self.W
        w = self.w
        for r in range(13):
            lst = self.nat[r]
            if not lst:
                continue
            key = NAMES[r]
            if len(lst) >= 2:
                for t in self.subs(r, 2):
                    out.append(_combo("pair", key, t, None))
            if w:
                for c in self.dist[r]:
                    out.append(_combo("pair", key, (c, W) if c < W else (W, c), None))
        if w == 2:
            out.append(_combo("pair", self.rules.level, (W, W), None))
        if self.sb == 2:
            out.append(_combo("pair", "SB", (SB, SB), None))
        if self.hr == 2:
            out.append(_combo("pair", "HR", (HR, HR), None))

    def triple(self) -> None:
        """Triples of a rank, naturals completed by wild cards."""
        out = self.out
        WT = self.WT
        for r in range(13):
            n = len(self.nat[r])
            if not n:
                continue
            key = NAMES[r]
            for j in range(min(self.w, 2) + 1):
                k = 3 - j
                if k > n:
                    continue
                wt = WT[j]
                for t in self.subs(r, k):
                    out.append(_combo("triple", key, tuple(sorted(t + wt)) if j else t, None))

    def bomb(self) -> None:
        """Bombs (and Bao 2's supreme and two_bomb) of one rank, naturals plus wild cards."""
        out = self.out
        WT = self.WT
        reading = self.rules.bomb_reading
        for r in range(13):
            n = len(self.nat[r])
            if n + self.w < 4:
                continue
            for k in range(max(1, 4 - self.w), n + 1):
                for j in range(self.w + 1):
                    if k + j < 4:
                        continue
                    rd = reading(r, k, j)
                    if rd is None or rd[0] == "immune":
                        continue
                    typ, key, size = rd
                    wt = WT[j]
                    for t in self.subs(r, k):
                        out.append(_combo(typ, key, tuple(sorted(t + wt)) if j else t, size))

    def full_house(self) -> None:
        """Full houses: a triple plus a pair of another rank or a joker pair; each multiset once,
        with the highest triple rank any assignment of the wild cards allows."""
        out = self.out
        nat = self.nat
        value = self.rules.value
        lvl = self.rules.level_index
        WT = self.WT
        present = [r for r in range(13) if nat[r]]
        subs = self.subs
        S = self.S
        floor = self.floor
        append = out.append
        new = _new
        set_type, set_key, set_cards = _set_type, _set_key, _set_cards
        set_size, set_length, set_lines = _set_size, _set_length, _set_lines
        for j in range(self.w + 1):
            wt = WT[j]
            splits = _FH_SPLITS[j]
            for ia, a in enumerate(present):
                na = len(nat[a])
                for b in present[ia + 1 :]:
                    nb = len(nat[b])
                    for ca, cb in splits:
                        if ca > na or cb > nb:
                            continue
                        if ca <= 3 and cb <= 2:
                            t = a
                            if cb <= 3 and ca <= 2 and value[b] > value[a]:
                                t = b
                        else:
                            t = b
                        if value[t] <= floor:
                            continue
                        key = NAMES[t]
                        sb_ = S[b][cb]
                        for ta in S[a][ca]:
                            taw = ta + wt
                            for tb in sb_:
                                # inlined _combo (hot loop)
                                o = new(Combo)
                                set_type(o, "full_house")
                                set_key(o, key)
                                set_cards(o, tuple(sorted(taw + tb)))
                                set_size(o, None)
                                set_length(o, None)
                                set_lines(o, None)
                                append(o)
            jokers = []
            if self.sb == 2:
                jokers.append((SB, SB))
            if self.hr == 2:
                jokers.append((HR, HR))
            for a in present:
                k = 3 - j
                if (k > len(nat[a]) and j < 2) or value[a] <= floor:
                    continue
                key = NAMES[a]
                for ta in subs(a, k):
                    base = tuple(sorted(ta + wt)) if j else ta
                    for jp in jokers:
                        out.append(_combo("full_house", key, base + jp, None))
                if j == 2 and a != lvl:
                    # a natural triple and the two wild cards as a pair of another rank
                    for ta in subs(a, 3):
                        out.append(_combo("full_house", key, tuple(sorted(ta + wt)), None))

    def straight(self) -> None:
        """Straights whose printed suits are not all the same."""
        append = self.out.append
        new = _new
        set_type, set_key, set_cards = _set_type, _set_key, _set_cards
        set_size, set_length, set_lines = _set_size, _set_length, _set_lines
        dist = self.dist
        WT = self.WT
        w = self.w
        floor = self.floor
        for ranks, j, key, pos in _STRAIGHT_RANKS:
            if j > w or pos <= floor:
                continue
            lists = [dist[r] for r in ranks]
            if not all(lists):
                continue
            wt = WT[j]
            for p in product(*lists):
                t = tuple(sorted(p + wt))
                if t[0] // 13 != t[-1] // 13:
                    # inlined _combo (this is the hottest loop of the enumeration)
                    o = new(Combo)
                    set_type(o, "straight")
                    set_key(o, key)
                    set_cards(o, t)
                    set_size(o, None)
                    set_length(o, None)
                    set_lines(o, None)
                    append(o)

    def _suited(self, templates: list[tuple[tuple[int, ...], int, str, int]], typ: str) -> None:
        """Straight flushes or dragons: per suit, naturals of that suit completed by wilds."""
        out = self.out
        nat = self.nat
        WT = self.WT
        w = self.w
        for s in range(4):
            base = s * 13
            have = [base + r in nat[r] for r in range(13)]
            for ranks, j, key, _ in templates:
                if j > w:
                    continue
                ok = True
                for r in ranks:
                    if not have[r]:
                        ok = False
                        break
                if ok:
                    t = tuple(sorted(tuple(base + r for r in ranks) + WT[j]))
                    out.append(_combo(typ, key, t, None))

    def straight_flush(self) -> None:
        """Straight flushes."""
        self._suited(_STRAIGHT_RANKS, "straight_flush")

    def dragon(self) -> None:
        """Bao 2 dragons (ten consecutive ranks of one suit)."""
        self._suited(_DRAGON_RANKS, "dragon")

    def _chains(
        self, templates: list[tuple[tuple[tuple[int, int], ...], int, str, int]], typ: str
    ) -> None:
        out = self.out
        nat = self.nat
        S = self.S
        WT = self.WT
        w = self.w
        floor = self.floor
        for content, j, key, pos in templates:
            if j > w or pos <= floor:
                continue
            ok = True
            for r, c in content:
                if len(nat[r]) < c:
                    ok = False
                    break
            if not ok:
                continue
            wt = WT[j]
            for p in product(*[S[r][c] for r, c in content]):
                out.append(_combo(typ, key, tuple(sorted(sum(p, wt))), None))

    def pair_chain(self) -> None:
        """Three consecutive pairs."""
        self._chains(_PAIR_CHAIN_KEYS, "pair_chain")

    def triple_chain(self) -> None:
        """Two consecutive triples."""
        self._chains(_TRIPLE_CHAIN_KEYS, "triple_chain")


#: (natural count of rank a, of rank b) for a full house of two natural ranks with j wilds.
_FH_SPLITS = tuple(
    tuple(
        (ca, cb)
        for ca in range(1, 4)
        for cb in range(1, 4)
        if ca + cb == 5 - j and ((ca <= 3 and cb <= 2) or (cb <= 3 and ca <= 2))
    )
    for j in range(3)
)
_STRAIGHT_RANKS = [(tuple(r for r, _ in c), j, k, _seq_pos(k)) for c, j, k in _STRAIGHTS]
_DRAGON_RANKS = [(tuple(r for r, _ in c), j, k, _seq_pos(k)) for c, j, k in _DRAGONS]
_PAIR_CHAIN_KEYS = [(c, j, k, _seq_pos(k)) for c, j, k in _PAIR_CHAINS]
_TRIPLE_CHAIN_KEYS = [(c, j, k, _seq_pos(k)) for c, j, k in _TRIPLE_CHAINS]


def _seq_bits(
    length: int, suits: tuple[int | None, ...], typ: str
) -> list[list[list[Move | None]]]:
    """Moves of single-card sequences per suit, window start and held-position pattern.

    ``table[i][s][pattern]`` is the move (suit ``suits[i]``) whose naturals are the held ranks
    of the window starting at position ``s`` (bit b of ``pattern`` = position ``s + b`` held)
    and whose wild cards fill the rest, or ``None`` when that needs more than two wild cards or
    a higher window holds the same naturals (the key would then be higher: wild maximisation).
    """
    top = 14 - length
    tables: list[list[list[Move | None]]] = [[] for _ in suits]
    for s in range(top + 1):
        key = NAMES[_pos_rank(s + length - 1)]
        rows: list[list[Move | None]] = [[] for _ in suits]
        for pattern in range(1 << length):
            ranks = [_pos_rank(s + i) for i in range(length) if pattern >> i & 1]
            j = length - len(ranks)
            ok = j <= 2 and (pattern & 1 or s == top)
            if ok and length == 10:
                ok = _seq_key(dict.fromkeys(ranks, 1), length, 1) == key
            naturals = tuple((r, 1) for r in ranks)
            for i, suit in enumerate(suits):
                rows[i].append(_mk((typ, key, None, naturals, j, suit)) if ok else None)
        for i in range(len(suits)):
            tables[i].append(rows[i])
    return tables


def _chain_table(length: int, per_rank: int, typ: str) -> list[dict[tuple[int, ...], Move]]:
    """Moves of pair or triple chains per window start and capped natural counts per position
    (same canonical rule as :func:`_seq_bits`)."""
    top = 14 - length
    table = []
    for s in range(top + 1):
        row = {}
        for shape in product(range(per_rank + 1), repeat=length):
            j = length * per_rank - sum(shape)
            if j > 2 or not (shape[0] or s == top):
                continue
            content = tuple((_pos_rank(s + i), c) for i, c in enumerate(shape) if c)
            row[shape] = _mk((typ, NAMES[_pos_rank(s + length - 1)], None, content, j, None))
        table.append(row)
    return table


class HandMoves:
    """Abstract moves of one hand (see :meth:`GuandanRules.hand_moves`), on rank counts.

    The moves themselves come from tables built once per rules object or module (they depend
    on ranks and counts only, never on a particular hand). The hand's bombs and leads are
    computed on first use and kept: the object describes one hand and must be dropped when
    the hand changes. Lists returned are fresh; the moves in them are immutable."""

    __slots__ = (
        "rules",
        "allow_two",
        "cnt",
        "srank",
        "w",
        "sb",
        "hr",
        "out",
        "held",
        "_bombs",
        "_leads",
        "_ge",
        "_typed",
    )

    def __init__(self, rules: GuandanRules, hand: Sequence[int], allow_two: bool = True) -> None:
        """Count the hand (``allow_two=False``: its natural 2s cannot be used)."""
        wild = rules.wild
        held = [0] * 54
        cnt = [0] * 13
        srank = [0, 0, 0, 0]
        w = sb = hr = 0
        for c in hand:
            held[c] += 1
            if c < 52 and c != wild:
                r = c % 13
                cnt[r] += 1
                srank[c // 13] |= 1 << r
            elif c == wild:
                w += 1
            elif c == SB:
                sb += 1
            else:
                hr += 1
        if not allow_two:
            cnt[0] = 0
            srank = [m & ~1 for m in srank]
        self.rules = rules
        self.allow_two = allow_two
        self.cnt = cnt
        self.srank = srank
        self.w = min(w, 2)
        self.sb = sb
        self.hr = hr
        self.out: list[Move] = []
        #: Copies held per card id (54 slots).
        self.held = held
        self._bombs: list[Move] | None = None
        self._leads: list[Move] | None = None
        self._ge: tuple[int, int, int, int, int] | None = None
        #: Per non-bomb type followed: its moves and the order of each key.
        self._typed: dict[str, tuple[list[Move], list[int]]] = {}

    def moves(self, standing: Combo | Move | None = None) -> list[Move]:
        """What :meth:`GuandanRules.abstract_moves` gives for this hand (``standing`` needs
        only ``type``, ``key`` and ``size``)."""
        if standing is None:
            leads = self._leads
            if leads is None:
                self.out = []
                self._basic()
                self.full_house()
                self.straight()
                self.chains(3, 2, "pair_chain")
                self.chains(2, 3, "triple_chain")
                leads = self._leads = self.out
                leads.extend(self.bomb_moves())
            return list(leads)
        st = standing.type
        if st == "immune":
            return []
        if st in BOMB_TYPES:
            beats = self.rules.beats
            return [m for m in self.bomb_moves() if beats(m, standing)]  # type: ignore[arg-type]
        typed = self._typed.get(st)
        if typed is None:
            moves: list[Move] = []
            self.out = moves
            if st == "pair_chain":
                self.chains(3, 2, "pair_chain")
            elif st == "triple_chain":
                self.chains(2, 3, "triple_chain")
            else:
                getattr(self, st)()
            self.out = []
            order_of = _SEQ_POS if st in SEQUENCE_TYPES else self.rules._value_of
            orders = list(map(order_of.__getitem__, map(_MOVE_KEY, moves)))  # no frame
            typed = self._typed[st] = (moves, orders)
        if st in SEQUENCE_TYPES:
            floor = _SEQ_POS[standing.key]  # type: ignore[index]
        else:
            floor = self.rules._value_of[standing.key]  # type: ignore[index]
        # the moves whose key's order is above the floor, in their order (C loops, no frame)
        out = list(compress(typed[0], map(floor.__lt__, typed[1])))
        bombs = self._bombs
        out.extend(self.bomb_moves() if bombs is None else bombs)  # bombs beat non-bombs
        return out

    def bomb_moves(self) -> list[Move]:
        """The hand's bombs (as :meth:`bombs` lists them), computed once; do not mutate."""
        bombs = self._bombs
        if bombs is None:
            saved = self.out
            self.out = bombs = self._bombs = []
            self.bombs()
            self.out = saved
        return bombs

    def materialize(self, move: Move) -> Combo:
        """What :meth:`GuandanRules.materialize` gives for this hand."""
        if move.type == "single" and not move.wilds and len(move.naturals) == 1:
            # the lowest card id of the rank held (a joker: itself), as _materialize takes it
            r = move.naturals[0][0]
            held = self.held
            wild = self.rules.wild
            for c in (r, 13 + r, 26 + r, 39 + r) if r < 13 else (SB if r == 13 else HR,):
                if c != wild and held[c]:
                    return _SINGLE_COMBOS[c]
            raise ValueError(f"the hand cannot play {move}")
        return self.rules._materialize(self.held.__getitem__, move)

    def without(self, cards: Sequence[int]) -> HandMoves:
        """The :class:`HandMoves` of this hand minus ``cards`` (held), as if built from the
        smaller hand, without recounting it."""
        rules = self.rules
        wild = rules.wild
        held = self.held[:]
        cnt = self.cnt[:]
        srank = self.srank[:]
        allow_two = self.allow_two
        ge = None if self._ge is None else list(self._ge)
        for c in cards:
            if held[c] <= 0:
                raise ValueError(f"the hand does not hold {c}")
            held[c] -= 1
            if c < 52 and c != wild:
                r = c % 13
                if r or allow_two:
                    n = cnt[r]
                    cnt[r] = n - 1
                    if not held[c]:
                        srank[c // 13] &= ~(1 << r)
                    if ge is not None and n <= 4:
                        ge[n] &= ~(1 << r)  # no longer held n times
        new = HandMoves.__new__(HandMoves)
        new.rules = rules
        new.allow_two = allow_two
        new.cnt = cnt
        new.srank = srank
        new.w = min(held[wild], 2)
        new.sb = held[SB]
        new.hr = held[HR]
        new.out = []
        new.held = held
        bombs = self._bombs
        new._bombs = bombs if bombs is not None and self._keeps_bombs(cards) else None
        new._leads = None
        new._ge = None if ge is None else tuple(ge)  # type: ignore[assignment]
        new._typed = {}
        return new

    def remove(self, cards: Sequence[int]) -> None:
        """Make this the :class:`HandMoves` of its hand minus ``cards`` (held), in place: what
        :meth:`without` returns, for a caller that keeps no other use of the larger hand's
        (the lists handed out before stay as they were)."""
        wild = self.rules.wild
        held = self.held
        cnt = self.cnt
        srank = self.srank
        allow_two = self.allow_two
        bombs = self._bombs
        if bombs is not None and not self._keeps_bombs(cards):
            self._bombs = None
        ge = self._ge
        ge_list = None if ge is None else list(ge)
        for i, c in enumerate(cards):
            k = held[c]
            if k <= 0:
                for d in cards[:i]:  # nothing changed: put the cards back
                    self._put_back(d)
                self._bombs = bombs
                raise ValueError(f"the hand does not hold {c}")
            held[c] = k - 1
            if c < 52 and c != wild:
                r = c % 13
                if r or allow_two:
                    n = cnt[r]
                    cnt[r] = n - 1
                    if k == 1:
                        srank[c // 13] &= ~(1 << r)
                    if ge_list is not None and n <= 4:
                        ge_list[n] &= ~(1 << r)  # no longer held n times
        w = held[wild]
        self.w = w if w < 2 else 2
        self.sb = held[SB]
        self.hr = held[HR]
        self._leads = None
        self._ge = None if ge_list is None else tuple(ge_list)  # type: ignore[assignment]
        if self._typed:
            self._typed = {}

    def _put_back(self, c: int) -> None:
        """Undo one card of :meth:`remove` (before it raised)."""
        held = self.held
        k = held[c]
        held[c] = k + 1
        if c < 52 and c != self.rules.wild:
            r = c % 13
            if r or self.allow_two:
                self.cnt[r] += 1
                self.srank[c // 13] |= 1 << r

    def _keeps_bombs(self, cards: Sequence[int]) -> bool:
        """Whether the hand's bombs (computed) stay the same without ``cards``: no wild card
        goes, no joker of a joker bomb, no card of a rank whose cards and the wild cards make
        four, and no card of a suit that has a straight flush (or dragon). Taking cards away
        never makes a bomb, and :meth:`bombs` reads nothing else."""
        wild = self.rules.wild
        cnt = self.cnt
        w = self.w
        suits = None
        for c in cards:
            if c == wild:
                return False
            if c >= 52:
                if self.sb == 2 and self.hr == 2:
                    return False
                continue
            r = c % 13
            if not r and not self.allow_two:
                continue  # natural 2s out of play: counted nowhere
            if cnt[r] + w >= 4:
                return False
            if suits is None:
                suits = {m.suit for m in self._bombs or ()}
            if c // 13 in suits:
                return False
        return True

    def masks(self) -> tuple[int, int, int, int, int]:
        """``ge[k]`` (k = 1..4): bit r set when rank index r is held at least k times (as
        natural cards); computed once."""
        ge = self._ge
        if ge is None:
            m1 = m2 = m3 = m4 = 0
            bit = 1
            for c in self.cnt:
                if c:
                    m1 |= bit
                    if c >= 2:
                        m2 |= bit
                        if c >= 3:
                            m3 |= bit
                            if c >= 4:
                                m4 |= bit
                bit <<= 1
            ge = self._ge = (0, m1, m2, m3, m4)
        return ge

    def _basic(self) -> None:
        """:meth:`single`, :meth:`pair` then :meth:`triple` (one pass over the ranks)."""
        out = self.out
        cnt = self.cnt
        w = self.w
        rules = self.rules
        no_level = not cnt[rules.level_index]
        t = rules._t_single
        out.extend(compress(t, cnt))
        if w and no_level:
            out.append(t[15])
        if self.sb:
            out.append(t[13])
        if self.hr:
            out.append(t[14])
        nat, wil = rules._t_pair
        t3 = rules._t_triple
        triples: list[Move] = []
        for r in range(13):
            n = cnt[r]
            if n:
                if n >= 2:
                    out.append(nat[r])
                    if n + w >= 3:
                        triples.append(t3[r][3 if n >= 3 else n])
                elif w:
                    out.append(wil[r])
                    if w == 2:
                        triples.append(t3[r][1])
        if w == 2 and no_level:
            out.append(nat[15])
        if self.sb == 2:
            out.append(nat[13])
        if self.hr == 2:
            out.append(nat[14])
        out.extend(triples)

    def single(self) -> None:
        """Each rank held alone (the wild card only when no natural level card is held)."""
        out = self.out
        cnt = self.cnt
        t = self.rules._t_single
        out.extend(compress(t, cnt))  # ranks 0..12 held (t has more entries than cnt)
        if self.w and not cnt[self.rules.level_index]:
            out.append(t[15])
        if self.sb:
            out.append(t[13])
        if self.hr:
            out.append(t[14])

    def pair(self) -> None:
        """Pairs, natural first."""
        out = self.out
        cnt = self.cnt
        w = self.w
        nat, wil = self.rules._t_pair
        for r in range(13):
            n = cnt[r]
            if n >= 2:
                out.append(nat[r])
            elif n and w:
                out.append(wil[r])
        if w == 2 and not cnt[self.rules.level_index]:
            out.append(nat[15])
        if self.sb == 2:
            out.append(nat[13])
        if self.hr == 2:
            out.append(nat[14])

    def triple(self) -> None:
        """Triples, natural first."""
        out = self.out
        cnt = self.cnt
        w = self.w
        t = self.rules._t_triple
        for r in range(13):
            n = cnt[r]
            if n and n + w >= 3:
                out.append(t[r][3 if n >= 3 else n])

    def full_house(self) -> None:
        """Full houses, one per key (the triple's rank): the fewest natural cards replaced by
        wild cards, then the lowest pair. With fewer than three natural cards in the triple,
        the pair must be lower, or the wild cards would make the pair's rank the key."""
        cnt = self.cnt
        w = self.w
        rules = self.rules
        value = rules.value
        lvl = rules.level_index
        out = self.out
        # in card order: the ranks held, those held twice or more, and the possible keys
        # (held at least 3 - w times: the wild cards complete the triple)
        order: list[int] = []
        pairs = []
        keys = []
        if w:
            need = 3 - w
            for r in rules.order:
                n = cnt[r]
                if n:
                    order.append(r)
                    if n >= 2:
                        pairs.append(r)
                    if n >= need:
                        keys.append(r)
        else:  # ``order`` is read only to pair a wild card with a natural one
            for r in rules.order:
                n = cnt[r]
                if n >= 2:
                    pairs.append(r)
                    if n >= 3:
                        keys.append(r)
        joker = 13 if self.sb == 2 else 14 if self.hr == 2 else -1
        table = _FH_T
        for k in keys:
            nk = cnt[k]
            kt = 3 if nk >= 3 else nk
            jt = 3 - kt
            vk = value[k]
            row = table[k][kt]
            move = None
            for p in pairs:
                if p != k:
                    if kt < 3 and value[p] > vk:
                        break
                    move = row[p][2]
                    break
            if move is None and joker >= 0:
                move = row[joker][2]
            if move is None and jt < w:
                for p in order:
                    if p != k:
                        if kt < 3 and value[p] > vk:
                            break
                        move = row[p][1]
                        break
            if move is None and kt == 3 and w == 2 and k != lvl:
                move = _FH_BARE[k]
            if move is not None:
                out.append(move)

    def straight(self) -> None:
        """Straights, one per key. When every natural card of the window is of one suit, a
        wild card (a ♥) must replace one for the cards to read as a plain straight."""
        w = self.w
        out = self.out
        s0, s1, s2, s3 = self.srank
        m = s0 | s1 | s2 | s3
        pm = (m << 1) | (m >> 12 & 1)
        # ranks held in two suits or more, as sequence positions: a window holding one is
        # not all of one suit
        m = (s0 & (s1 | s2 | s3)) | (s1 & (s2 | s3)) | (s2 & s3)
        multi = (m << 1) | (m >> 12 & 1)
        single: list[int] | None = None
        table = _STRAIGHT_T
        for s in range(10):
            win = pm >> s & 31
            move = table[s][win]
            if move is None or move.wilds > w:
                continue
            if not multi >> s & win:
                if single is None:
                    # ranks held in one suit only, per suit, as sequence positions
                    single = []
                    for m in (
                        s0 & ~(s1 | s2 | s3),
                        s1 & ~(s0 | s2 | s3),
                        s2 & ~(s0 | s1 | s3),
                        s3 & ~(s0 | s1 | s2),
                    ):
                        single.append((m << 1) | (m >> 12 & 1))
                for suit in range(4):
                    if single[suit] >> s & win == win:
                        # every natural is of this one suit
                        if suit == HEART:
                            move = None
                        elif move.wilds == 0:
                            move = _STRAIGHT_POP_T[s] if w else None
                        break
                if move is None:
                    continue
            out.append(move)

    def straight_flush(self) -> None:
        """Straight flushes, one per key (the first suit that has it)."""
        w = self.w
        out = self.out
        done = 0
        need = 5 - w
        for suit in range(4):
            m = self.srank[suit]
            if m.bit_count() < need:
                continue
            pm = (m << 1) | (m >> 12 & 1)
            # window starts holding at least `need` of their five positions (all at once,
            # bit-sliced: z1, z2, z3 = positions missing at least 1, 2, 3 cards)
            if w == 0:
                cand = pm & pm >> 1 & pm >> 2 & pm >> 3 & pm >> 4
            else:
                z1 = z2 = z3 = 0
                for j in range(5):
                    z = ~(pm >> j)
                    z3 |= z2 & z
                    z2 |= z1 & z
                    z1 |= z
                cand = ~(z2 if w == 1 else z3)
            cand &= 1023 & ~done
            if not cand:
                continue
            table = _SFLUSH_T[suit]
            while cand:
                low = cand & -cand
                cand ^= low
                s = low.bit_length() - 1
                move = table[s][pm >> s & 31]
                if move is not None and move.wilds <= w:
                    done |= low
                    out.append(move)

    def dragon(self) -> None:
        """Bao 2 dragons, one per key."""
        w = self.w
        out = self.out
        done = 0
        need = 10 - w
        for suit in range(4):
            m = self.srank[suit]
            if m.bit_count() < need:
                continue
            pm = (m << 1) | (m >> 12 & 1)
            table = _DRAGON_T[suit]
            for s in range(5):
                if done >> s & 1:
                    continue
                move = table[s][pm >> s & 1023]
                if move is not None and move.wilds <= w:
                    done |= 1 << s
                    out.append(move)

    def chains(self, length: int, per_rank: int, typ: str) -> None:
        """Pair chains (3 x 2) or triple chains (2 x 3), one per key, fewest wild cards."""
        w = self.w
        if sum(self.cnt) < length * per_rank - w:
            return
        out = self.out
        _, m1, m2, m3, _ = self.masks()
        # as sequence positions (rank index r is position r + 1, the A also position 0)
        m1 = (m1 << 1) | (m1 >> 12 & 1)
        m2 = (m2 << 1) | (m2 >> 12 & 1)
        # window starts that may hold a chain (a superset: the table decides)
        if per_rank == 2:
            if w == 0:
                cand = m2 & m2 >> 1 & m2 >> 2
            elif w == 1:
                cand = m1 & m1 >> 1 & m1 >> 2
            else:
                cand = (m1 & m1 >> 1) | (m1 & m1 >> 2) | (m1 >> 1 & m1 >> 2)
            cand &= 0xFFF
            table = _PAIR_CHAIN_BITS
            while cand:
                low = cand & -cand
                cand ^= low
                s = low.bit_length() - 1
                move = table[s][(m1 >> s & 7) | (m2 >> s & 7) << 3]
                if move is not None and move.wilds <= w:
                    out.append(move)
        else:
            m3 = (m3 << 1) | (m3 >> 12 & 1)
            m = m3 if w == 0 else m2 if w == 1 else m1
            cand = m & m >> 1 & 0x1FFF
            table = _TRIPLE_CHAIN_BITS
            while cand:
                low = cand & -cand
                cand ^= low
                s = low.bit_length() - 1
                move = table[s][(m1 >> s & 3) | (m2 >> s & 3) << 2 | (m3 >> s & 3) << 4]
                if move is not None and move.wilds <= w:
                    out.append(move)

    def bombs(self) -> None:
        """Bombs, supremes, two_bomb, straight flushes, joker bomb, dragons (no immune)."""
        cnt = self.cnt
        w = self.w
        out = self.out
        naturals = sum(cnt)
        if naturals + w < 4:
            if self.sb == 2 and self.hr == 2:
                out.append(_JOKER_BOMB)
            return
        mask = self.masks()[4 - w]  # ranks whose naturals and the wild cards make 4 cards
        if mask:
            table = self.rules._t_bomb
            while mask:
                low = mask & -mask
                mask ^= low
                r = low.bit_length() - 1
                out.extend(table[r][cnt[r]][w])
        if naturals + w >= 5:
            self.straight_flush()
        if self.sb == 2 and self.hr == 2:
            out.append(_JOKER_BOMB)
        if self.rules.has_dragon and naturals + w >= 10:
            self.dragon()


_POS_RANK = tuple(_pos_rank(p) for p in range(14))
#: The reading of each card alone (combos are immutable values).
_SINGLE_COMBOS = tuple(
    _combo("single", NAMES[c % 13 if c < 52 else (13 if c == SB else 14)], (c,), None)
    for c in range(HR + 1)
)


(_STRAIGHT_T,) = _seq_bits(5, (None,), "straight")
#: The all-held window with its top natural replaced by a wild card (for one-suit naturals).
_STRAIGHT_POP_T = [row[15] for row in _STRAIGHT_T]
_SFLUSH_T = _seq_bits(5, (0, 1, 2, 3), "straight_flush")
_DRAGON_T = _seq_bits(10, (0, 1, 2, 3), "dragon")
_PAIR_CHAIN_T = _chain_table(3, 2, "pair_chain")
#: Full-house moves: ``_FH_T[k][kt][p][pc]`` is ``kt`` natural cards of rank ``k`` and ``pc``
#: of rank ``p`` (13, 14: the jokers), wild cards completing the five; ``_FH_BARE[k]`` is a
#: natural triple of ``k`` with the two wild cards as the pair.
_FH_T = [
    [
        [
            [
                None
                if kt == 0 or pc == 0
                else _mk(
                    ("full_house", NAMES[k], None, ((k, kt), (p, pc)), (3 - kt) + (2 - pc), None)
                )
                for pc in range(3)
            ]
            for p in range(15)
        ]
        for kt in range(4)
    ]
    for k in range(13)
]
_FH_BARE = [_mk(("full_house", NAMES[k], None, ((k, 3),), 2, None)) for k in range(13)]
_TRIPLE_CHAIN_T = _chain_table(2, 3, "triple_chain")


def _chain_bits(table: list[dict[tuple[int, ...], Move]], per_rank: int) -> list[list[Move | None]]:
    """:func:`_chain_table` indexed by bits: for a window start, bit ``(k - 1) * length + i``
    set when position ``i`` of the window holds at least ``k`` natural cards (k = 1..per_rank)."""
    out = []
    for row in table:
        length = len(next(iter(row)))
        lst: list[Move | None] = [None] * (1 << (length * per_rank))
        for shape, move in row.items():
            key = 0
            for k in range(1, per_rank + 1):
                for i, c in enumerate(shape):
                    if c >= k:
                        key |= 1 << ((k - 1) * length + i)
            lst[key] = move
        out.append(lst)
    return out


_PAIR_CHAIN_BITS = _chain_bits(_PAIR_CHAIN_T, 2)
_TRIPLE_CHAIN_BITS = _chain_bits(_TRIPLE_CHAIN_T, 3)
_JOKER_BOMB = _mk(("joker_bomb", None, None, ((13, 2), (14, 2)), 0, None))


def _rank_cards(held: Callable[[int], int], r: int, wild: int) -> list[int]:
    """The natural cards of rank index ``r`` (13 = SB, 14 = HR) held, lowest id first;
    ``held(card)`` is the number of copies in the hand."""
    if r >= 13:
        card = SB if r == 13 else HR
        return [card] * held(card)
    out = []
    for c in (r, 13 + r, 26 + r, 39 + r):
        n = held(c)
        if n and c != wild:
            out.append(c)
            if n > 1:
                out.append(c)
    return out


def has_natural_two(combo: Combo, rules: GuandanRules | None = None) -> bool:
    """Whether the combo contains a natural 2 (bao2.md §5): a 2 that is not a wild card. In Bao 2
    no 2 is ever wild; in Guandan at level 2 the ♥2 is wild (pass ``rules`` to exclude it)."""
    wild = rules.wild if rules is not None else -1
    for c in combo.cards:
        if c < 52 and c % 13 == 0 and c != wild:
            return True
    return False
