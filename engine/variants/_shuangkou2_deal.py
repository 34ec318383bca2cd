"""Two-player Shuangkou (二人双扣, ``shuangkou2``) deal and match rules, for :mod:`engine.deal`.

What two-player Shuangkou changes in the generic trick loop (``docs/rules/shuangkou2.md``):

- Two decks with jokers are dealt into four hands of 27; two of them, drawn from the seed, go
  to the players. The other 54 cards are never part of the deal state, so no observation
  (nor the stored state) can show them: they exist only in the seed.
- One of the 54 dealt cards is marked (明牌, shown to both); its receiver leads the first trick
  of every deal.
- Two seats: after a pass the other player leads; the deal ends when a player is out.
- Settlement: :func:`engine.variants.shuangkou2.score_deal` (cards left x multiplier + bomb
  contributions); abandonment: :func:`engine.variants.shuangkou2.score_abandon`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.cards import card_str
from engine.cards import deal as deal_cards
from engine.combo import Combo
from engine.deal import Deal
from engine.outcome import OutcomeRefusal, refuse_unknown, whole
from engine.variants._points_deal import PointsDealRules, close_points_deal
from engine.variants.shuangkou2 import (
    BOMB_TYPES,
    Shuangkou2Rules,
    abandon_items,
    deal_items,
    points_of,
    score_deal,
)

if TYPE_CHECKING:  # engine.match imports this module
    from engine.match import Match


class Shuangkou2DealRules(PointsDealRules):
    """Two-player Shuangkou: two seats, wild jokers, line-counted bombs, points."""

    variant = "shuangkou2"
    seats = 2
    side_sizes = frozenset({(1, 1)})

    def team_of(self, deal: Deal, seat: int) -> int:
        """Each player is their own side."""
        return seat

    def jiefeng_seat(self, deal: Deal, seat: int) -> int:
        """Never used: the deal ends when a player is out."""
        return deal.next_holding(seat)

    def setup(self, deal: Deal) -> None:
        """Initialise the per-deal records (bombs played, as line counts per seat)."""
        deal.extra.setdefault("bombs", [[] for _ in range(deal.n)])

    @staticmethod
    def bombs(deal: Deal) -> list[list[int]]:
        """Line counts of the bombs each seat played in this deal."""
        bombs = deal.extra.get("bombs")
        if bombs is None:
            bombs = deal.extra["bombs"] = [[] for _ in range(deal.n)]
        return bombs

    def setup_position(self, deal: Deal, case: dict[str, Any]) -> None:
        """Conformance positions: nothing beyond the records."""
        self.setup(deal)

    def after_play(self, deal: Deal, seat: int, combo: Combo, was_lead: bool) -> bool:
        """Record the line count of a bomb played (for the multiplier and contributions)."""
        if combo.type in BOMB_TYPES:
            assert combo.lines is not None  # every Shuangkou bomb reads with its line count
            self.bombs(deal)[seat].append(combo.lines)
        return False

    def is_over(self, deal: Deal) -> bool:
        """The deal ends when a player empties their hand."""
        return bool(deal.finished)

    def settle(self, deal: Deal, order: list[int], stuck_end: bool) -> dict[str, Any]:
        """The winner gets ``b x p x m + b x (cw - cl)``, the loser the negation; ``breakdown``
        gives both terms per seat (:func:`~engine.variants.shuangkou2.score_items`)."""
        base = deal.options.get("base", 1)
        left = [deal.sizes[s] for s in range(deal.n)]
        bombs = self.bombs(deal)
        abandoned = deal.extra.get("abandoned")
        if abandoned is not None:
            other = 1 - abandoned
            held = Shuangkou2Rules.max_lines(Shuangkou2Rules.hand_counts(deal.hand(other)))
            items = abandon_items(abandoned, left, bombs, held, base)
            winner = other
        else:
            winner = order[0]
            items = deal_items(winner, left, bombs, base)
        return {
            "finish": [winner],
            "winner": winner,
            "cards_left": left,
            "bombs": [list(b) for b in bombs],
            "points": points_of(items),
            "breakdown": items,
            "abandoned": abandoned,
        }

    def abandon(self, deal: Deal, seat: int) -> None:
        """``seat`` abandons: the deal in progress ends, lost by that seat."""
        deal.extra["abandoned"] = seat
        deal.finish()

    def public_info(self, deal: Deal, seat: int | None) -> dict[str, Any]:
        """Bombs played (line counts per seat) and the marked card."""
        return {
            "bombs": [list(b) for b in self.bombs(deal)],
            "marked_card": deal.extra.get("marked_card"),
        }

    # -- real table -----------------------------------------------------------------------------
    def table_deal(self, outcome: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """A deal entered at a real table: ``winner``, ``cards_left`` (the loser's cards left)
        and ``bombs`` (per seat, line counts of the bombs played); scored by
        :func:`~engine.variants.shuangkou2.score_deal`."""
        refuse_unknown(outcome, ("winner", "cards_left", "bombs"))
        winner = whole(outcome.get("winner"), "winner", 0, 1)
        left = whole(outcome.get("cards_left"), "cards_left", 1, 27)
        bombs = outcome.get("bombs") or [[], []]
        if (
            not isinstance(bombs, list)
            or len(bombs) != 2
            or not all(isinstance(b, list) and len(b) <= 27 for b in bombs)
        ):
            raise OutcomeRefusal("bad_bombs", "bombs", "bombs gives a list per seat")
        lines = [[whole(x, "bombs", 4, 12) for x in b] for b in bombs]
        cards_left = [0, 0]
        cards_left[1 - winner] = left
        points = score_deal(winner, cards_left, lines, int(options.get("base", 1)))
        return {"finish": [winner], "points": points, "bombs": lines, "cards_left": cards_left}

    # -- match hooks (called by engine.match.Match) --------------------------------------------
    def deal_hands(self, seed: int | str, deal_no: int) -> tuple[list[list[int]], int, int]:
        """The two played hands of deal ``deal_no``, the marked card and its receiver. Four
        hands of 27 are dealt from 108 cards; two drawn at random are played."""
        dealt = deal_cards(f"{seed}/{deal_no}", players=2, decks=2, jokers=True, hands=4)
        rng = random.Random(f"{seed}/{deal_no}/shuangkou2")
        chosen = rng.sample(range(4), 2)
        hands = [list(dealt.hands[i]) for i in chosen]
        pos = rng.randrange(sum(len(h) for h in hands))
        seat = 0 if pos < len(hands[0]) else 1
        card = hands[seat][pos if seat == 0 else pos - len(hands[0])]
        return hands, card, seat

    def new_deal(self, match: Match) -> Deal:
        """The match's next deal; the marked card's receiver leads."""
        hands, card, seat = self.deal_hands(match.seed, match.deal_no)
        deal = Deal(self, hands, None, match.options)
        self.setup(deal)
        deal.extra["marked_card"] = card_str(card)
        deal.give_lead(seat, "first")
        match.marked_card = card
        return deal

    def match_sanction(self, match: Match, target: int, sanction: str) -> None:
        """``forfeit`` is abandonment (逃跑): ``target`` loses the deal in progress (scored by
        :func:`~engine.variants.shuangkou2.score_abandon`) and the match. Other cards change no
        points."""
        if sanction == "forfeit":
            self.abandon(match.deal, target)
            close_points_deal(match, self)

    def rated_sides(
        self, score: Sequence[int], deals: Sequence[dict[str, Any]]
    ) -> tuple[list[list[int]], list[int]] | None:
        """Each player is a side, scored by their match total."""
        return [[0], [1]], list(score)

    def conformance_case(self, case: dict[str, Any]) -> Any:
        """``score`` cases (a deal won by ``winner``)."""
        if case["kind"] == "score":
            base = case.get("options", {}).get("base", 1)
            return {"points": score_deal(case["winner"], case["cards_left"], case["bombs"], base)}
        return super().conformance_case(case)
