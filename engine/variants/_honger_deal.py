"""Red Two (南平红二, ``honger``) deal and match rules, plugged into :mod:`engine.deal`.

What Red Two changes in the generic trick loop (``docs/rules/honger.md``):

- 104 cards without jokers, 26 each; the first deal's leader is drawn from the seed, later
  deals are led by the previous deal's 1st player (the solo player after a surrender or a
  compare).
- Partnerships are decided by the two ♥2 and are **hidden**: the sides live in
  ``deal.extra["sides"]``, which no observation shows before the deal is over; observations
  only say which seats have played a ♥2 (``h2_played``). Turn order, 接风 and card counts do not
  depend on the sides, so they leak nothing.
- A player dealt both ♥2 (独抱红二) chooses ``solo``, ``surrender`` or ``compare`` before the
  first lead (phase ``choose``; that seat is to act, ``lead`` false). A clock running out in
  that phase chooses ``solo``.
- 接风 goes to the next player in turn order who holds cards.
- The deal ends when one player holds cards, or when every player of one side is out.
- Settlement in points: :func:`engine.variants.honger.score_partnership` / ``score_solo`` /
  ``score_surrender`` / ``score_compare`` plus big-bomb rewards; a match is ``deals`` deals
  (:class:`~engine.variants._points_deal.PointsDealRules`).
- Rated results: :meth:`HongerDealRules.rated_sides` (the sides a finished match is rated by:
  those revealed by its last deal played to its end) and :func:`red_two_sides`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.actions import Action, Refusal
from engine.cards import cards_str, parse_cards
from engine.cards import deal as deal_cards
from engine.combo import Combo
from engine.deal import Deal
from engine.outcome import OutcomeRefusal, finish_order, refuse_unknown, whole
from engine.variants._points_deal import PointsDealRules
from engine.variants.honger import (
    GAME_RANK,
    H2,
    big_bomb_rewards,
    biggest_bomb,
    combo_fan,
    pay_compare,
    pay_surrender,
    rewards_of_fans,
    score_compare,
    score_partnership,
    score_solo,
    score_surrender,
)

if TYPE_CHECKING:  # engine.match imports this module
    from engine.match import Match

CHOICES = ("solo", "surrender", "compare")


class HongerDealRules(PointsDealRules):
    """Red Two: four players, hidden partnerships by the two ♥2, points with fans."""

    variant = "honger"
    seats = 4
    #: Two against two, or the solo player against the other three.
    side_sizes = frozenset({(2, 2), (1, 3), (3, 1)})

    # -- sides (hidden) -------------------------------------------------------------------------
    def state(self, deal: Deal) -> dict[str, Any]:
        """The deal's Red Two records (``deal.extra``), set up from the hands if a deal was
        built without :meth:`new_deal` / a conformance position."""
        extra = deal.extra
        if "sides" not in extra:
            hands = [deal.hand(s) for s in range(deal.n)]
            for trick in deal.history + [deal.trick]:
                for seat, combo in trick:
                    if combo is not None:
                        hands[seat].extend(combo.cards)
            self.setup_sides(deal, hands, None)
            if extra["mode"] == "choosing" and deal.phase != "choose":
                extra["mode"] = "solo"  # play began without the choice: 1 against 3
        return extra

    def sides(self, deal: Deal) -> list[list[int]]:
        """The two sides of the deal (hidden state: never put it in an observation before the
        deal is over). Solo: ``[[solo], others]``; otherwise the ♥2 holders, then the rest."""
        sides: list[list[int]] = self.state(deal)["sides"]
        return sides

    def team_of(self, deal: Deal, seat: int) -> int:
        """Index of the seat's side in :meth:`sides` (hidden information)."""
        return 0 if seat in self.sides(deal)[0] else 1

    @staticmethod
    def setup_sides(
        deal: Deal,
        hands: list[list[int]],
        sides: list[list[int]] | None,
        past_choice: bool = False,
    ) -> None:
        """Decide the sides from the hands' ♥2 (or take ``sides`` from a conformance position)
        and open the choice phase if one seat holds both ♥2, unless the deal is
        ``past_choice`` (a position led otherwise than ``first``: that seat plays solo). A side
        of one seat is a solo deal of that seat. Raises ``ValueError`` for sides that do not
        split the four seats in two (2 + 2 or 1 + 3)."""
        holders = [s for s, h in enumerate(hands) for c in h if c == H2]
        extra = deal.extra
        extra["fans"] = [0] * deal.n
        extra["h2_played"] = [0] * deal.n
        extra["mode"] = "partnership"
        extra["solo"] = None
        extra["rewards"] = big_bomb_rewards(hands, deal.options.get("base", 1))
        if sides is None:
            if len(holders) == 2 and holders[0] != holders[1]:
                first = sorted(holders)
                sides = [first, [s for s in range(deal.n) if s not in first]]
            elif len(holders) == 2:
                solo = holders[0]
                sides = [[solo], [s for s in range(deal.n) if s != solo]]
                extra["mode"] = "solo" if past_choice else "choosing"
                extra["solo"] = solo
            else:
                raise ValueError("a Red Two deal needs the two H2 in the hands (or sides)")
        else:
            sides = [list(side) for side in sides]
            if len(sides) != 2 or sorted(sides[0] + sides[1]) != list(range(deal.n)):
                raise ValueError("Red Two sides split the four seats in two")
            lone = [side[0] for side in sides if len(side) == 1]
            if lone:  # conformance README: a side of one seat is a solo deal of that seat
                extra["mode"] = "solo"
                extra["solo"] = lone[0]
        extra["sides"] = [list(s) for s in sides]

    def start(self, deal: Deal, leader: int, lead_kind: str = "first") -> None:
        """Start play with ``leader``, or the choice phase first if a seat holds both ♥2."""
        deal.extra["leader"] = leader
        if deal.extra["mode"] == "choosing":
            deal.phase = "choose"
            deal.turn = deal.extra["solo"]
            deal.leading = False
        else:
            deal.give_lead(leader, lead_kind)

    def setup_position(self, deal: Deal, case: dict[str, Any]) -> None:
        """Conformance positions: ``sides`` may be given when the hands hold no ♥2; a seat
        holding both ♥2 in a position not led ``first`` is past the choice (honger.md §2)."""
        hands = [deal.hand(s) for s in range(deal.n)]
        past_choice = case.get("lead_kind", "first") != "first"
        self.setup_sides(deal, hands, case.get("sides"), past_choice)
        if deal.extra["mode"] == "choosing":
            self.start(deal, case["leader"], case.get("lead_kind", "first"))

    # -- play -----------------------------------------------------------------------------------
    def jiefeng_seat(self, deal: Deal, seat: int) -> int:
        """接风 goes to the next player in turn order who holds cards (not the partner)."""
        return deal.next_holding(seat)

    def after_play(self, deal: Deal, seat: int, combo: Combo, was_lead: bool) -> bool:
        """Count the fans of bombs played and record a ♥2 played (which reveals its holder)."""
        extra = self.state(deal)
        if combo.type == "bomb":
            extra["fans"][seat] += combo_fan(combo)
        if H2 in combo.cards:
            extra["h2_played"][seat] += combo.cards.count(H2)
        return False

    def is_over(self, deal: Deal) -> bool:
        """The deal ends when only one player holds cards, or every player of a side is out."""
        if sum(1 for k in deal.sizes if k) <= 1:
            return True
        done = set(deal.finished)
        return any(all(s in done for s in side) for side in self.sides(deal))

    # -- the choice (独打 / 投降 / 比炸弹) ------------------------------------------------------
    def validate_extra(self, deal: Deal, action: Action) -> Any:
        """A ``choose`` is accepted only in the choice phase, from the holder of both ♥2."""
        if action.kind != "choose" or deal.phase != "choose":
            raise Refusal("wrong_phase", f"no {action.kind} in the {deal.phase} phase")
        if action.seat != self.state(deal)["solo"]:
            raise Refusal("not_your_turn", f"seat {self.state(deal)['solo']} chooses")
        if action.choice not in CHOICES:
            raise Refusal("invalid_action", f"unknown choice {action.choice!r}")
        return action.choice

    def execute_extra(self, deal: Deal, action: Action, plan: Any) -> None:
        """``solo``: play 1 against 3; ``surrender`` / ``compare``: the deal ends at once."""
        extra = self.state(deal)
        extra["mode"] = plan
        if plan == "solo":
            deal.give_lead(extra["leader"], "first")
        else:
            deal.finish()

    def extra_to_move(self, deal: Deal) -> int | None:
        """In the choice phase, the holder of both ♥2."""
        return self.state(deal)["solo"] if deal.phase == "choose" else deal.turn

    def extra_legal_actions(self, deal: Deal, seat: int) -> list[Action]:
        """The three choices, for the holder of both ♥2."""
        if deal.phase != "choose" or seat != self.state(deal)["solo"]:
            return []
        return [Action("choose", seat, choice=c) for c in CHOICES]

    def extra_timeout(self, deal: Deal, seat: int) -> Action | None:
        """A clock running out in the choice phase chooses ``solo`` (play on)."""
        if deal.phase == "choose" and seat == self.state(deal)["solo"]:
            return Action("choose", seat, choice="solo")
        return None

    # -- settlement -----------------------------------------------------------------------------
    def settle(self, deal: Deal, order: list[int], stuck_end: bool) -> dict[str, Any]:
        """Points per seat (rules §5); big-bomb rewards in partnership and solo deals;
        ``breakdown`` per seat: the deal's points by its ``mode`` (with the seat's ``fans``)
        and the ``reward``, summing to ``points``."""
        extra = self.state(deal)
        base = deal.options.get("base", 1)
        mode = extra["mode"]
        solo = extra["solo"]
        fans = extra["fans"]
        hands = [deal.hand(s) for s in range(deal.n)]
        result: dict[str, Any] = {"mode": mode, "sides": extra["sides"], "fans": list(fans)}
        if mode in ("surrender", "compare"):
            fn = score_surrender if mode == "surrender" else score_compare
            points = fn(solo, hands, base)
            result["finish"] = []
            result["leader_next"] = solo
            if mode == "compare":
                result["bombs"] = {
                    str(s): cards_str(_biggest_bomb_cards(hands[s])) for s in range(4)
                }
            result["rewards"] = [0] * deal.n
        else:
            finish = list(deal.finished)
            if mode == "solo":
                points = score_solo(solo, finish, fans, base)
            else:
                points = score_partnership(extra["sides"], finish, fans, base)
            rewards = extra["rewards"]
            points = [p + r for p, r in zip(points, rewards, strict=True)]
            result["finish"] = order
            result["rewards"] = list(rewards)
            result["leader_next"] = order[0]
        result["points"] = points
        result["breakdown"] = [
            _seat_items(mode, p - r, fans[s], r)
            for s, (p, r) in enumerate(zip(points, result["rewards"], strict=True))
        ]
        result["cards_left"] = [deal.sizes[s] for s in range(deal.n)]
        return result

    def public_info(self, deal: Deal, seat: int | None) -> dict[str, Any]:
        """What anyone may know: seats that played a ♥2, the solo player once the choice phase
        shows them, fans of bombs played; the sides only once the deal is over."""
        extra = self.state(deal)
        info: dict[str, Any] = {
            "h2_played": list(extra["h2_played"]),
            "solo": extra["solo"],
            "mode": extra["mode"] if extra["mode"] != "partnership" else None,
            "fans": list(extra["fans"]),
        }
        if deal.phase == "over":
            info["sides"] = extra["sides"]
        return info

    # -- real table -----------------------------------------------------------------------------
    def table_deal(self, outcome: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """A deal entered at a real table: ``mode`` (``partnership`` with ``h2`` the two seats
        holding ♥2, ``solo`` with ``solo``, ``surrender`` / ``compare`` with ``solo`` and
        ``receiver`` and for a compare ``fans``; a compare the solo player won has no
        ``receiver``), ``finish``, ``fans`` (per seat, fans of the bombs played) and
        ``dealt_fans`` (per seat, fan of the biggest bomb dealt, for big-bomb rewards)."""
        refuse_unknown(outcome, ("mode", "h2", "solo", "receiver", "finish", "fans", "dealt_fans"))
        base = int(options.get("base", 1))
        mode = outcome.get("mode", "partnership")
        if mode not in ("partnership", "solo", "surrender", "compare"):
            raise OutcomeRefusal(
                "bad_mode", "mode", "mode is partnership, solo, surrender or compare"
            )
        fans_in = outcome.get("fans") or [0, 0, 0, 0]
        if not isinstance(fans_in, list) or len(fans_in) != 4:
            raise OutcomeRefusal("bad_fans", "fans", "fans gives a number per seat")
        fans = [whole(f, "fans", 0, 40) for f in fans_in]
        record: dict[str, Any] = {"mode": mode}
        if mode == "partnership":
            h2 = outcome.get("h2")
            if (
                not isinstance(h2, list)
                or len(h2) != 2
                or len({whole(s, "h2", 0, 3) for s in h2}) != 2
            ):
                raise OutcomeRefusal("bad_h2", "h2", "name the two seats that held ♥2")
            sides = [sorted(h2), sorted(s for s in range(4) if s not in h2)]
            finish = finish_order(outcome.get("finish"), self.seats)
            if not finish:
                raise OutcomeRefusal("bad_finish", "finish", "give the finishing order")
            points = score_partnership(sides, finish, fans, base)
            record.update(sides=sides, finish=finish)
        else:
            solo = whole(outcome.get("solo"), "solo", 0, 3)
            record["solo"] = solo
            if mode == "solo":
                finish = finish_order(outcome.get("finish"), self.seats)
                if not finish:
                    raise OutcomeRefusal("bad_finish", "finish", "give the finishing order")
                points = score_solo(solo, finish, fans, base)
                record["finish"] = finish
            else:
                receiver = outcome.get("receiver")
                if receiver is None and mode == "compare":
                    return {**record, "points": [0, 0, 0, 0], "rewards": [0, 0, 0, 0]}
                receiver = whole(receiver, "receiver", 0, 3)
                if receiver == solo:
                    raise OutcomeRefusal("bad_receiver", "receiver", "the solo player pays")
                record["receiver"] = receiver
                if mode == "surrender":
                    points = pay_surrender(solo, receiver, base)
                else:
                    points = pay_compare(solo, receiver, fans[receiver], base)
                return {**record, "points": points, "rewards": [0, 0, 0, 0]}
        dealt = outcome.get("dealt_fans") or [0, 0, 0, 0]
        if not isinstance(dealt, list) or len(dealt) != 4:
            raise OutcomeRefusal("bad_fans", "dealt_fans", "dealt_fans gives a number per seat")
        rewards = rewards_of_fans([whole(f, "dealt_fans", 0, 5) for f in dealt], base)
        points = [p + r for p, r in zip(points, rewards, strict=True)]
        return {**record, "points": points, "rewards": rewards, "fans": fans}

    # -- match hooks (called by engine.match.Match) --------------------------------------------
    def deal_hands(self, seed: int | str, deal_no: int) -> tuple[list[list[int]], int]:
        """The hands of deal ``deal_no`` (26 each from 104 cards) and the seat drawn to lead
        if it is the match's first deal."""
        dealt = deal_cards(f"{seed}/{deal_no}", players=4, decks=2, jokers=False)
        first = random.Random(f"{seed}/{deal_no}/leader").randrange(4)
        return [list(h) for h in dealt.hands], first

    def new_deal(self, match: Match) -> Deal:
        """The match's next deal: the first is led by a seat drawn from the seed, later ones by
        the previous deal's 1st player (the solo player after a surrender or a compare)."""
        hands, first = self.deal_hands(match.seed, match.deal_no)
        leader = match.deals[-1]["leader_next"] if match.deals else first
        deal = Deal(self, hands, None, match.options)
        self.setup_sides(deal, hands, None)
        self.start(deal, leader)
        return deal

    # -- rated result ---------------------------------------------------------------------------
    def rated_sides(
        self, score: Sequence[int], deals: Sequence[dict[str, Any]]
    ) -> tuple[list[list[int]], list[int]] | None:
        """The sides of a finished Red Two match for a rating, from its deal summaries
        (``Match.deals``), by :func:`red_two_sides`.

        * "The opposing side as revealed at the end" is the sides of the **last deal played to
          its end** (``deals[-1]["sides"]``, shown to everyone when that deal finished). A deal
          cut short by a forfeit or by the time limit revealed nothing, so it does not count.
        * A partnership deal gives 2 against 2 (the two ♥2 holders against the others). A solo
          deal (独打, or a surrender / compare by the seat dealt both ♥2) gives **1 against 3**.
        * Each side's score is the sum of its players' match totals; Red Two points are
          zero-sum, so the side ahead wins and equal sums are a draw.
        * A match in which no deal finished (forfeited or out of time in the first deal)
          revealed no sides and is not rated: ``None``.
        """
        if not deals:
            return None
        revealed = deals[-1].get("sides")
        if not revealed:
            return None
        return red_two_sides(score, revealed[0])

    # -- conformance ----------------------------------------------------------------------------
    def conformance_case(self, case: dict[str, Any]) -> Any:
        """``fan`` (of a bomb) and ``score`` (a partnership or solo deal) cases."""
        kind = case["kind"]
        if kind == "fan":
            combo = self.combo_rules(None).read_as(parse_cards(case["cards"]), "bomb")
            return 0 if combo is None else combo_fan(combo)
        if kind == "score":
            base = case.get("options", {}).get("base", 1)
            if "solo" in case:
                points = score_solo(case["solo"], case["finish"], case["fans"], base)
            else:
                points = score_partnership(case["sides"], case["finish"], case["fans"], base)
            return {"points": points}
        return super().conformance_case(case)


def _seat_items(mode: str, points: int, fans: int, reward: int) -> list[dict[str, Any]]:
    """One seat's breakdown: the points of the deal's mode and, if any, the big-bomb reward."""
    items: list[dict[str, Any]] = [{"reason": mode, "points": points, "fans": fans}]
    if reward:
        items.append({"reason": "reward", "points": reward})
    return items


def red_two_sides(
    seat_totals: Sequence[int], revealed_side: Sequence[int]
) -> tuple[list[list[int]], list[int]]:
    """The two sides (seat lists) and side scores by which a Red Two match is rated.

    Partnerships are hidden and change every deal, while the match is scored per seat; a
    player is rated against the opposing side *as revealed at the end*: ``revealed_side``
    holds the seats of one side of the last deal (the two ♥2 holders, or the solo player
    alone), the other seats form the other side. A side's score is the sum of its players'
    match totals. Raises ``ValueError`` for totals that are not four or seats that do not make
    two sides (2 + 2, 1 + 3 or 3 + 1).
    """
    if len(seat_totals) != 4:
        raise ValueError("a Red Two result needs four totals")
    first = sorted(set(revealed_side))
    if (
        len(first) != len(revealed_side)
        or len(first) not in (1, 2, 3)
        or not all(isinstance(seat, int) and 0 <= seat < 4 for seat in first)
    ):
        raise ValueError("a rated result needs exactly two sides")
    second = [seat for seat in range(4) if seat not in first]
    score = sum(seat_totals[seat] for seat in first)
    return [first, second], [score, sum(seat_totals) - score]


def _biggest_bomb_cards(hand: list[int]) -> list[int]:
    """The cards of the biggest bomb in a hand (shown in a compare), or ``[]``."""
    best = biggest_bomb(hand)
    if best is None:
        return []
    return sorted(c for c in hand if GAME_RANK[c] == best[1])
