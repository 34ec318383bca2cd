"""A reviewed decision in plain words, in the active language ("这里出对K比出单3更好：预计多升 1.0 级")."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from matches.announcements import spoken_combo
from reviews.analysis import MATCH_WEIGHT, cost, costliest

#: Suits and ranks as a card is written for people (the engine's notation: ``SK``, ``HT``,
#: ``SB`` the small joker, ``HR`` the big one).
_SUITS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def card_words(card: str) -> str:
    """One card for people: ``♠K``, ``♥10``, or the joker's name."""
    if card == "SB":
        return pgettext("card", "small joker")
    if card == "HR":
        return pgettext("card", "big joker")
    rank = card[1:]
    return _SUITS.get(card[:1], card[:1]) + ("10" if rank == "T" else rank)


def move_words(move: dict[str, Any]) -> str:
    """A move as the review says it: "playing a pair of K (♠K ♥K)" or "passing"."""
    if move.get("kind") == "pass":
        return pgettext("review", "passing")
    combo = spoken_combo(str(move.get("type") or ""), move.get("key")) or str(move.get("type"))
    cards = " ".join(card_words(c) for c in move.get("cards") or ())
    return pgettext("review", "playing %(combo)s (%(cards)s)") % {"combo": combo, "cards": cards}


def _number(x: float) -> str:
    return f"{x:.1f}"


def sentence(item: dict[str, Any]) -> str:
    """One costly decision in plain words: what was better, and by how much (mean ± standard
    error over the sampled worlds)."""
    values = {"better": move_words(item["best"]), "played": move_words(item["played"])}
    if "points" in item:
        values.update(points=_number(-item["points"]), se=_number(item["points_se"]))
        return (
            _(
                "Here %(better)s was better than %(played)s: an expected %(points)s points "
                "more (± %(se)s)."
            )
            % values
        )
    values.update(levels=_number(-item["levels"]), se=_number(item["levels_se"]))
    text = (
        _(
            "Here %(better)s was better than %(played)s: an expected %(levels)s levels more "
            "(± %(se)s)."
        )
        % values
    )
    win = -float(item.get("win", 0.0))
    if win >= 0.05 and win > float(item.get("win_se", 0.0)):
        text += " " + _("The chance that this deal wins the match: %(pct)s%% higher.") % {
            "pct": round(win * 100)
        }
    return text


def highlights(seat_review: dict[str, Any], n: int = 3) -> list[dict[str, Any]]:
    """The ``n`` costliest decisions of one seat's review, each with its ``text``, ``deal``
    (1-based) and ``step``."""
    out = []
    for item in costliest(seat_review.get("decisions") or [], n):
        out.append(
            {
                "step": item["step"],
                "deal": int(item.get("deal_no", 0)) + 1,
                "text": sentence(item),
                "cost": round(cost(item), 2),
            }
        )
    return out


__all__ = ["MATCH_WEIGHT", "card_words", "highlights", "move_words", "sentence"]
