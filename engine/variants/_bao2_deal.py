"""Bao 2 (保2) deal and match rules (``docs/rules/bao2.md``), plugged into :mod:`engine.deal`.

Guandan's flow (:mod:`engine.variants._guandan_deal`) plus: the little-2 restriction and stuck players
(§5), 保2 plays, iron wind (铁风盘) and the immune window (§6), 关2 and the 24-level match with
2A attempts, excess lowering and 2A protection (§7), and its tribute details (§8).
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action, Refusal
from engine.combo import Combo
from engine.deal import Deal
from engine.outcome import OutcomeRefusal, twos
from engine.variants._guandan_deal import GuandanDealRules, add_item, earned_items, void_attempt

#: Card ids of the natural 2s (♠2 ♥2 ♣2 ♦2); no 2 is ever a level card in Bao 2.
TWOS = (0, 13, 26, 39)
#: Ranks a return may have: 3..10 (rank indexes 1..8), bao2.md §8.
RETURN_RANKS = range(1, 9)


def two_value(card: int, colour_twos: bool) -> int:
    """Levels one natural 2 is worth in 保2 and 关2: 1, or under ``colour_twos`` 2 for ♥2/♦2
    and 1 for ♠2/♣2 (二十)."""
    if colour_twos and card in (13, 39):
        return 2
    return 1


def closed_twos(order: list[int], twos_left: list[int], stuck_end: bool) -> list[int]:
    """关2 (§7.3): levels each team earns from natural 2s closed in hands, given the finishing
    order (all four seats) and the levels the 2s left in each seat's hand are worth
    (:func:`two_value`). After 1st and 2nd every 2 left in both losing hands is closed for the
    winners; otherwise the last player's 2s are closed for their opponents. When the deal ended
    with every remaining player stuck, each stuck player's 2s are closed for that player's
    opponents instead (§6.4). Partners sit opposite: team = seat % 2."""
    closed = [0, 0]
    w = order[0] % 2
    if stuck_end:
        for s in order:
            closed[1 - s % 2] += twos_left[s]
    elif order[1] % 2 == w:
        closed[w] += sum(twos_left[s] for s in order[2:])
    else:
        last = order[-1]
        closed[1 - last % 2] += twos_left[last]
    return closed


class Bao2DealRules(GuandanDealRules):
    """Bao 2: Guandan plus the little-2 restriction, 保2, 关2 and the immune window."""

    variant = "bao2"
    level_ranks = "3456789TJQKA"
    max_level = 23
    has_immune_window = True
    twos_need_initiative = True
    defaults: dict[str, Any] = {
        "colour_twos": False,
        "time_limit_minutes": 60,
        "first_action_seconds": 30,
        "action_seconds": 20,
        "a_attempts": 3,
        "show_history": False,
    }
    table_options = frozenset({"colour_twos", "time_limit_minutes"})
    table_fields = frozenset({"finish", "bao2", "immune", "twos_left", "stuck_end"})
    return_rule = "return a card of rank 3 to 10 that is not a 2 or a level card"

    # ------------------------------------------------------------------ little 2
    def may_play(self, deal: Deal, seat: int, combo: Combo) -> str | None:
        """Little-2 restriction (§5): a combo with a natural 2 needs initiative."""
        if not deal.initiative[seat]:
            for c in combo.cards:
                if c < 52 and c % 13 == 0:
                    return "needs_initiative"
        return None

    def playable_hand(self, deal: Deal, seat: int) -> list[int]:
        """Without initiative the natural 2s cannot take part in any play (§5)."""
        hand = deal.hand(seat)
        if deal.initiative[seat]:
            return hand
        return [c for c in hand if c >= 52 or c % 13]

    def is_stuck(self, deal: Deal, seat: int) -> bool:
        """A player who must lead holding only natural 2s without initiative is stuck (§5)."""
        if deal.initiative[seat]:
            return False
        h = deal.hands[seat]
        return h[0] + h[13] + h[26] + h[39] == deal.sizes[seat]

    def jiefeng_seat(self, deal: Deal, seat: int) -> int:
        """接风 (§6.1): the partner leads; a stuck partner is skipped by :meth:`Deal.give_lead`."""
        return super().jiefeng_seat(deal, seat)

    # ------------------------------------------------------------------ 保2
    def after_play(self, deal: Deal, seat: int, combo: Combo, was_lead: bool) -> bool:
        """保2 play (§6.2): a lead the leader holds because their previous play won a trick,
        that is their whole remaining hand and only natural 2s. A success (1st, or 2nd after
        the partner's 1st) earns one level per 2 and opens the immune window; in any case, if
        the deal goes on, it is an iron wind: the partner leads at once by 接风."""
        if not was_lead or deal.lead_kind != "trick" or deal.sizes[seat]:
            return False
        if not all(c < 52 and c % 13 == 0 for c in combo.cards):
            return False
        place = len(deal.finished)
        partner = self.partner(deal, seat)
        success = place == 1 or (place == 2 and deal.finished[0] == partner)
        team = self.team_of(deal, seat)
        over = self.is_over(deal)
        if success:
            colour = bool(deal.options.get("colour_twos", False))
            bonus = sum(two_value(c, colour) for c in combo.cards)
            deal.bao2[team] += bonus
            queue = [
                s
                for s in ((seat + i) % deal.n for i in range(1, deal.n))
                if self.team_of(deal, s) != team and deal.sizes[s] and not deal.stuck[s]
            ]
            if queue:
                deal.window = {"seat": seat, "queue": queue, "over": over}
                deal.phase = "immune"
                deal.turn = queue[0]
                deal.leading = False
                deal.to_respond = []
                return True
        self.after_window(deal, seat, over)
        return True

    def after_window(self, deal: Deal, seat: int, over: bool) -> None:
        """The window closed without an immune bomb: the deal ends, or iron wind (铁风盘)."""
        deal.window = None
        deal.phase = "play"
        if over:
            deal.finish()
        else:
            deal.give_lead(self.jiefeng_seat(deal, seat), "jiefeng")

    def validate_extra(self, deal: Deal, action: Action) -> Any:
        """Tribute and return as in Guandan, and the immune bomb (:meth:`validate_immune`)."""
        if action.kind == "immune":
            return self.validate_immune(deal, action)
        return super().validate_extra(deal, action)

    def execute_extra(self, deal: Deal, action: Action, plan: Any) -> None:
        """Tribute and return as in Guandan, and the immune bomb (:meth:`execute_immune`)."""
        if action.kind == "immune":
            self.execute_immune(deal, action, plan)
        else:
            super().execute_extra(deal, action, plan)

    def validate_immune(self, deal: Deal, action: Action) -> Any:
        """The immune bomb (§6.3): only in the window, by the seat whose turn it is, from the
        hand, and the cards must read as ``immune``."""
        if deal.phase != "immune":
            raise Refusal("wrong_phase", "the immune bomb is played only in the immune window")
        seat = action.seat
        assert seat is not None
        if seat != deal.turn:
            raise Refusal("not_your_turn", f"seat {deal.turn} is to act")
        hand = deal.hands[seat]
        need = [0] * 54
        for c in action.cards:
            need[c] += 1
            if need[c] > hand[c]:
                raise Refusal("not_in_hand", "those cards are not all in the hand")
        combo = deal.combos.read_as(action.cards, "immune")
        if combo is None:
            raise Refusal("invalid_combo", "an immune bomb is 8 natural cards of a rank + 2 wilds")
        return combo

    def execute_immune(self, deal: Deal, action: Action, plan: Any) -> None:
        """Play the immune bomb: the 保2 team's bonuses are voided; no iron wind; the bomber
        leads next without initiative (their partner, as by 接风, if it was their last cards)."""
        window = deal.window
        assert window is not None and action.seat is not None
        bomber = action.seat
        deal.remove_cards(bomber, plan.cards)
        deal.trick.append((bomber, plan))
        deal.bao2[self.team_of(deal, window["seat"])] = 0
        deal.window = None
        deal.phase = "play"
        if window["over"]:
            deal.finish()
            return
        if not deal.sizes[bomber]:
            deal.finished.append(bomber)
            if self.is_over(deal):
                deal.finish()
                return
            deal.give_lead(self.jiefeng_seat(deal, bomber), "jiefeng")
        else:
            deal.give_lead(bomber, "jiefeng")

    def window_pass(self, deal: Deal, seat: int) -> None:
        """A pass in the immune window: the next opponent decides, or the window closes."""
        window = deal.window
        assert window is not None
        window["queue"].pop(0)
        if window["queue"]:
            deal.turn = window["queue"][0]
        else:
            self.after_window(deal, window["seat"], window["over"])

    def extra_legal_actions(self, deal: Deal, seat: int) -> list[Action]:
        """In the immune window: pass, and the immune bombs the hand holds."""
        if deal.phase == "immune":
            if seat != deal.turn:
                return []
            out = [Action("pass", seat)]
            hand = deal.hands[seat]
            wild = self.wild(deal)
            if hand[wild] >= 2:
                for r in range(13):
                    ids = [s * 13 + r for s in range(4) if s * 13 + r != wild]
                    if sum(hand[c] for c in ids) >= 8:
                        for cards in _pick(hand, ids, 8):
                            combo = deal.combos.read_as(cards + [wild, wild], "immune")
                            if combo is not None:
                                out.append(Action("immune", seat, combo.cards, "immune"))
            return out
        return super().extra_legal_actions(deal, seat)

    def extra_to_move(self, deal: Deal) -> int | None:
        """Tribute/return: the first seat that owes; the immune window: its current seat."""
        if deal.phase == "immune":
            return deal.turn
        return super().extra_to_move(deal)

    def extra_timeout(self, deal: Deal, seat: int) -> Action | None:
        """Clock out in the window: pass."""
        if deal.phase == "immune":
            return Action("pass", seat) if seat == deal.turn else None
        return super().extra_timeout(deal, seat)

    # ------------------------------------------------------------------ tribute
    def assign_double_receivers(
        self, deal: Deal, trib: dict[str, Any], cards_left: dict[int, int]
    ) -> None:
        """Bao 2 double tribute: the receivers depend on the cards (decided when both are in)."""
        trib["receivers"] = [-1, -1]

    def tributes_in(self, deal: Deal) -> None:
        """Bao 2 double tribute (§8): the higher card goes to the 1st player and the lower to the
        2nd; equal ranks: each loser gives to the player before them (上家)."""
        trib = deal.tribute
        assert trib is not None
        if trib["double"]:
            values = [self.single_value(deal, c) for c in trib["paid"]]
            if values[0] == values[1]:
                trib["receivers"] = [(g - 1) % deal.n for g in trib["givers"]]
            else:
                hi = 0 if values[0] > values[1] else 1
                trib["receivers"] = [trib["first"] if i == hi else trib["second"] for i in range(2)]
        super().tributes_in(deal)

    def valid_return(self, deal: Deal, seat: int) -> list[int]:
        """A return is of rank 3..10, not a 2 and not a level card; if the receiver holds none,
        any card that is not a wild card (§8)."""
        level = self.level_ranks.index(deal.level or "3") + 1  # rank index of the level
        hand = set(deal.hand(seat))
        ok = sorted(c for c in hand if c < 52 and c % 13 in RETURN_RANKS and c % 13 != level)
        if ok:
            return ok
        wild = self.wild(deal)
        return sorted(c for c in hand if c != wild)

    # ------------------------------------------------------------------ settlement
    def settle(self, deal: Deal, order: list[int], stuck_end: bool) -> dict[str, Any]:
        """Base (§7.1), 保2 bonuses (§7.2) and 关2 (§7.3): after 1st and 2nd every natural 2
        left in both losing hands is closed for the winners; otherwise the last player's 2s
        are closed for their opponents. When the deal ended with every remaining player stuck,
        each stuck player's 2s are closed for that player's opponents instead."""
        out = super().settle(deal, order, stuck_end)
        colour = bool(deal.options.get("colour_twos", False))

        def twos(seat: int) -> int:
            h = deal.hands[seat]
            return sum(h[c] * two_value(c, colour) for c in TWOS)

        left = [twos(s) if deal.sizes[s] else 0 for s in range(deal.n)]
        out["closed"] = closed_twos(order, left, stuck_end)
        return out

    def public_info(self, deal: Deal, seat: int | None) -> dict[str, Any]:
        """Tribute view, the immune window (who is deciding, never what they hold) and the
        保2 levels earned so far."""
        out = super().public_info(deal, seat)
        if deal.window is not None:
            out["immune_window"] = {
                "bao2_seat": deal.window["seat"],
                "deciding": deal.turn,
            }
        out["bao2"] = list(deal.bao2)
        return out

    # ------------------------------------------------------------------ real table
    def table_bonuses(
        self, outcome: dict[str, Any], finish: list[int], options: dict[str, Any]
    ) -> tuple[list[int], list[int]]:
        """保2 and 关2 of a deal entered at a real table: ``bao2`` (per team, the 2s of its 保2
        play(s) as ``{"twos": n, "red": r}``; only the 1st player's team), ``immune`` (the
        opponents' immune bomb voided that 保2), ``twos_left`` (per seat, the natural 2s left
        in hand; a player who went out holds none) and ``stuck_end`` (the deal ended with every
        remaining player stuck). 2s are weighted by :func:`two_value`, 关2 goes by
        :func:`closed_twos`; at most eight 2s, four of them red."""
        w = finish[0] % 2
        colour = bool(options.get("colour_twos", False))

        def worth(n: int, r: int) -> int:
            return r * two_value(13, colour) + (n - r) * two_value(0, colour)

        bao2 = [0, 0]
        total = red_total = 0
        bonus = outcome.get("bao2") or [None, None]
        if not isinstance(bonus, list) or len(bonus) != 2:
            raise OutcomeRefusal("bad_twos", "bao2", "bao2 gives one entry per team")
        for t in (0, 1):
            n, r = twos(bonus[t], "bao2")
            if n and t != w:
                raise OutcomeRefusal(
                    "bao2_not_first", "bao2", "only the team of the 1st player can score 保2"
                )
            bao2[t] = worth(n, r)
            total += n
            red_total += r
        immune = outcome.get("immune", False)
        if not isinstance(immune, bool):
            raise OutcomeRefusal("bad_immune", "immune", "immune is true or false")
        if immune:
            if not bao2[w]:
                raise OutcomeRefusal(
                    "immune_without_bao2", "immune", "an immune bomb answers a 保2"
                )
            bao2 = [0, 0]
        stuck_end = outcome.get("stuck_end", False)
        if not isinstance(stuck_end, bool):
            raise OutcomeRefusal("bad_stuck", "stuck_end", "stuck_end is true or false")
        left_in = outcome.get("twos_left") or [None] * 4
        if not isinstance(left_in, list) or len(left_in) != 4:
            raise OutcomeRefusal("bad_twos", "twos_left", "twos_left gives one entry per seat")
        unfinished = finish[2:] if finish[1] % 2 == w else finish[3:]
        left = [0, 0, 0, 0]
        for seat in range(4):
            n, r = twos(left_in[seat], "twos_left")
            if n and seat not in unfinished and not (stuck_end and seat != finish[0]):
                raise OutcomeRefusal(
                    "twos_of_finished", "twos_left", "a player who went out holds no 2s"
                )
            left[seat] = worth(n, r)
            total += n
            red_total += r
        if total > 8 or red_total > 4:
            raise OutcomeRefusal(
                "too_many_twos", "twos_left", "there are only eight 2s (four red) in play"
            )
        return bao2, closed_twos(finish, left, stuck_end)

    # ------------------------------------------------------------------ match progression
    def settle_levels(
        self,
        levels: list[int],
        level_team: int | None,
        attempts: list[int],
        finish: list[int],
        bao2: list[int],
        closed: list[int],
        options: dict[str, Any],
    ) -> dict[str, Any]:
        """Bao 2 level progression (§7.4–7.7): the level team's 2A attempt (pass with 1st and
        partner 2nd/3rd; after ``a_attempts`` (3) failures back to level 0, earning nothing);
        rises capped at 23 with the excess taken off the other team (floor 0); a team already at
        23 earns only excess; a team at 23 after the rises is never lowered (2A protection)."""
        before = list(levels)
        levels = list(levels)
        attempts = list(attempts)
        earn, breakdown = earned_items(finish, bao2, closed)
        winner = self._attempt(levels, level_team, attempts, finish, earn, options)
        void_attempt(before, levels, level_team, breakdown)
        top = self.max_level
        excess = [0, 0]
        for t in (0, 1):
            if before[t] == top and levels[t] == top:
                excess[t] = earn[t]
            else:
                total = levels[t] + earn[t]
                excess[t] = max(0, total - top)
                levels[t] = min(top, total)
            add_item(breakdown[t], "cap", -excess[t])
        for t in (0, 1):
            other = 1 - t
            if excess[t] and levels[other] != top:
                lowered = max(0, levels[other] - excess[t])
                add_item(breakdown[other], "excess", lowered - levels[other])
                levels[other] = lowered
        return {
            "levels": levels,
            "attempts": attempts,
            "winner": winner,
            "next_level_team": finish[0] % 2,
            "breakdown": breakdown,
        }


def _pick(hand: list[int], ids: list[int], k: int) -> list[list[int]]:
    """Distinct multisets of ``k`` cards among ``ids`` (with the counts the hand holds)."""
    out: list[list[int]] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if left == 0:
            out.append(list(acc))
            return
        if i == len(ids):
            return
        c = ids[i]
        for take in range(min(hand[c], left), -1, -1):
            rec(i + 1, left - take, acc + [c] * take)

    rec(0, k, [])
    return out
