"""A specific reason for each refused selection (issue 43, point 4).

The engine refuses a play with a code (``invalid_combo``, ``does_not_beat``,
``needs_initiative``…); the generic words of :data:`matches.messages.REASONS` say what kind
of refusal it is, not what is wrong with these cards. :func:`explain` says it: which cards do
not fit which combination, which natural 2 needs the initiative, which play stands and is not
beaten. The code stays the same (clients and tests rely on it); only the message is specific.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from engine.cards import parse_card, rank_of, suit_of
from engine.combo import ComboRules
from engine.variants.guandan import GuandanRules
from matches.messages import TABLE_WORDS, MatchError

_SUITS = "♠♥♣♦"
_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

#: What each count of cards can make, said when a selection makes nothing (Guandan and Bao 2;
#: the other games have longer chains and their own bombs: the generic line below).
_SHAPES = {
    1: _("one card is always a single"),
    2: _("two cards make a pair only when they are of one rank"),
    3: _("three cards make a triple only when they are of one rank"),
    4: _("four cards make a bomb only when they are of one rank (or the four jokers)"),
    5: _(
        "five cards make a straight (five ranks in a row), a full house (a triple and a pair) "
        "or a bomb of one rank"
    ),
    6: _("six cards make three pairs in a row, two triples in a row, or a bomb of one rank"),
}


def card_label(card: int) -> str:
    """A card as the table writes it: ♠3, ♥10, 小王, 大王."""
    if card >= 52:
        return str(_("small joker") if card == 52 else _("big joker"))
    return f"{_SUITS[suit_of(card) or 0]}{_RANKS[rank_of(card)]}"


def _labels(cards: Sequence[int]) -> str:
    return " ".join(card_label(c) for c in sorted(cards, key=lambda c: (rank_of(c), c)))


class Explained(MatchError):
    """A refusal with its reason ``code`` and a message made for these cards."""

    def __init__(self, code: str, text: str) -> None:
        """Keep the engine's ``code`` and the specific, translated ``text``."""
        super().__init__(code)
        self._text = text

    @property
    def message(self) -> str:  # type: ignore[override]  # already translated
        """The specific reason."""
        return self._text


def _combo_word(type: str | None) -> str:
    word = TABLE_WORDS.get(type or "")
    return str(word) if word is not None else str(type or "")


def no_combination(
    cards: Sequence[int], rules: ComboRules, standing: dict[str, Any] | None
) -> Explained:
    """Why ``cards`` make no combination: the cards named, what their count could make, and,
    when a play stands, what must answer it."""
    n = len(cards)
    ranks = Counter(rank_of(c) for c in cards if not rules.is_wild(c))
    # the Guandan family (Bao 2 included) has these fixed shapes; the others their own
    shape = _SHAPES.get(n) if isinstance(rules, GuandanRules) else None
    if shape is None:
        shape = _("these cards are no single, pair, triple, chain or bomb of this game")
    parts = [
        str(
            _("%(cards)s make no combination: %(shape)s.")
            % {"cards": _labels(cards), "shape": shape}
        )
    ]
    if 2 <= n <= 4 and len(ranks) > 1:
        odd = [
            c for c in cards if not rules.is_wild(c) and rank_of(c) != ranks.most_common(1)[0][0]
        ]
        parts.append(
            ngettext(
                "%(odd)s is not of the same rank.", "%(odd)s are not of the same rank.", len(odd)
            )
            % {"odd": _labels(odd)}
        )
    if standing and standing.get("type"):
        count = len(standing.get("cards") or [])
        parts.append(
            str(
                _("On the table: a %(type)s of %(n)s cards; answer with a bigger one, or a bomb.")
                % {"type": _combo_word(standing["type"]), "n": count}
            )
        )
    return Explained("invalid_combo", " ".join(parts))


def explain(
    code: str,
    detail: str,
    cards: Sequence[int],
    combo_type: str | None,
    rules: ComboRules,
    observation: dict[str, Any],
) -> MatchError:
    """The engine's refusal ``code`` of a play of ``cards`` read as ``combo_type``, with a
    specific message where there is one to say (else the generic words of the code)."""
    standing = observation.get("standing")
    if code == "does_not_beat" and standing:
        said = _combo_word(combo_type)
        if standing.get("type") != combo_type:
            text = _(
                "Your %(mine)s cannot answer the %(theirs)s on the table: play a bigger "
                "%(theirs)s, or a bomb."
            ) % {"mine": said, "theirs": _combo_word(standing.get("type"))}
        else:
            text = _(
                "Your %(mine)s (%(cards)s) does not beat the %(theirs)s on the table (%(table)s)."
            ) % {
                "mine": said,
                "cards": _labels(cards),
                "theirs": _combo_word(standing.get("type")),
                "table": " ".join(_label_text(c) for c in standing.get("cards") or []),
            }
        return Explained(code, str(text))
    if code == "needs_initiative":
        twos = [c for c in cards if c < 52 and rank_of(c) == 0 and not rules.is_wild(c)]
        text = _(
            "%(twos)s: a natural 2 is played only with the initiative (主动出牌权), the little 2 "
            "rule. Play it once your own play has won a trick."
        ) % {"twos": _labels(twos) or "2"}
        return Explained(code, str(text))
    if code == "not_your_turn":
        return Explained(code, str(_("It is not your turn: wait until your seat is lit.")))
    return MatchError(code, detail)


def _label_text(card: str) -> str:
    """A card of the engine's notation (``"S3"``, ``"HT"``, ``"SB"``) as the table writes it."""
    try:
        return card_label(parse_card(card))
    except Exception:  # noqa: BLE001 - an unknown card is shown as it came
        return card
