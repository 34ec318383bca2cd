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


#: The kinds of decision a review names (``phase`` of a reviewed decision), in the game's
#: own words: 出牌, 进贡, 还贡, 免疫窗口, 红二的选择.
PHASE_NAMES = {
    "play": lambda: pgettext("review phase", "Play"),
    "tribute": lambda: pgettext("review phase", "Tribute"),
    "return": lambda: pgettext("review phase", "Return"),
    "immune": lambda: pgettext("review phase", "Immune window"),
    "choose": lambda: pgettext("review phase", "Choice with both ♥2"),
}

#: Red Two's choices (独打 / 投降 / 比炸弹) as the review says them.
CHOICE_WORDS = {
    "solo": lambda: pgettext("review", "playing solo"),
    "surrender": lambda: pgettext("review", "surrendering"),
    "compare": lambda: pgettext("review", "comparing bombs"),
}


def phase_name(phase: str | None) -> str:
    """The name of a kind of decision (``play`` when not said: reviews stored before the
    review looked beyond play)."""
    return PHASE_NAMES.get(phase or "play", PHASE_NAMES["play"])()


def move_words(move: dict[str, Any], phase: str | None = None) -> str:
    """A move as the review says it: "playing a pair of K (♠K ♥K)", "passing", "paying ♠A
    as tribute" (进贡♠A), "returning ♣3" (还贡♣3), "playing the immune bomb (…)", "not
    playing the immune bomb" (a pass in the immune window), "playing solo" …"""
    kind = move.get("kind")
    cards = " ".join(card_words(c) for c in move.get("cards") or ())
    if kind == "pass" and phase == "immune":
        return pgettext("review", "not playing the immune bomb")
    if kind == "pass":
        return pgettext("review", "passing")
    if kind == "tribute":
        return pgettext("review", "paying %(card)s as tribute") % {"card": cards}
    if kind == "return":
        return pgettext("review", "returning %(card)s") % {"card": cards}
    if kind == "immune":
        return pgettext("review", "playing the immune bomb (%(cards)s)") % {"cards": cards}
    if kind == "choose":
        words = CHOICE_WORDS.get(str(move.get("choice")))
        return words() if words is not None else str(move.get("choice"))
    combo = spoken_combo(str(move.get("type") or ""), move.get("key")) or str(move.get("type"))
    return pgettext("review", "playing %(combo)s (%(cards)s)") % {"combo": combo, "cards": cards}


def _number(x: float) -> str:
    return f"{x:.1f}"


def sentence(item: dict[str, Any]) -> str:
    """One costly decision in plain words: what was better, and by how much (mean ± standard
    error over the sampled worlds)."""
    phase = item.get("phase")
    values = {
        "better": move_words(item["best"], phase),
        "played": move_words(item["played"], phase),
    }
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
    (1-based), ``step``, ``phase`` and its name (``phase_name``: 出牌, 进贡, 还贡 …)."""
    out = []
    for item in costliest(seat_review.get("decisions") or [], n):
        phase = str(item.get("phase") or "play")
        out.append(
            {
                "step": item["step"],
                "deal": int(item.get("deal_no", 0)) + 1,
                "phase": phase,
                "phase_name": phase_name(phase),
                "text": sentence(item),
                "cost": round(cost(item), 2),
            }
        )
    return out


def decision_words(item: dict[str, Any]) -> dict[str, Any]:
    """A reviewed decision as the API gives it to its player: the stored item with its
    ``phase`` (``play`` for reviews stored before the review looked beyond play), the
    ``phase_name`` and the two moves in words (``played_text``, ``best_text``)."""
    phase = str(item.get("phase") or "play")
    return {
        **item,
        "phase": phase,
        "phase_name": phase_name(phase),
        "played_text": move_words(item["played"], phase),
        "best_text": move_words(item["best"], phase),
    }


__all__ = [
    "MATCH_WEIGHT",
    "card_words",
    "decision_words",
    "highlights",
    "move_words",
    "phase_name",
    "sentence",
]
