"""二人双扣 two-player Shuangkou (variant id ``shuangkou2``): combos, beating and scoring.

Rules: ``docs/rules/shuangkou2.md``. Card order ``3 4 … A 2 SB HR``; the jokers are wild for
any rank 3..2 and a reading always maximises its key (for a chain bomb: lines first, then the
top rank). Combos: ``single``, ``pair``, ``triple``, ``straight`` (5+), ``pair_chain`` (3+),
``triple_chain`` (3+), ``bomb`` (4+ of a rank, lines = cards), ``chain_bomb`` (Y consecutive
ranks 3..A of at least 4 cards each, m = the smallest count, lines = m + Y; Y >= 3 when
m = 4, Y >= 2 when m > 4, Y <= 6), ``joker3`` (6 lines) and ``joker4`` (7 lines).
Bombs compare by lines, then fewer cards, then top rank; ``joker3`` / ``joker4`` are the lowest
of their line count.

Besides the :class:`~engine.combo.ComboRules` interface, :class:`Shuangkou2Rules` offers the
fast abstract move API for bots on 15-slot game-order rank-count arrays (13 natural ranks, then
``SB``, ``HR``): ``hand_counts``, ``moves(counts, standing)`` (bot moves: jokers only where
they are needed, see :meth:`Shuangkou2Rules.moves`), ``all_moves(counts, standing)`` (every
distinct move, the basis of :meth:`Shuangkou2Rules.legal_combos`), ``move_of``, ``combo_of``,
``move_beats`` and ``max_lines`` (the most lines of any bomb a hand holds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engine.cards import HR, SB
from engine.combo import Combo, ComboRules
from engine.variants.honger import (
    ACE,
    CARD_ORDER,
    G_HR,
    G_SB,
    GAME_RANK,
    GAME_RANK_NAMES,
    TWO,
    Move,
    ReadingCache,
    make_combo,
    pick_cards,
)

VARIANT = "shuangkou2"

_new = tuple.__new__

BOMB_TYPES = frozenset({"bomb", "chain_bomb", "joker3", "joker4"})
_CHAIN_TYPES = {1: "straight", 2: "pair_chain", 3: "triple_chain"}
_CHAIN_MIN = {1: 5, 2: 3, 3: 3}
_SIMPLE = {1: "single", 2: "pair", 3: "triple"}


#: Natural singles, pairs and triples by size and game rank (moves are immutable: shared).
_NATURAL_SIMPLE = {
    k: tuple(Move(_SIMPLE[k], g, 0, k, 0, ((g, k),)) for g in range(13)) for k in (1, 2, 3)
}
#: Joker singles and own-rank pairs: SB, HR, SB SB, HR HR.
_JOKER_SIMPLE = (
    Move("single", G_SB, 0, 1, 0, (), 1, 0),
    Move("single", G_HR, 0, 1, 0, (), 0, 1),
    Move("pair", G_SB, 0, 2, 0, (), 2, 0),
    Move("pair", G_HR, 0, 2, 0, (), 0, 2),
)
#: Natural bombs by game rank and size (index = size; 0..3 unused).
_NATURAL_BOMBS = tuple(
    tuple(Move("bomb", g, 0, n, n, ((g, n),)) for n in range(9)) for g in range(13)
)


#: Natural chains without jokers by width, lowest and highest rank (``None`` where invalid).
_NATURAL_CHAINS = {
    w: tuple(
        tuple(
            Move(
                _CHAIN_TYPES[w],
                hi,
                hi - lo + 1,
                w * (hi - lo + 1),
                0,
                tuple((g, w) for g in range(lo, hi + 1)),
            )
            if hi - lo + 1 >= _CHAIN_MIN[w]
            else None
            for hi in range(ACE + 1)
        )
        for lo in range(ACE + 1)
    )
    for w in (1, 2, 3)
}


def _splits(total: int, sb: int, hr: int) -> list[tuple[int, int]]:
    """Ways to take ``total`` jokers from ``sb`` small and ``hr`` big ones, as (sb, hr)."""
    return [(a, total - a) for a in range(max(0, total - hr), min(sb, total) + 1)]


def _take_jokers(total: int, sb: int) -> tuple[int, int]:
    """The jokers a bot spends to fill ``total`` gaps: small jokers first."""
    a = min(sb, total)
    return a, total - a


def _chain_top(lowest: int, highest: int, length: int) -> int | None:
    """Highest top rank of a ``length``-rank window of 3..A holding ranks lowest..highest."""
    top = min(ACE, lowest + length - 1)
    if top < highest or top - length + 1 < 0:
        return None
    return top


def best_chain_bomb(nat: Sequence[int], jokers: int) -> tuple[int, int] | None:
    """The chain bomb reading of naturals ``nat`` (13 game-rank counts) plus ``jokers`` wild
    cards, as ``(lines, top)`` maximising lines then top rank, or ``None`` if none."""
    ranks = [g for g in range(13) if nat[g]]
    if not ranks or ranks[-1] > ACE:
        return None
    lowest, highest = ranks[0], ranks[-1]
    total = sum(nat) + jokers
    best = None
    for width in range(max(2, highest - lowest + 1), 7):
        if total < 4 * width:
            break
        for lo in range(max(0, highest - width + 1), min(lowest, ACE - width + 1) + 1):
            window = nat[lo : lo + width]
            m = min(window)
            while sum(max(0, m + 1 - c) for c in window) <= jokers:
                m += 1
            if m < 4 or (m == 4 and width < 3):
                continue
            cand = (m + width, lo + width - 1)
            if best is None or cand > best:
                best = cand
    return best


def strength(move: Move) -> tuple[int, int, int]:
    """Bomb order: lines, then fewer cards, then top rank; joker3/joker4 lowest of their lines."""
    if move.type in ("joker3", "joker4"):
        return (move.lines, -1000, 0)
    return (move.lines, -move.size, move.key)


class Shuangkou2Rules(ReadingCache, ComboRules):
    """Two-player Shuangkou combos: wild jokers, long chains, line-counted bombs."""

    variant = VARIANT
    level = None
    #: Card order per natural rank index (0..14 = ``2``..``A``, ``SB``, ``HR``), as the generic
    #: deal loop and bots expect: 3 lowest, 2 above A, then the jokers.
    value = CARD_ORDER

    def __init__(self) -> None:
        """Stateless rules (but for a bounded memo of readings)."""
        self._init_cache()

    # -- classification ---------------------------------------------------------------------

    @staticmethod
    def _read_counts(nat: Sequence[int], sb: int, hr: int) -> list[Move]:
        """Every reading (one per type, key maximised) of naturals ``nat`` plus jokers."""
        j = sb + hr
        ranks = [g for g in range(13) if nat[g]]
        n = sum(nat) + j
        parts = tuple((g, nat[g]) for g in ranks)
        out: list[Move] = []
        if n == 0:
            return out
        if n <= 3 and len(ranks) <= 1:
            if ranks:
                key = ranks[0]
            elif n == 1:
                key = G_SB if sb else G_HR
            elif n == 2 and sb == 2:
                key = G_SB
            elif n == 2 and hr == 2:
                key = G_HR
            else:
                key = TWO
            out.append(Move(_SIMPLE[n], key, 0, n, 0, parts, sb, hr))
        if n == 3 and j == 3:
            out.append(Move("joker3", -1, 0, 3, 6, parts, sb, hr))
        if n >= 4 and len(ranks) <= 1:
            out.append(Move("bomb", ranks[0] if ranks else TWO, 0, n, n, parts, sb, hr))
        if n == 4 and j == 4:
            out.append(Move("joker4", -1, 0, 4, 7, parts, sb, hr))
        if not ranks or ranks[-1] > ACE:
            return out
        most = max(nat[g] for g in ranks)
        for width, name in _CHAIN_TYPES.items():
            if n % width or most > width:
                continue
            length = n // width
            if length < _CHAIN_MIN[width] or length > 12:
                continue
            top = _chain_top(ranks[0], ranks[-1], length)
            if top is not None:
                out.append(Move(name, top, length, n, 0, parts, sb, hr))
        if n >= 8:
            best = best_chain_bomb(nat, j)
            if best is not None:
                out.append(Move("chain_bomb", best[1], 0, n, best[0], parts, sb, hr))
        return out

    @staticmethod
    def _split(cards: Sequence[int]) -> tuple[list[int], int, int] | None:
        """Naturals count array and joker counts of valid card ids, or ``None``."""
        nat = [0] * 13
        sb = hr = 0
        for c in cards:
            if not isinstance(c, int) or not 0 <= c <= HR:
                return None
            if c == SB:
                sb += 1
            elif c == HR:
                hr += 1
            else:
                nat[GAME_RANK[c]] += 1
        return nat, sb, hr

    def readings(self, cards: Sequence[int]) -> list[Combo]:
        """Every reading of exactly these cards as one combo, keys maximised."""
        split = self._split(cards)
        if split is None:
            return []
        ordered = tuple(sorted(cards))
        return [self._combo(m, ordered) for m in self._read_counts(*split)]

    @staticmethod
    def _combo(move: Move, cards: tuple[int, ...]) -> Combo:
        """The :class:`Combo` of a move played with these (sorted) cards."""
        t = move.type
        return make_combo(
            t,
            GAME_RANK_NAMES[move.key] if move.key >= 0 else None,
            cards,
            move.size if t in ("bomb", "chain_bomb") else None,
            move.length if move.length else None,
            move.lines if t in BOMB_TYPES else None,
        )

    # -- comparison ----------------------------------------------------------------------------

    def is_bomb(self, combo: Combo) -> bool:
        """``bomb``, ``chain_bomb``, ``joker3`` and ``joker4`` are bombs."""
        return combo.type in BOMB_TYPES

    def card_strength(self, card: int) -> int:
        """Card order: ``3 < … < A < 2 < SB < HR`` (a joker counts high: it is wild)."""
        return GAME_RANK[card]

    def bomb_strength(self, combo: Combo) -> tuple[int, ...]:
        """The bomb order (:func:`strength`), then fewer jokers."""
        move = self.move_of(combo)
        return (*strength(move), move.sb + move.hr)

    def beats(self, play: Combo, standing: Combo) -> bool:
        """Non-bombs: same type and number of cards, higher key. Bombs beat non-bombs; between
        bombs more lines wins, then fewer cards, then the higher top rank."""
        return self.move_beats(self.move_of(play), self.move_of(standing))

    @staticmethod
    def move_beats(play: Move, standing: Move) -> bool:
        """:meth:`beats` on abstract moves."""
        if play.type in BOMB_TYPES:
            if standing.type not in BOMB_TYPES:
                return True
            return strength(play) > strength(standing)
        return play.type == standing.type and play.size == standing.size and play.key > standing.key

    # -- abstract moves ------------------------------------------------------------------------

    @staticmethod
    def hand_counts(cards: Sequence[int]) -> list[int]:
        """The 15-slot game-order rank-count array of a hand (3..A, 2, SB, HR)."""
        cnt = [0] * 15
        for c in cards:
            cnt[GAME_RANK[c]] += 1
        return cnt

    def _move_of(self, combo: Combo) -> Move:
        """The abstract move of a combo (its cards read as its declared type)."""
        split = self._split(combo.cards)
        if split is not None:
            for move in self._read_counts(*split):
                if move.type == combo.type:
                    return move
        raise ValueError(f"not a {combo.type}: {combo.cards}")

    def combo_of(self, move: Move, hand: Sequence[int]) -> Combo:
        """A concrete combo of the move from the hand (lowest card ids first)."""
        return self._combo(move, pick_cards(move, hand))

    def read_move(self, nat: Sequence[int], sb: int, hr: int, type: str) -> Move | None:
        """The reading of naturals ``nat`` plus jokers as ``type``, or ``None``."""
        for move in self._read_counts(nat, sb, hr):
            if move.type == type:
                return move
        return None

    # Bot moves: fast, jokers only where they are needed (smallest jokers first).

    def moves(
        self, counts: Sequence[int], standing: Move | None = None, bombs: list[Move] | None = None
    ) -> list[Move]:
        """Moves for bots from a 15-slot hand count array: all leads when ``standing`` is
        ``None``, else only moves that beat it. A subset of :meth:`all_moves`: jokers stand
        in only for missing cards (small jokers first) and a chain bomb takes every natural of
        its ranks; every returned move is legal and read with its maximised key. ``bombs`` may
        pass :meth:`bot_bombs` of the same counts, already computed."""
        out: list[Move] = []
        st = standing
        st_type = st.type if st is not None else None
        nat = counts[:13]
        sb, hr = counts[G_SB], counts[G_HR]
        if st_type is None or st_type in _SIMPLE.values():
            self._bot_simple(nat, sb, hr, st, out)
        if st_type is None or st_type in _CHAIN_TYPES.values():
            self._bot_chains(nat, sb, hr, st, out)
        if bombs is None:
            bombs = self.bot_bombs(counts)
        if st_type in BOMB_TYPES:
            s = strength(st)  # type: ignore[arg-type]
            out.extend(m for m in bombs if strength(m) > s)
        else:
            out.extend(bombs)
        return out

    def bot_bombs(self, counts: Sequence[int]) -> list[Move]:
        """The bombs among the bot moves of a 15-slot hand count array."""
        nat = counts[:13]
        sb, hr = counts[G_SB], counts[G_HR]
        j = sb + hr
        bombs: list[Move] = []
        floor = 4 - j  # a rank needs this many natural cards to make a bomb
        rich = [g for g in range(13) if nat[g] >= floor and nat[g]]
        for g in rich:
            have = nat[g]
            if j == 0:
                bombs.extend(_NATURAL_BOMBS[g][4 : have + 1])
                continue
            for size in range(4, have + j + 1):
                used = max(0, size - have)
                a, b = _take_jokers(used, sb)
                k = size - used
                bombs.append(_new(Move, ("bomb", g, 0, size, size, ((g, k),), a, b)))
        if j >= 3:
            a, b = _take_jokers(3, sb)
            bombs.append(_new(Move, ("joker3", -1, 0, 3, 6, (), a, b)))
        if j == 4:
            bombs.append(_new(Move, ("joker4", -1, 0, 4, 7, (), sb, hr)))
        if len(rich) >= 2:
            self._bot_chain_bombs(nat, sb, hr, bombs)
        return bombs

    @staticmethod
    def _bot_simple(nat: Sequence[int], sb: int, hr: int, st: Move | None, out: list[Move]) -> None:
        """Bot singles, pairs and triples (beating ``st`` if given)."""
        j = sb + hr
        sizes = (1, 2, 3) if st is None else (st.size,)
        lo = -1 if st is None else st.key
        start = lo + 1 if lo >= 0 else 0
        for k in sizes:
            table = _NATURAL_SIMPLE[k]
            if j == 0:
                out.extend([table[g] for g in range(start, 13) if nat[g] >= k])
                continue
            name = _SIMPLE[k]
            for g in range(start, 13):
                have = nat[g]
                if have >= k:
                    out.append(table[g])
                elif have and k - have <= j:
                    a, b = _take_jokers(k - have, sb)
                    out.append(_new(Move, (name, g, 0, k, 0, ((g, have),), a, b)))
            if k == 1:
                if sb and lo < G_SB:
                    out.append(_JOKER_SIMPLE[0])
                if hr and lo < G_HR:
                    out.append(_JOKER_SIMPLE[1])
            elif k == 2:
                if sb == 2 and lo < G_SB:
                    out.append(_JOKER_SIMPLE[2])
                if hr == 2 and lo < G_HR:
                    out.append(_JOKER_SIMPLE[3])

    @staticmethod
    def _bot_chains(nat: Sequence[int], sb: int, hr: int, st: Move | None, out: list[Move]) -> None:
        """Bot straights, pair chains and triple chains (beating ``st`` if given). A window's
        lowest rank holds a natural card unless its top is A (else the cards would read higher)."""
        j = sb + hr
        if st is not None:
            w = st.size // st.length
            length = st.length
            name = _CHAIN_TYPES[w]
            for lo in range(max(0, st.key - length + 2), ACE - length + 2):
                hi = lo + length - 1
                if nat[lo] == 0 and hi != ACE:
                    continue
                gaps = 0
                parts = []
                for g in range(lo, hi + 1):
                    have = nat[g]
                    if have >= w:
                        parts.append((g, w))
                    else:
                        gaps += w - have
                        if have:
                            parts.append((g, have))
                if gaps <= j and parts:
                    a, b = _take_jokers(gaps, sb)
                    out.append(_new(Move, (name, hi, length, w * length, 0, tuple(parts), a, b)))
            return
        if j == 0:  # no jokers: runs of ranks holding enough cards, from a constant table
            for w in (1, 2, 3):
                table = _NATURAL_CHAINS[w]
                min_len = _CHAIN_MIN[w]
                g = 0
                while g <= ACE:
                    if nat[g] < w:
                        g += 1
                        continue
                    end = g
                    while end < ACE and nat[end + 1] >= w:
                        end += 1
                    for lo in range(g, end - min_len + 2):
                        # from lo + min_len - 1 up every entry is a chain (never None)
                        chains = cast(tuple[Move, ...], table[lo])
                        out.extend(chains[hi] for hi in range(lo + min_len - 1, end + 1))
                    g = end + 1
            return
        for w in (1, 2, 3):
            name = _CHAIN_TYPES[w]
            min_len = _CHAIN_MIN[w]
            need = [w - c if c < w else 0 for c in nat[: ACE + 1]]
            for lo in range(ACE - min_len + 2):
                gaps = need[lo]
                if gaps > j:
                    continue
                first = nat[lo]
                if first == 0:
                    # a window may start with a joker only when its top is A
                    for g in range(lo + 1, ACE + 1):
                        gaps += need[g]
                        if gaps > j:
                            break
                    else:
                        joker_parts = tuple(
                            (g, w - need[g]) for g in range(lo, ACE + 1) if need[g] < w
                        )
                        if joker_parts:
                            length = ACE - lo + 1
                            a, b = _take_jokers(gaps, sb)
                            out.append(
                                _new(Move, (name, ACE, length, w * length, 0, joker_parts, a, b))
                            )
                    continue
                # read only at length >= min_len, where every entry is a chain (never None)
                row = cast(tuple[Move, ...], _NATURAL_CHAINS[w][lo])
                # parts stay implicit (the constant table's) until a joker fills a gap
                filled: list[tuple[int, int]] | None = None if gaps == 0 else [(lo, w - gaps)]
                for hi in range(lo + 1, ACE + 1):
                    miss = need[hi]
                    if miss:
                        gaps += miss
                        if gaps > j:
                            break
                        if filled is None:
                            filled = [(g, w) for g in range(lo, hi)]
                        if miss < w:
                            filled.append((hi, w - miss))
                    elif filled is not None:
                        filled.append((hi, w))
                    length = hi - lo + 1
                    if length >= min_len:
                        if filled is None:
                            out.append(row[hi])
                        else:
                            a = sb if sb < gaps else gaps
                            move = (name, hi, length, w * length, 0, tuple(filled), a, gaps - a)
                            out.append(_new(Move, move))

    @staticmethod
    def _bot_chain_bombs(nat: Sequence[int], sb: int, hr: int, out: list[Move]) -> None:
        """Bot chain bombs: every natural of the window's ranks, jokers filling gaps to four,
        plus (if jokers remain) the version spending them all; read to the most lines."""
        j = sb + hr
        for lo in range(ACE):
            if nat[lo] == 0:
                continue
            gaps = 4 - nat[lo] if nat[lo] < 4 else 0
            if gaps > j:
                continue
            for hi in range(lo + 1, min(lo + 6, ACE + 1)):
                have = nat[hi]
                if have < 4:
                    gaps += 4 - have
                    if gaps > j:
                        break
                if have == 0:
                    continue
                parts = tuple((g, nat[g]) for g in range(lo, hi + 1) if nat[g])
                naturals = sum(c for _, c in parts)
                for used in (gaps, j) if gaps < j else (gaps,):
                    sub = [0] * 13
                    for g, c in parts:
                        sub[g] = c
                    best = best_chain_bomb(sub, used)
                    if best is None:
                        continue
                    a, b = _take_jokers(used, sb)
                    out.append(
                        _new(
                            Move, ("chain_bomb", best[1], 0, naturals + used, best[0], parts, a, b)
                        )
                    )

    # Exact moves: every distinct multiset of ranks and jokers x reading.

    def all_moves(self, counts: Sequence[int], standing: Move | None = None) -> list[Move]:
        """Every distinct abstract move (natural rank counts, jokers, type) of a 15-slot hand
        count array, read with its maximised key; with ``standing``, exactly those beating it."""
        nat = list(counts[:13])
        sb, hr = counts[G_SB], counts[G_HR]
        found: dict[tuple[str, tuple[tuple[int, int], ...], int, int], Move] = {}

        def add(parts: tuple[tuple[int, int], ...], a: int, b: int, type: str) -> None:
            key = (type, parts, a, b)
            if key in found:
                return
            sub = [0] * 13
            for g, c in parts:
                sub[g] = c
            move = self.read_move(sub, a, b, type)
            if move is not None:
                found[key] = move

        st_type = standing.type if standing is not None else None
        bombs_only = st_type in BOMB_TYPES
        j = sb + hr
        if not bombs_only:
            for k, name in _SIMPLE.items():
                if st_type not in (None, name):
                    continue
                for g in range(13):
                    for take in range(1, min(k, nat[g]) + 1):
                        for a, b in _splits(k - take, sb, hr):
                            add(((g, take),), a, b, name)
                for a, b in _splits(k, sb, hr):
                    add((), a, b, name)
            for w, name in _CHAIN_TYPES.items():
                if st_type not in (None, name):
                    continue
                self._exact_chains(nat, sb, hr, w, name, add)
        for g in range(13):
            for take in range(1, nat[g] + 1):
                for used in range(max(0, 4 - take), j + 1):
                    for a, b in _splits(used, sb, hr):
                        add(((g, take),), a, b, "bomb")
        for a, b in _splits(4, sb, hr):
            add((), a, b, "bomb")
            add((), a, b, "joker4")
        for a, b in _splits(3, sb, hr):
            add((), a, b, "joker3")
        self._exact_chain_bombs(nat, sb, hr, add)
        moves = list(found.values())
        if standing is not None:
            moves = [m for m in moves if self.move_beats(m, standing)]
        return moves

    @staticmethod
    def _exact_chains(nat: list[int], sb: int, hr: int, w: int, name: str, add: Any) -> None:
        """Every straight / pair chain / triple chain (width ``w``) by window and joker use."""
        j = sb + hr
        min_len = _CHAIN_MIN[w]
        for lo in range(ACE + 1):
            for hi in range(lo + min_len - 1, ACE + 1):
                positions = list(range(lo, hi + 1))
                if sum(max(0, w - min(w, nat[g])) for g in positions) > j:
                    break

                def walk(
                    i: int,
                    left: int,
                    parts: list[tuple[int, int]],
                    positions: list[int] = positions,
                    lo: int = lo,
                    hi: int = hi,
                ) -> None:
                    if i == len(positions):
                        if hi != ACE and (not parts or parts[0][0] != lo):
                            return
                        used = j - left
                        for a, b in _splits(used, sb, hr):
                            add(tuple(parts), a, b, name)
                        return
                    g = positions[i]
                    for take in range(min(w, nat[g]), -1, -1):
                        need = w - take
                        if need > left:
                            break
                        if take:
                            parts.append((g, take))
                        walk(i + 1, left - need, parts)
                        if take:
                            parts.pop()

                walk(0, j, [])

    @staticmethod
    def _exact_chain_bombs(nat: list[int], sb: int, hr: int, add: Any) -> None:
        """Every chain bomb: per window, every natural count >= 0 per rank and joker use."""
        j = sb + hr
        for width in range(2, 7):
            for lo in range(ACE - width + 2):
                positions = list(range(lo, lo + width))
                if sum(max(0, 4 - nat[g]) for g in positions) > j:
                    continue

                def walk(
                    i: int,
                    deficit: int,
                    parts: list[tuple[int, int]],
                    positions: list[int] = positions,
                ) -> None:
                    if i == len(positions):
                        if not parts:
                            return
                        for used in range(deficit, j + 1):
                            for a, b in _splits(used, sb, hr):
                                add(tuple(parts), a, b, "chain_bomb")
                        return
                    g = positions[i]
                    for take in range(nat[g], -1, -1):
                        more = max(0, 4 - take)
                        if deficit + more > j:
                            break
                        if take:
                            parts.append((g, take))
                        walk(i + 1, deficit + more, parts)
                        if take:
                            parts.pop()

                walk(0, 0, [])

    @staticmethod
    def max_lines(counts: Sequence[int]) -> int:
        """The most lines of any bomb the hand (15-slot counts) holds, jokers read to the
        most lines; 0 if it holds none."""
        nat = list(counts[:13])
        j = counts[G_SB] + counts[G_HR]
        best = max(nat) + j
        if best < 4:
            best = 0
        if j >= 3:
            best = max(best, 6 if j == 3 else 7)
        for width in range(2, 7):
            for lo in range(ACE - width + 2):
                sub = [0] * 13
                sub[lo : lo + width] = nat[lo : lo + width]
                chain = best_chain_bomb(sub, j)
                if chain is not None and chain[0] > best:
                    best = chain[0]
        return best


# -- scoring ------------------------------------------------------------------------------------


def multiplier(lines: Sequence[int]) -> int:
    """翻倍数 ``2^(L-5)`` for the most lines ``L`` among the bombs (1 when L <= 5 or none)."""
    top = max(lines, default=0)
    return 2 ** (top - 5) if top > 5 else 1


def contribution(lines: Sequence[int]) -> int:
    """贡献分: ``k - 5`` points for every bomb of ``k >= 6`` lines."""
    return sum(k - 5 for k in lines if k >= 6)


def score_items(
    winner: int, cards_left: int, mult: int, bombs: Sequence[Sequence[int]], base: int = 1
) -> list[list[dict[str, Any]]]:
    """The deal's points per seat as a breakdown (the winner's items; the loser's are their
    negation): ``cards`` = ``b x p x m`` (``p`` = the loser's ``cards_left``, ``m`` =
    ``multiplier``) and ``bombs`` = ``b x (cw - cl)``, the :func:`contribution` of each
    player's bombs played (line counts ``lines``)."""
    loser = 1 - winner
    cards = base * cards_left * mult
    extra = base * (contribution(bombs[winner]) - contribution(bombs[loser]))
    out: list[list[dict[str, Any]]] = [[], []]
    for seat, sign in ((winner, 1), (loser, -1)):
        out[seat] = [
            {
                "reason": "cards",
                "points": sign * cards,
                "cards_left": cards_left,
                "multiplier": mult,
            },
            {"reason": "bombs", "points": sign * extra, "lines": list(bombs[seat])},
        ]
    return out


def points_of(items: Sequence[Sequence[dict[str, Any]]]) -> list[int]:
    """Points per seat: the sum of each seat's breakdown."""
    return [sum(i["points"] for i in seat) for seat in items]


def score_deal(
    winner: int, cards_left: Sequence[int], bombs: Sequence[Sequence[int]], base: int = 1
) -> list[int]:
    """Points per seat: the winner gets ``b x p x m + b x (cw - cl)``, the loser the negation;
    ``p`` = the loser's cards left, ``m`` = :func:`multiplier` of the winner's bombs played,
    ``cw`` / ``cl`` the :func:`contribution` of each player's bombs played (line counts)."""
    return points_of(deal_items(winner, cards_left, bombs, base))


def deal_items(
    winner: int, cards_left: Sequence[int], bombs: Sequence[Sequence[int]], base: int = 1
) -> list[list[dict[str, Any]]]:
    """:func:`score_deal` as a breakdown per seat (:func:`score_items`)."""
    return score_items(winner, cards_left[1 - winner], multiplier(bombs[winner]), bombs, base)


def score_abandon(
    quitter: int,
    cards_left: Sequence[int],
    bombs: Sequence[Sequence[int]],
    held_lines: int,
    base: int = 1,
) -> list[int]:
    """Points when ``quitter`` abandons: they lose the deal in progress with ``p`` = their cards
    left and ``m`` from the other player's biggest bomb played or held (``held_lines``, the most
    lines of a bomb in the other player's hand); contributions are the bombs played."""
    return points_of(abandon_items(quitter, cards_left, bombs, held_lines, base))


def abandon_items(
    quitter: int,
    cards_left: Sequence[int],
    bombs: Sequence[Sequence[int]],
    held_lines: int,
    base: int = 1,
) -> list[list[dict[str, Any]]]:
    """:func:`score_abandon` as a breakdown per seat (:func:`score_items`)."""
    other = 1 - quitter
    m = multiplier(list(bombs[other]) + [held_lines])
    return score_items(other, cards_left[quitter], m, bombs, base)
