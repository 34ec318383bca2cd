"""Cards, the suit-first notation, decks and seeded deals.

A card is a small int 0..53 so that hands can be counted in arrays:
``id = suit * 13 + rank`` for suit in ``S H C D`` (0..3) and rank in
``2 3 4 5 6 7 8 9 T J Q K A`` (0..12); ``SB`` (small joker, 小王) is 52 and
``HR`` (big joker, 大王) is 53. The text notation is two characters, suit first
(``H7``, ``ST``, ``SB``, ``HR``), and round-trips exactly through
:func:`parse_card` / :func:`card_str`. Two decks are in play, so a hand is a
multiset: a list of ids, order irrelevant.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass

SUITS = "SHCD"
RANKS = "23456789TJQKA"
SB = 52
HR = 53
JOKERS = (SB, HR)
#: Rank index of the jokers in "rank space": 0..12 are 2..A, 13 is SB, 14 is HR.
RANK_SB = 13
RANK_HR = 14
RANK_NAMES = tuple(RANKS) + ("SB", "HR")


class InvalidCard(ValueError):
    """Raised for a string that is not a card in the suit-first notation."""


def card_str(card: int) -> str:
    """Return the two-character suit-first notation of a card id (``H7``, ``SB``)."""
    if card == SB:
        return "SB"
    if card == HR:
        return "HR"
    if not 0 <= card < 52:
        raise InvalidCard(f"no card has id {card!r}")
    return SUITS[card // 13] + RANKS[card % 13]


#: The notation of each card id, one interned string per card: the engine's tables of card
#: strings are this one, so that a hand's strings and a played card's are the same objects
#: (a list's ``remove`` and ``==`` then match them by identity).
CARD_STRS: tuple[str, ...] = tuple(sys.intern(card_str(c)) for c in range(54))
_PARSE = {t: c for c, t in enumerate(CARD_STRS)}


def parse_card(text: str) -> int:
    """Parse ``H7``, ``ST``, ``SB``, ``HR`` (exact, upper case) into a card id.

    Raises :class:`InvalidCard` for anything else, so callers can refuse bad input.
    """
    try:
        return _PARSE[text]
    except (KeyError, TypeError):
        raise InvalidCard(f"not a card: {text!r}") from None


def parse_cards(texts: Iterable[str]) -> list[int]:
    """Parse a list of card strings; raises :class:`InvalidCard` on the first bad one."""
    if isinstance(texts, str):
        raise InvalidCard(f"expected a list of cards, got the string {texts!r}")
    return [parse_card(t) for t in texts]


def cards_str(cards: Iterable[int]) -> list[str]:
    """Return the notation of each card, in the given order."""
    return [card_str(c) for c in cards]


def rank_of(card: int) -> int:
    """Rank index of a card: 0..12 for ``2``..``A``, 13 for ``SB``, 14 for ``HR``."""
    if card >= 52:
        return RANK_SB if card == SB else RANK_HR
    return card % 13


def suit_of(card: int) -> int | None:
    """Suit index 0..3 (``S H C D``) of a card, ``None`` for a joker."""
    return None if card >= 52 else card // 13


def make_card(suit: int, rank: int) -> int:
    """Card id of a suit index (0..3) and rank index (0..12)."""
    return suit * 13 + rank


def rank_index(name: str) -> int:
    """Rank index of a rank name (``"7"``, ``"T"``, ``"A"``, ``"SB"``, ``"HR"``)."""
    try:
        return RANK_NAMES.index(name)
    except ValueError:
        raise InvalidCard(f"not a rank: {name!r}") from None


def counts(cards: Iterable[int]) -> list[int]:
    """A 54-slot count array of a multiset of card ids."""
    out = [0] * 54
    for c in cards:
        out[c] += 1
    return out


def deck(decks: int = 2, jokers: bool = True) -> list[int]:
    """The cards of ``decks`` full decks (with or without jokers), in id order."""
    one = list(range(54 if jokers else 52))
    return sorted(one * decks)


@dataclass(frozen=True, slots=True)
class Deal:
    """A seeded deal: the hands and the marked card (明牌) that decides the first lead."""

    hands: tuple[tuple[int, ...], ...]
    marked_card: int
    marked_seat: int


def deal(
    seed: int | str,
    players: int = 4,
    decks: int = 2,
    jokers: bool = True,
    hands: int | None = None,
) -> Deal:
    """Shuffle with ``random.Random(seed)`` and deal every card round the table.

    The same seed always gives the same deal. ``hands`` (default ``players``) is the number
    of hands dealt; two-player Shuangkou deals four hands and plays two of them, which is
    the caller's concern. One position of the shuffled deck is drawn as the marked card;
    ``marked_seat`` is the hand that received it. Hands are returned sorted by card id.
    """
    rng = random.Random(seed)
    cards = deck(decks, jokers)
    rng.shuffle(cards)
    n = hands or players
    dealt = [sorted(cards[i::n]) for i in range(n)]
    pos = rng.randrange(len(cards))
    return Deal(tuple(tuple(h) for h in dealt), cards[pos], pos % n)
