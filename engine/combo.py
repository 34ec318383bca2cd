"""The combo value type and the per-variant combo rules interface.

A :class:`Combo` is one legal reading of a set of cards: its declared type and its key
(maximised per the variant's wild-card rules). Each variant provides a :class:`ComboRules`
(obtained with :func:`engine.variants.combo_rules`) that classifies cards, compares combos and
enumerates the combos a hand can play. The deal state machine only talks to this interface.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import cards_str, parse_cards


@dataclass(frozen=True, slots=True)
class Combo:
    """One reading of some cards as a combo.

    ``key`` is a rank name (``"2"``..``"A"``, ``"SB"``, ``"HR"``) or ``None`` for types without a
    key (``joker_bomb``, ``two_bomb``, ``joker3``, ``joker4``). ``size`` is the number of cards
    of a bomb or chain bomb, ``length`` the number of ranks of a variable-length chain (Red Two,
    Shuangkou), ``lines`` the line count of a Shuangkou bomb; each is ``None`` where the type
    has none. ``cards`` are the card ids played, sorted.
    """

    type: str
    key: str | None
    cards: tuple[int, ...]
    size: int | None = None
    length: int | None = None
    lines: int | None = None

    def reading(self) -> dict[str, Any]:
        """The reading as in the conformance vectors: ``type``, ``key``, ``size``, ``length``,
        ``lines``, each only where the type has it."""
        out: dict[str, Any] = {"type": self.type}
        if self.key is not None:
            out["key"] = self.key
        for name in ("size", "length", "lines"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON form: the reading plus ``cards`` in the suit-first notation."""
        out = self.reading()
        out["cards"] = cards_str(self.cards)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Combo:
        """Inverse of :meth:`to_json` (trusts its input: use ``ComboRules.read_as`` to validate)."""
        return cls(
            type=data["type"],
            key=data.get("key"),
            cards=tuple(sorted(parse_cards(data["cards"]))),
            size=data.get("size"),
            length=data.get("length"),
            lines=data.get("lines"),
        )


class ComboRules:
    """What a variant says about combos, for one deal (one level rank, where levels exist).

    Implementations live in the variant modules; obtain one with
    :func:`engine.variants.combo_rules`.
    Card arguments are sequences of card ids (a multiset); methods never mutate them.
    """

    variant: str
    level: str | None

    def readings(self, cards: Sequence[int]) -> list[Combo]:
        """Every reading of exactly these cards as one combo, keys maximised; ``[]`` if none."""
        raise NotImplementedError

    def read_as(self, cards: Sequence[int], type: str) -> Combo | None:
        """The reading of these cards as the declared type (key maximised), or ``None``."""
        for combo in self.readings(cards):
            if combo.type == type:
                return combo
        return None

    def is_bomb(self, combo: Combo) -> bool:
        """Whether the combo is a bomb (beats every non-bomb) in this variant."""
        raise NotImplementedError

    def beats(self, play: Combo, standing: Combo) -> bool:
        """Whether ``play`` beats ``standing`` (turn order and initiative play no part)."""
        raise NotImplementedError

    def legal_combos(self, hand: Sequence[int], standing: Combo | None = None) -> list[Combo]:
        """Every distinct combo (multiset of cards x reading) the hand can play: all leads when
        ``standing`` is ``None``, else exactly those that beat ``standing``."""
        raise NotImplementedError

    def card_strength(self, card: int) -> int:
        """A card's place in this deal's single-card order (higher is stronger)."""
        raise NotImplementedError

    def is_wild(self, card: int) -> bool:
        """Whether the card is this deal's wild card (none by default)."""
        return False

    def bomb_strength(self, combo: Combo) -> tuple[int, ...]:
        """A bomb's place in this variant's bomb order (a higher tuple beats a lower one)."""
        raise NotImplementedError

    def hint_key(self, combo: Combo) -> tuple[int, ...]:
        """Sort key of a play for hints, weakest first: every non-bomb before every bomb;
        non-bombs by their strongest card in the deal's card order (so level cards and wild
        cards come after A), then more cards first (a lead sheds as many low cards as it
        can), then the sum of their card strengths; bombs in the bomb order."""
        if self.is_bomb(combo):
            return (1, *self.bomb_strength(combo))
        values = [self.card_strength(c) for c in combo.cards]
        return (0, max(values, default=0), -len(values), sum(values))
