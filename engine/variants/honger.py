"""南平红二 Nanping Red Two (variant id ``honger``): combos, beating, fans and scoring.

Rules: ``docs/rules/honger.md``. Two decks without jokers, 26 cards each, 2 is the highest
rank, suits never rank. Combos: ``single``, ``pair``, ``triple``, ``pair_chain`` and
``triple_chain`` (2 or more consecutive pairs / triples of ranks 3..A, any length), ``bomb``
(4 to 8 of a rank; bombs order by size, then rank).

Besides the :class:`~engine.combo.ComboRules` interface, :class:`HongerRules` offers a fast
*abstract move* API for bots, working on rank-count arrays in game order (see :class:`Move`):
``hand_counts(cards)``, ``moves(counts, standing)``, ``move_of(combo)``,
``combo_of(move, hand)``, ``move_beats(play, standing)``; and what ``engine.bots`` calls:
``abstract_moves(hand, standing)`` / ``materialize(hand, move)`` and the per-hand view
``hand_moves(hand)`` (:class:`HandMoves`, whose ``moves`` also take the standing play as an
observation's reading: ``type``, ``key``, ``size``, ``length``, ``lines``).

This module also holds what both point-scored variants share: the game rank order
(``3 4 … A 2 SB HR``, index 0..14), :class:`Move`, :class:`HandMoves`, the reading memo, and
the expansion of an abstract move into every distinct multiset of cards of a hand
(:func:`expand_cards`). The deal and match rules are in :mod:`engine.variants._honger_deal`,
the heuristic bot in :mod:`engine.bots.points`; the fans and the four settlements
(:func:`score_partnership`, :func:`score_solo`, :func:`score_surrender`,
:func:`score_compare`, plus :func:`big_bomb_rewards`) are below.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.cards import HR, SB
from engine.combo import Combo, ComboRules

VARIANT = "honger"

#: Rank names in game order, low to high: index = "game rank" (3 = 0, A = 11, 2 = 12).
GAME_RANK_NAMES = tuple("3456789TJQKA2") + ("SB", "HR")
GAME_RANK_OF_NAME = {name: i for i, name in enumerate(GAME_RANK_NAMES)}
ACE = 11
TWO = 12
G_SB = 13
G_HR = 14
#: Game rank of each card id.
GAME_RANK = tuple((c % 13 + 12) % 13 for c in range(52)) + (G_SB, G_HR)
#: Card ids of each natural game rank (suits S H C D).
CARDS_OF_GAME_RANK = tuple(tuple(suit * 13 + (g + 1) % 13 for suit in range(4)) for g in range(13))

#: Card order (game rank) per natural rank index of :mod:`engine.cards` (``2``..``A``, SB, HR).
CARD_ORDER = (TWO,) + tuple(range(12)) + (G_SB, G_HR)

#: The red two (♥2) that decides the partnerships.
H2 = 13


class Move(NamedTuple):
    """An abstract move: what a combo takes from a rank-count array, without suits.

    ``type`` is the combo type; ``key`` the game rank of its key (-1 for keyless types);
    ``length`` the number of ranks of a chain or straight (0 otherwise); ``size`` the number
    of cards; ``lines`` the line count of a Shuangkou bomb (0 otherwise); ``parts`` the
    natural cards taken as ``(game_rank, count)`` pairs; ``sb`` / ``hr`` the jokers taken.
    """

    type: str
    key: int
    length: int
    size: int
    lines: int
    parts: tuple[tuple[int, int], ...]
    sb: int = 0
    hr: int = 0


#: Builds a :class:`Move` from a full 8-tuple without the NamedTuple constructor's overhead.
_new = tuple.__new__


_new_object = object.__new__
_set_type, _set_key, _set_cards, _set_size, _set_length, _set_lines = (
    getattr(Combo, name).__set__ for name in ("type", "key", "cards", "size", "length", "lines")
)


def make_combo(
    type: str,
    key: str | None,
    cards: tuple[int, ...],
    size: int | None = None,
    length: int | None = None,
    lines: int | None = None,
) -> Combo:
    """The same :class:`Combo` as its constructor builds, without the frozen dataclass's
    per-field overhead (card-level enumeration builds very many)."""
    obj = _new_object(Combo)
    _set_type(obj, type)
    _set_key(obj, key)
    _set_cards(obj, cards)
    _set_size(obj, size)
    _set_length(obj, length)
    _set_lines(obj, lines)
    return obj


@lru_cache(maxsize=4096)
def _sub_multisets(items: tuple[tuple[int, int], ...], k: int) -> tuple[tuple[int, ...], ...]:
    """Every distinct sub-multiset of size ``k`` of ``items`` (``(card, multiplicity)`` pairs)."""
    if k == 0:
        return ((),)
    if not items:
        return ()
    (card, mult), rest = items[0], items[1:]
    out: list[tuple[int, ...]] = []
    for take in range(min(mult, k), -1, -1):
        for tail in _sub_multisets(rest, k - take):
            out.append((card,) * take + tail)
    return tuple(out)


def hand_items(hand: Sequence[int]) -> dict[int, tuple[tuple[int, int], ...]]:
    """The hand's cards by game rank, as ``(card, multiplicity)`` pairs sorted by card id."""
    by_rank: dict[int, dict[int, int]] = {}
    for c in hand:
        slot = by_rank.setdefault(GAME_RANK[c], {})
        slot[c] = slot.get(c, 0) + 1
    return {g: tuple(sorted(d.items())) for g, d in by_rank.items()}


def expand_cards(
    move: Move, items: dict[int, tuple[tuple[int, int], ...]]
) -> Iterator[tuple[int, ...]]:
    """Every distinct multiset of the hand's cards (sorted card-id tuples) that the move takes.

    ``items`` is :func:`hand_items` of the hand. Suits are the only freedom: jokers are
    already fixed by the move (``sb`` / ``hr`` counts).
    """
    choices = [_sub_multisets(items.get(g, ()), k) for g, k in move.parts]
    jokers = (SB,) * move.sb + (HR,) * move.hr
    for combo in itertools.product(*choices):
        cards: list[int] = []
        for part in combo:
            cards.extend(part)
        cards.extend(jokers)
        cards.sort()
        yield tuple(cards)


def pick_cards(move: Move, hand: Sequence[int]) -> tuple[int, ...]:
    """One concrete multiset of the hand's cards for a move (lowest card ids first)."""
    count: Callable[[int], int]
    try:
        count = hand.count
    except AttributeError:
        count = list(hand).count
    out: list[int] = []
    for g, k in move.parts:
        for c in CARDS_OF_GAME_RANK[g]:
            have = count(c)
            if have:
                take = have if have < k else k
                out.extend((c,) * take)
                k -= take
                if not k:
                    break
        if k:
            raise ValueError("the hand does not hold the move's cards")
    for joker, k in ((SB, move.sb), (HR, move.hr)):
        if k:
            if count(joker) < k:
                raise ValueError("the hand does not hold the move's jokers")
            out.extend((joker,) * k)
    out.sort()
    return tuple(out)


_CHAIN_WIDTH = {"straight": 1, "pair_chain": 2, "triple_chain": 3}
_SIZES = {"single": 1, "pair": 2, "triple": 3}
_JOKER_LINES = {"joker3": 6, "joker4": 7}


class HandMoves:
    """Bot moves of one hand (what ``engine.bots`` keeps while the hand does not change):
    ``moves(standing)`` and ``materialize(move)``. Leads and bombs are computed once. The
    returned lists are shared: callers must not change them."""

    __slots__ = ("rules", "hand", "counts", "_leads", "_bombs")

    def __init__(self, rules: Any, hand: Sequence[int]) -> None:
        """Moves of ``hand`` (card ids) under ``rules`` (:class:`HongerRules` or
        ``Shuangkou2Rules``)."""
        self.rules = rules
        self.hand = list(hand)
        self.counts = rules.hand_counts(hand)
        self._leads: list[Move] | None = None
        self._bombs: list[Move] | None = None

    def moves(self, standing: Any = None) -> list[Move]:
        """Every bot move of the hand, or those beating ``standing`` (a combo, a move or a
        reading with ``type``, ``key``, ``size``, ``length``, ``lines``)."""
        rules = self.rules
        if standing is not None:
            standing = rules.standing_move(standing)
        elif self._leads is not None:
            return self._leads
        bot_bombs = getattr(rules, "bot_bombs", None)
        moves: list[Move]
        if bot_bombs is None:
            moves = rules.moves(self.counts, standing)
        else:
            if self._bombs is None:
                self._bombs = bot_bombs(self.counts)
            moves = rules.moves(self.counts, standing, self._bombs)
        if standing is None:
            self._leads = moves
        return moves

    def materialize(self, move: Move) -> Combo:
        """Concrete cards of the hand for a move."""
        combo: Combo = self.rules.combo_of(move, self.hand)
        return combo


class ReadingCache:
    """Memoised ``read_as`` and ``move_of`` for a :class:`~engine.combo.ComboRules` (the same
    cards are read again and again: validation, bots reading the standing play). Bounded."""

    _LIMIT = 200_000

    if TYPE_CHECKING:
        # what the rules classes that mix this in (HongerRules, Shuangkou2Rules) provide

        def readings(self, cards: Sequence[int]) -> list[Combo]:
            """Every reading of the cards (the rules class's)."""

        @staticmethod
        def hand_counts(cards: Sequence[int]) -> list[int]:
            """Card ids as counts per game rank (the rules class's)."""

        def combo_of(self, move: Move, hand: Sequence[int]) -> Combo:
            """Concrete cards of ``hand`` for a move (the rules class's)."""

        def moves(self, counts: Sequence[int], standing: Move | None = None) -> list[Move]:
            """The moves of a hand's counts (the rules class's)."""

    def _init_cache(self) -> None:
        self._read_cache: dict[tuple[tuple[int, ...], str], Combo | None] = {}
        self._move_cache: dict[tuple[tuple[int, ...], str], Move] = {}

    def read_as(self, cards: Sequence[int], type: str) -> Combo | None:
        """The reading of these cards as the declared type (key maximised), or ``None``."""
        key = (tuple(cards), type)
        cache = self._read_cache
        try:
            return cache[key]
        except KeyError:
            pass
        if len(cache) > self._LIMIT:
            cache.clear()
        found = None
        for combo in self.readings(cards):
            if combo.type == type:
                found = combo
                break
        cache[key] = found
        return found

    def standing_move(self, standing: Any) -> Move:
        """The :class:`Move` to beat, from a :class:`~engine.combo.Combo`, a :class:`Move`, or
        a reading with ``type``, ``key`` (rank name) and ``size`` (plus ``length`` and
        ``lines`` where the type has them; a chain's length follows from its size)."""
        if isinstance(standing, Move):
            return standing
        if isinstance(standing, Combo):
            return self.move_of(standing)
        t = standing.type
        key = GAME_RANK_OF_NAME[standing.key] if standing.key is not None else -1
        size = getattr(standing, "size", None)
        length = getattr(standing, "length", None) or 0
        lines = getattr(standing, "lines", None) or 0
        if t in _CHAIN_WIDTH:
            width = _CHAIN_WIDTH[t]
            if not length:
                if size is None:
                    raise ValueError(f"a {t} needs its size or its length")
                length = size // width
            size = size or length * width
        elif t in _SIZES:
            size = _SIZES[t]
        if t == "bomb":
            lines = lines or size
        elif t in _JOKER_LINES:
            lines = _JOKER_LINES[t]
            size = size or lines - 3
        return Move(t, key, length, size or 0, lines, ())

    def hand_moves(self, hand: Sequence[int], allow_two: bool = True) -> HandMoves:
        """A :class:`HandMoves` bound to this hand (the bots' lean path in ``engine.bots``):
        ``moves(standing)`` is :meth:`abstract_moves`, ``materialize(move)`` is
        :meth:`materialize`; what depends on the hand only is computed once."""
        return HandMoves(self, hand)

    def abstract_moves(
        self, hand: Sequence[int], standing: Combo | Move | None = None, allow_two: bool = True
    ) -> list[Move]:
        """The bots' interface (as ``engine.bots`` expects): :meth:`moves` of a hand of card
        ids, beating ``standing`` (a combo or a move) if given. ``allow_two`` is ignored (no
        little-2 rule in these variants)."""
        st = standing
        if isinstance(st, Combo):
            st = self.move_of(st)
        return self.moves(self.hand_counts(hand), st)

    def materialize(self, hand: Sequence[int], move: Move) -> Combo:
        """The bots' interface: concrete cards for a move (see :meth:`combo_of`)."""
        return self.combo_of(move, hand)

    def legal_combos(self, hand: Sequence[int], standing: Combo | None = None) -> list[Combo]:
        """Every distinct combo (multiset of cards x reading) the hand can play; with a
        ``standing`` combo, exactly those that beat it."""
        st = None if standing is None else self.move_of(standing)
        items = hand_items(hand)
        out: list[Combo] = []
        for move in self.all_moves(self.hand_counts(hand), st):  # type: ignore[attr-defined]
            for cards in expand_cards(move, items):
                out.append(self._combo(move, cards))  # type: ignore[attr-defined]
        return out

    def move_of(self, combo: Combo) -> Move:
        """The abstract move of a combo (its cards read as its declared type)."""
        key = (combo.cards, combo.type)
        cache = self._move_cache
        move = cache.get(key)
        if move is None:
            if len(cache) > self._LIMIT:
                cache.clear()
            move = cache[key] = self._move_of(combo)  # type: ignore[attr-defined]
        return move


_SIMPLE = {1: "single", 2: "pair", 3: "triple"}
_CHAIN = {2: "pair_chain", 3: "triple_chain"}


class HongerRules(ReadingCache, ComboRules):
    """Red Two combos: no wild cards, 2 on top, chains of 2 or more, bombs by size then rank."""

    variant = VARIANT
    level = None
    #: Card order per natural rank index (0..14 = ``2``..``A``, ``SB``, ``HR``), as the generic
    #: deal loop and bots expect: 3 lowest, 2 above A, then the jokers.
    value = CARD_ORDER

    def __init__(self) -> None:
        """Stateless rules (but for a bounded memo of readings)."""
        self._init_cache()

    # -- classification ---------------------------------------------------------------------

    def readings(self, cards: Sequence[int]) -> list[Combo]:
        """The one reading of the cards as a Red Two combo (``[]`` if none; jokers never read)."""
        if not cards:
            return []
        cnt = [0] * 13
        for c in cards:
            if not isinstance(c, int) or not 0 <= c < 52:
                return []
            cnt[GAME_RANK[c]] += 1
        move = self._classify(cnt)
        return [] if move is None else [self._combo(move, tuple(sorted(cards)))]

    @staticmethod
    def _classify(cnt: Sequence[int]) -> Move | None:
        """The move read from a 13-slot natural rank-count array, or ``None``."""
        ranks = [g for g in range(13) if cnt[g]]
        parts = tuple((g, cnt[g]) for g in ranks)
        if len(ranks) == 1:
            g = ranks[0]
            k = cnt[g]
            if k <= 3:
                return Move(_SIMPLE[k], g, 0, k, 0, parts)
            if k <= 8:
                return Move("bomb", g, 0, k, 0, parts)
            return None
        k = cnt[ranks[0]]
        if k not in _CHAIN or any(cnt[g] != k for g in ranks):
            return None
        if ranks[-1] > ACE or ranks[-1] - ranks[0] != len(ranks) - 1:
            return None
        return Move(_CHAIN[k], ranks[-1], len(ranks), k * len(ranks), 0, parts)

    @staticmethod
    def _combo(move: Move, cards: tuple[int, ...]) -> Combo:
        """The :class:`Combo` of a move played with these (sorted) cards."""
        return make_combo(
            move.type,
            GAME_RANK_NAMES[move.key],
            cards,
            move.size if move.type == "bomb" else None,
            move.length if move.length else None,
        )

    # -- comparison ----------------------------------------------------------------------------

    def is_bomb(self, combo: Combo) -> bool:
        """Red Two's only bomb type is ``bomb`` (4..8 of a rank)."""
        return combo.type == "bomb"

    def card_strength(self, card: int) -> int:
        """Card order: ``3 < … < A < 2 < SB < HR``."""
        return GAME_RANK[card]

    def bomb_strength(self, combo: Combo) -> tuple[int, ...]:
        """Bombs by size, then rank."""
        move = self.move_of(combo)
        return (move.size, move.key)

    def beats(self, play: Combo, standing: Combo) -> bool:
        """A bomb beats any non-bomb and smaller bombs (size, then rank); a non-bomb beats only
        the same type of the same length with a higher key."""
        return self.move_beats(self.move_of(play), self.move_of(standing))

    @staticmethod
    def move_beats(play: Move, standing: Move) -> bool:
        """:meth:`beats` on abstract moves."""
        if play.type == "bomb":
            if standing.type != "bomb":
                return True
            return (play.size, play.key) > (standing.size, standing.key)
        return (
            play.type == standing.type
            and play.length == standing.length
            and play.key > standing.key
        )

    # -- abstract moves (fast API for bots) ----------------------------------------------------

    @staticmethod
    def hand_counts(cards: Sequence[int]) -> list[int]:
        """The 13-slot game-order rank-count array of a hand (3..A, 2)."""
        cnt = [0] * 13
        for c in cards:
            cnt[GAME_RANK[c]] += 1
        return cnt

    def _move_of(self, combo: Combo) -> Move:
        """The abstract move of a combo (trusts that the combo is a valid reading)."""
        cnt = self.hand_counts(combo.cards)
        move = self._classify(cnt)
        if move is None or move.type != combo.type:
            raise ValueError(f"not a {combo.type}: {combo.cards}")
        return move

    def combo_of(self, move: Move, hand: Sequence[int]) -> Combo:
        """A concrete combo of the move from the hand (lowest card ids first)."""
        return self._combo(move, pick_cards(move, hand))

    def moves(self, counts: Sequence[int], standing: Move | None = None) -> list[Move]:
        """Every abstract move of a hand (13-slot counts): all leads when ``standing`` is
        ``None``, else exactly those beating ``standing``. Distinct moves take distinct
        rank-count multisets or read differently."""
        out: list[Move] = []
        append = out.append
        st_type = standing.type if standing is not None else None
        if st_type != "bomb":
            if st_type is None or st_type in ("single", "pair", "triple"):
                sizes = (1, 2, 3) if standing is None else (standing.size,)
                lo = 0 if standing is None else standing.key + 1
                for k in sizes:
                    name = _SIMPLE[k]
                    for g in range(lo, 13):
                        if counts[g] >= k:
                            append(_new(Move, (name, g, 0, k, 0, ((g, k),), 0, 0)))
            if st_type is None or st_type in ("pair_chain", "triple_chain"):
                widths = (2, 3) if standing is None else (standing.size // standing.length,)
                for w in widths:
                    name = _CHAIN[w]
                    for start in range(ACE):
                        if counts[start] < w:
                            continue
                        end = start + 1
                        while end <= ACE and counts[end] >= w:
                            length = end - start + 1
                            if standing is None or (
                                length == standing.length and end > standing.key
                            ):
                                parts = tuple((g, w) for g in range(start, end + 1))
                                append(_new(Move, (name, end, length, w * length, 0, parts, 0, 0)))
                            end += 1
        floor = (
            (standing.size, standing.key) if standing is not None and st_type == "bomb" else None
        )
        for g in range(13):
            have = counts[g]
            if have < 4:
                continue
            for size in range(4, have + 1):
                if floor is not None and (size, g) <= floor:
                    continue
                append(_new(Move, ("bomb", g, 0, size, 0, ((g, size),), 0, 0)))
        return out

    def all_moves(self, counts: Sequence[int], standing: Move | None = None) -> list[Move]:
        """Every move at card level: without wild cards these are exactly the bot moves."""
        return self.moves(counts, standing)


# -- fans and scoring ---------------------------------------------------------------------------


def bomb_fan(size: int, key: int) -> int:
    """番 of a bomb of ``size`` cards of game rank ``key``: 2222..AAAAA 1, 22222..AAAAAA 2,
    222222..AAAAAAA 3, 2222222..AAAAAAAA 4, eight 2s 5; smaller bombs 0."""
    if size < 4:
        return 0
    return max(0, size - 4 + (1 if key == TWO else 0))


def combo_fan(combo: Combo) -> int:
    """番 of a played combo (0 for a non-bomb)."""
    if combo.type != "bomb" or combo.key is None or combo.size is None:
        return 0
    return bomb_fan(combo.size, GAME_RANK_OF_NAME[combo.key])


def hand_counts(cards: Sequence[int]) -> list[int]:
    """The 13-slot game-order rank-count array of a Red Two hand."""
    return HongerRules.hand_counts(cards)


def biggest_bomb(cards: Sequence[int]) -> tuple[int, int] | None:
    """The biggest bomb a hand holds, as ``(size, game rank)`` (bomb order), or ``None``."""
    cnt = hand_counts(cards)
    best = None
    for g in range(13):
        if cnt[g] >= 4 and (best is None or (cnt[g], g) > best):
            best = (cnt[g], g)
    return best


def held_fans(cards: Sequence[int]) -> int:
    """番 of the bombs in a hand, each rank counted once at its full count (for ``compare``)."""
    cnt = hand_counts(cards)
    return sum(bomb_fan(cnt[g], g) for g in range(13))


#: Big-bomb reward (in base units, from each other player) by the fan of the biggest bomb dealt.
BIG_BOMB_REWARD = {3: 1, 4: 2, 5: 4}


def big_bomb_rewards(hands: Sequence[Sequence[int]], base: int = 1) -> list[int]:
    """Points per seat from big-bomb rewards of the hands as dealt: a player dealt a bomb in
    222222..AAAAAAA gets ``1 x b`` from each other player, 2222222..AAAAAAAA ``2 x b``, eight 2s
    ``4 x b`` (only the player's biggest such bomb counts)."""
    fans = []
    for hand in hands:
        best = biggest_bomb(hand)
        fans.append(bomb_fan(*best) if best else 0)
    return rewards_of_fans(fans, base)


def rewards_of_fans(fans: Sequence[int], base: int = 1) -> list[int]:
    """Points per seat from big-bomb rewards, given the fan of each seat's biggest bomb as
    dealt (3: 222222..AAAAAAA ``1 x b`` from each other player, 4: ``2 x b``, 5 (eight 2s):
    ``4 x b``; below 3 nothing)."""
    n = len(fans)
    points = [0] * n
    for seat, fan in enumerate(fans):
        reward = BIG_BOMB_REWARD.get(fan, 0)
        if reward:
            for other in range(n):
                if other != seat:
                    points[other] -= reward * base
                    points[seat] += reward * base
    return points


def score_partnership(
    sides: Sequence[Sequence[int]], finish: Sequence[int], fans: Sequence[int], base: int = 1
) -> list[int]:
    """Points per seat of a partnership deal (before big-bomb rewards).

    The side of the 1st player wins: 双抓 (1st and 2nd) ``2 x 2^n x b`` per winner from one
    loser, 单抓 (1st and 3rd) ``1 x 2^n x b``, 保和 (1st and 4th) nothing; ``n`` is the sum of
    fans of the bombs the winners played. A seat missing from ``finish`` finished after all the
    listed ones. A side of one seat makes it a solo deal of that seat (:func:`score_solo`).
    """
    lone = [side[0] for side in sides if len(side) == 1]
    if lone:
        return score_solo(lone[0], finish, fans, base)
    points = [0] * 4
    if not finish:
        return points
    first = finish[0]
    winners = next(list(s) for s in sides if first in s)
    losers = next(list(s) for s in sides if first not in s)
    partner = next(s for s in winners if s != first)
    place = finish.index(partner) + 1 if partner in finish else 4
    unit = {2: 2, 3: 1}.get(place, 0)
    if unit:
        n = sum(fans[s] for s in winners)
        amount = unit * 2**n * base
        for s in winners:
            points[s] += amount
        for s in losers:
            points[s] -= amount
    return points


def score_solo(solo: int, finish: Sequence[int], fans: Sequence[int], base: int = 1) -> list[int]:
    """Points per seat of a solo deal (独打, 1 against 3; before big-bomb rewards).

    Solo 1st: ``3 x 2^n x b`` from each opponent (n = solo's fans); solo last (or never in
    ``finish`` while three others are): pays ``2 x 2^n x b`` to each (n = the opponents' fans);
    solo 2nd or 3rd: draw.
    """
    points = [0] * 4
    others = [s for s in range(4) if s != solo]
    if finish and finish[0] == solo:
        amount = 3 * 2 ** fans[solo] * base
        sign = 1
    elif solo not in finish[:3] and len([s for s in finish if s != solo]) >= 3:
        amount = 2 * 2 ** sum(fans[s] for s in others) * base
        sign = -1
    else:
        return points
    for s in others:
        points[s] -= sign * amount
        points[solo] += sign * amount
    return points


def _bomb_winner(
    solo: int, hands: Sequence[Sequence[int]]
) -> tuple[int | None, tuple[int, int] | None]:
    """The opponent (after the solo player in turn order, ties to the first) with the biggest
    bomb in hand, and that bomb; ``(None, None)`` if no opponent holds one."""
    best_seat: int | None = None
    best: tuple[int, int] | None = None
    for i in range(1, 4):
        seat = (solo + i) % 4
        bomb = biggest_bomb(hands[seat])
        if bomb is not None and (best is None or bomb > best):
            best_seat, best = seat, bomb
    return best_seat, best


def score_surrender(solo: int, hands: Sequence[Sequence[int]], base: int = 1) -> list[int]:
    """投降: the solo player pays ``1 x b`` to the opponent with the biggest bomb in hand (ties,
    or no opponent holding a bomb: the first in turn order after the solo player)."""
    seat, _ = _bomb_winner(solo, hands)
    if seat is None:
        seat = (solo + 1) % 4
    return pay_surrender(solo, seat, base)


def pay_surrender(solo: int, receiver: int, base: int = 1) -> list[int]:
    """Points per seat of a surrender once the receiver is known: the solo player pays
    ``1 x b`` to ``receiver``; no fans or rewards count."""
    points = [0] * 4
    points[receiver] += base
    points[solo] -= base
    return points


def score_compare(solo: int, hands: Sequence[Sequence[int]], base: int = 1) -> list[int]:
    """比炸弹: if the solo player's biggest bomb is the biggest of all (ties favour the solo
    player) or nobody holds a bomb, no one scores; otherwise the opponent with the biggest bomb
    (ties to the first after the solo player) gets ``2^n x b`` from the solo player, ``n`` the
    fans of that opponent's bombs in hand."""
    points = [0] * 4
    seat, best = _bomb_winner(solo, hands)
    if seat is None or best is None:  # both or neither
        return points
    own = biggest_bomb(hands[solo])
    if own is not None and own >= best:
        return points
    return pay_compare(solo, seat, held_fans(hands[seat]), base)


def pay_compare(solo: int, winner: int, fans: int, base: int = 1) -> list[int]:
    """Points per seat of a compare won by opponent ``winner`` whose bombs in hand make
    ``fans`` fans: ``winner`` gets ``2^fans x b`` from the solo player."""
    points = [0] * 4
    amount = 2**fans * base
    points[winner] += amount
    points[solo] -= amount
    return points
