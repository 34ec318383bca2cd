"""Guandan (掼蛋) deal and match rules (``docs/rules/guandan.md``), for :mod:`engine.deal`.

:class:`GuandanDealRules` adds the tribute phase (进贡 / 还贡 / 抗贡) to the generic trick
loop, settles a deal (the 1st player's team rises 3, 2 or 1 levels) and runs the match's level
progression (levels 2..A, passing A, ``a_attempts``). Bao 2
(:mod:`engine.variants._bao2_deal`) is a subclass.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from engine.actions import Action, Refusal
from engine.cards import HR, RANKS, card_str
from engine.deal import Deal, DealRules
from engine.outcome import OutcomeRefusal, finish_order, refuse_unknown

#: The most deals a level game's deal limit (option ``deals``) may set.
MAX_DEALS = 100


class GuandanDealRules(DealRules):
    """Guandan: four players in fixed partnerships, tribute from the second deal."""

    variant = "guandan"
    seats = 4
    #: Rank names of the level indexes (index 0 = level 2, 12 = A).
    level_ranks = RANKS
    #: The highest level index (A).
    max_level = 12
    defaults: dict[str, Any] = {
        "a_attempts": 3,
        "time_limit_minutes": 0,
        "first_action_seconds": 30,
        "action_seconds": 20,
        "show_history": False,
    }
    table_options = frozenset({"time_limit_minutes"})
    #: Off unless set (docs/rules/guandan.md, 第十四条): ``deals``, the deal limit (计副制: after
    #: that many deals the higher level wins; 0 none); ``play_on_tie``, the match must have a
    #: winner (knockout): equal levels at the time or deal limit play one more deal at a time.
    optional_options = MappingProxyType({"deals": 0, "play_on_tie": False})
    option_bounds = MappingProxyType(
        {**DealRules.option_bounds, "a_attempts": (1, 10), "deals": (0, MAX_DEALS)}
    )
    #: The fields of a deal outcome entered at a real table (:meth:`table_deal`).
    table_fields = frozenset({"finish"})

    # ------------------------------------------------------------------ cards
    def wild(self, deal: Deal) -> int:
        """Card id of the wild card (逢人配, the ♥ level card)."""
        return 13 + RANKS.index(deal.level or "2")

    def single_value(self, deal: Deal, card: int) -> int:
        """Single order (guandan.md §1): 2 < … < A < level rank < SB < HR."""
        if card >= 52:
            return 100 if card == HR else 99
        r = card % 13
        return 50 if RANKS[r] == deal.level else r

    # ------------------------------------------------------------------ tribute
    def tribute_givers(self, deal: Deal, prev: list[int]) -> tuple[list[int], bool]:
        """Givers of tribute after a deal that finished in order ``prev`` and whether it is a
        double tribute (the winners had 1st and 2nd)."""
        n = deal.n
        first = prev[0]
        double = len(prev) >= 2 and self.team_of(deal, prev[1]) == self.team_of(deal, first)
        if double:
            givers = [s for s in ((first + i) % n for i in range(1, n)) if s not in prev[:2]]
            return givers, True
        if len(prev) >= 4:
            return [prev[3]], False
        rest = [s for s in range(n) if s not in prev]
        if len(rest) != 1:
            raise ValueError(f"cannot tell the last player from {prev!r}")
        return rest, False

    def setup_tribute(self, deal: Deal, prev: list[int], cards_left: dict[int, int]) -> None:
        """Open the tribute phase (guandan.md §6, bao2.md §8). Anti-tribute (抗贡): if the
        givers together hold both HR, nothing is paid and the previous 1st player leads."""
        givers, double = self.tribute_givers(deal, prev)
        first = prev[0]
        trib: dict[str, Any] = {
            "first": first,
            "second": prev[1] if double else None,
            "double": double,
            "givers": givers,
            "receivers": [-1] * len(givers),
            "paid": [-1] * len(givers),
            "returned": [-1] * len(givers),
            "leader": -1,
            "anti": False,
        }
        deal.tribute = trib
        if sum(deal.hands[g][HR] for g in givers) >= 2:
            trib["anti"] = True
            deal.give_lead(first, "tribute")
            return
        if not double:
            trib["receivers"] = [first]
        else:
            self.assign_double_receivers(deal, trib, cards_left)
        deal.phase = "tribute"
        deal.turn = None
        deal.leading = False

    def assign_double_receivers(
        self, deal: Deal, trib: dict[str, Any], cards_left: dict[int, int]
    ) -> None:
        """Guandan double tribute: the loser with more cards left gives to the 1st, the other to
        the 2nd; with equal counts the player after the 1st gives to the 1st."""
        first, second = trib["first"], trib["second"]
        g = trib["givers"]
        a, b = cards_left.get(g[0], 0), cards_left.get(g[1], 0)
        if a == b:
            to_first = (first + 1) % deal.n
        else:
            to_first = g[0] if a > b else g[1]
        trib["receivers"] = [first if s == to_first else second for s in g]

    def set_return_leader(self, deal: Deal) -> None:
        """Set who leads after the returns from the tributes paid (``deal.tribute["paid"]``):
        the giver of the higher card; equal ranks: the player after the 1st; one tribute: its
        giver."""
        trib = deal.tribute
        assert trib is not None
        if trib["double"]:
            values = [self.single_value(deal, c) for c in trib["paid"]]
            if values[0] == values[1]:
                trib["leader"] = (trib["first"] + 1) % deal.n
            else:
                trib["leader"] = trib["givers"][0 if values[0] > values[1] else 1]
        else:
            trib["leader"] = trib["givers"][0]

    def tributes_in(self, deal: Deal) -> None:
        """Every tribute is paid: hand the cards over and open the return phase. The giver of
        the higher card leads after the returns; equal ranks: the player after the 1st."""
        trib = deal.tribute
        assert trib is not None
        self.set_return_leader(deal)
        for r, c in zip(trib["receivers"], trib["paid"], strict=True):
            deal.add_cards(r, (c,))
        deal.phase = "return"

    def valid_tribute(self, deal: Deal, seat: int) -> list[int]:
        """Cards a giver may pay: the highest by single order, wild cards excluded (any suit)."""
        wild = self.wild(deal)
        hand = [c for c in deal.hand(seat) if c != wild]
        if not hand:
            return []
        top = max(self.single_value(deal, c) for c in hand)
        return sorted({c for c in hand if self.single_value(deal, c) == top})

    def valid_return(self, deal: Deal, seat: int) -> list[int]:
        """Cards a receiver may return: Guandan, any card (guandan.md §6)."""
        return sorted(set(deal.hand(seat)))

    def validate_extra(self, deal: Deal, action: Action) -> Any:
        """Check a tribute or return (codes ``wrong_phase``, ``not_your_turn``,
        ``not_in_hand``, ``invalid_tribute``, ``invalid_return``)."""
        kind, seat = action.kind, action.seat
        assert seat is not None
        trib = deal.tribute
        if kind == "tribute":
            if deal.phase != "tribute" or trib is None:
                raise Refusal("wrong_phase", "no tribute is owed now")
            i = self._index(trib["givers"], seat)
            if i < 0 or trib["paid"][i] >= 0:
                raise Refusal("not_your_turn", "this seat owes no tribute")
            card = action.card
            if not deal.hands[seat][card]:
                raise Refusal("not_in_hand", f"{card_str(card)} is not in the hand")
            if card not in self.valid_tribute(deal, seat):
                raise Refusal("invalid_tribute", "tribute is the highest card, wild cards excepted")
            return i
        if kind == "return":
            if deal.phase != "return" or trib is None:
                raise Refusal("wrong_phase", "no return is owed now")
            i = self._return_index(trib, seat)
            if i < 0:
                raise Refusal("not_your_turn", "this seat owes no return")
            card = action.card
            if not deal.hands[seat][card]:
                raise Refusal("not_in_hand", f"{card_str(card)} is not in the hand")
            if card not in self.valid_return(deal, seat):
                raise Refusal("invalid_return", self.return_rule)
            return i
        raise Refusal("wrong_phase", f"no {kind} in the {deal.phase} phase")

    #: What a refused return is told (:meth:`valid_return`).
    return_rule = "any card may be returned"

    @staticmethod
    def _index(seats: list[int], seat: int) -> int:
        return seats.index(seat) if seat in seats else -1

    @staticmethod
    def _return_index(trib: dict[str, Any], seat: int) -> int:
        for i, r in enumerate(trib["receivers"]):
            if r == seat and trib["returned"][i] < 0:
                return i
        return -1

    def execute_extra(self, deal: Deal, action: Action, plan: Any) -> None:
        """Pay a tribute or make a return."""
        trib = deal.tribute
        seat = action.seat
        assert seat is not None
        if action.kind == "tribute":
            assert trib is not None
            deal.remove_cards(seat, action.cards)
            trib["paid"][plan] = action.card
            if all(c >= 0 for c in trib["paid"]):
                self.tributes_in(deal)
        elif action.kind == "return":
            assert trib is not None
            deal.remove_cards(seat, action.cards)
            deal.add_cards(trib["givers"][plan], action.cards)
            trib["returned"][plan] = action.card
            if all(c >= 0 for c in trib["returned"]):
                deal.give_lead(trib["leader"], "tribute")
        else:
            super().execute_extra(deal, action, plan)

    def owing(self, deal: Deal) -> list[int]:
        """Seats that still owe a tribute (tribute phase) or a return (return phase), in turn
        order from the previous 1st player."""
        trib = deal.tribute
        if trib is None:
            return []
        if deal.phase == "tribute":
            seats = [g for g, c in zip(trib["givers"], trib["paid"], strict=True) if c < 0]
        elif deal.phase == "return":
            seats = [r for r, c in zip(trib["receivers"], trib["returned"], strict=True) if c < 0]
        else:
            return []
        first = trib["first"]
        return sorted(set(seats), key=lambda s: (s - first) % deal.n)

    def extra_to_move(self, deal: Deal) -> int | None:
        """During tribute the seat to act is the first seat, in turn order from the 1st
        player, that still owes a tribute or a return (bao2.md §6.4)."""
        owing = self.owing(deal)
        return owing[0] if owing else deal.turn

    def extra_legal_actions(self, deal: Deal, seat: int) -> list[Action]:
        """Tribute: the highest cards; return: the cards the rules allow."""
        if seat not in self.owing(deal):
            return []
        if deal.phase == "tribute":
            return [Action("tribute", seat, (c,)) for c in self.valid_tribute(deal, seat)]
        return [Action("return", seat, (c,)) for c in self.valid_return(deal, seat)]

    def extra_timeout(self, deal: Deal, seat: int) -> Action | None:
        """Clock out in tribute: the forced card (lowest id among the highest); in return: the
        lowest card allowed by single order."""
        legal = self.extra_legal_actions(deal, seat)
        if not legal:
            return None
        if deal.phase == "tribute":
            return legal[0]
        return min(legal, key=lambda a: (self.single_value(deal, a.card), a.card))

    def tribute_view(self, deal: Deal, seat: int | None) -> dict[str, Any] | None:
        """What a seat may know of the tribute: who gives to whom, the tribute cards (shown on
        the table), and a return card only to its giver and receiver until every return is in
        (the returns are then shown, 十一.3)."""
        trib = deal.tribute
        if trib is None:
            return None
        done = deal.phase not in ("tribute", "return")
        cached = deal.cache.get("tribute_view") if done else None
        if cached is not None:
            return _copy_view(cached)
        all_back = all(c >= 0 for c in trib["returned"]) and not trib["anti"]
        # per giver: the card returned, True (returned, hidden from this seat) or None (not yet)
        returned: list[str | bool | None] = []
        for g, r, c in zip(trib["givers"], trib["receivers"], trib["returned"], strict=True):
            if c < 0:
                returned.append(None)
            elif all_back or seat in (g, r):
                returned.append(card_str(c))
            else:
                returned.append(True)
        paid = [card_str(c) if c >= 0 else None for c in trib["paid"]]
        view = {
            "anti": trib["anti"],
            "double": trib["double"],
            "givers": list(trib["givers"]),
            "receivers": [r if r >= 0 else None for r in trib["receivers"]],
            "paid": paid,
            "returned": returned,
        }
        if done:
            deal.cache["tribute_view"] = view
            return _copy_view(view)
        return view

    # ------------------------------------------------------------------ settlement
    def settle(self, deal: Deal, order: list[int], stuck_end: bool) -> dict[str, Any]:
        """Base rise of the 1st player's team: 3 with 1st and 2nd, 2 with 1st and 3rd, 1 with
        1st and last (guandan.md §5). Also records each seat's cards left (for the next
        double tribute)."""
        team = self.team_of(deal, order[0])
        if self.team_of(deal, order[1]) == team:
            rise = 3
        elif self.team_of(deal, order[2]) == team:
            rise = 2
        else:
            rise = 1
        base = [0, 0]
        base[team] = rise
        return {
            "finish": order,
            "base": base,
            "bao2": list(deal.bao2),
            "closed": [0, 0],
            "cards_left": list(deal.sizes),
        }

    def public_info(self, deal: Deal, seat: int | None) -> dict[str, Any]:
        """The tribute view (once every tribute and return is in, one view kept on the deal,
        the same for every seat and never changed, shared by the observations)."""
        if deal.tribute is None:
            return {}
        if deal.phase != "tribute" and deal.phase != "return":
            cached = deal.cache.get("tribute_view")
            if cached is None:
                self.tribute_view(deal, seat)
                cached = deal.cache["tribute_view"]
            return {"tribute": cached}
        return {"tribute": self.tribute_view(deal, seat)}

    # ------------------------------------------------------------------ real table
    def table_deal(self, outcome: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """A deal entered at a real table: ``finish``, the seats in finishing order until the
        deal ended (two when the 1st and 2nd are partners, else three; the others follow in
        seat order), plus the fields of :attr:`table_fields` that :meth:`table_bonuses` reads.
        Returns ``finish`` (four seats), ``bao2`` and ``closed`` per team."""
        refuse_unknown(outcome, self.table_fields)
        finish = finish_order(outcome.get("finish"), self.seats)
        if len(finish) < 2 or (len(finish) == 2 and finish[0] % 2 != finish[1] % 2):
            raise OutcomeRefusal(
                "bad_finish", "finish", "give the finishing order until the deal ended"
            )
        finish += [s for s in range(self.seats) if s not in finish]
        bao2, closed = self.table_bonuses(outcome, finish, options)
        return {"finish": finish, "bao2": bao2, "closed": closed}

    def table_bonuses(
        self, outcome: dict[str, Any], finish: list[int], options: dict[str, Any]
    ) -> tuple[list[int], list[int]]:
        """Levels per team a deal entered at a real table earned besides its finishing order:
        ``(bao2, closed)``. Guandan has none."""
        return [0, 0], [0, 0]

    # ------------------------------------------------------------------ match progression
    def level_rank(self, index: int) -> str:
        """Rank name of a level index."""
        return self.level_ranks[index % len(self.level_ranks)]

    def first_level_team(self) -> int | None:
        """Level team of a match's first deal: none (both teams start at the lowest level)."""
        return None

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
        """Guandan level progression (guandan.md §5): the 1st player's team W rises by its
        base (capped at A, no excess). A team playing at its own A wins the match with 1st and
        its partner 2nd or 3rd; otherwise that is a failed attempt, and after ``a_attempts``
        failures (0 = unlimited) it drops to level 2 and earns nothing from the deal.
        ``breakdown`` (:func:`earned_items`) says why each team's level moved; its levels sum
        to the change."""
        before = list(levels)
        levels = list(levels)
        attempts = list(attempts)
        earn, breakdown = earned_items(finish, bao2, closed)
        winner = self._attempt(levels, level_team, attempts, finish, earn, options)
        void_attempt(before, levels, level_team, breakdown)
        top = self.max_level
        if winner is None:
            for t in (0, 1):
                total = levels[t] + earn[t]
                levels[t] = min(top, total)
                add_item(breakdown[t], "cap", levels[t] - total)
        else:
            breakdown = [[], []]  # the match is won: no level moves
        return {
            "levels": levels,
            "attempts": attempts,
            "winner": winner,
            "next_level_team": finish[0] % 2,
            "breakdown": breakdown,
        }

    def _attempt(
        self,
        levels: list[int],
        level_team: int | None,
        attempts: list[int],
        finish: list[int],
        earn: list[int],
        options: dict[str, Any],
    ) -> int | None:
        """The level team's attempt at the last level (mutates the lists). Returns the match
        winner or ``None``."""
        top = self.max_level
        if level_team is None or levels[level_team] != top:
            return None
        d = level_team
        first_team = finish[0] % 2
        partner_place = next((i for i, s in enumerate(finish) if s != finish[0] and s % 2 == d), 3)
        if first_team == d and partner_place in (1, 2):
            attempts[d] = 0
            return d
        attempts[d] += 1
        limit = options.get("a_attempts", 3)
        if limit and attempts[d] >= limit:
            levels[d] = 0
            attempts[d] = 0
            earn[d] = 0
        return None


def add_item(items: list[dict[str, Any]], reason: str, levels: int) -> None:
    """Append ``{"reason", "levels"}`` to a team's breakdown unless it moved nothing."""
    if levels:
        items.append({"reason": reason, "levels": levels})


def earned_items(
    finish: list[int], bao2: list[int], closed: list[int]
) -> tuple[list[int], list[list[dict[str, Any]]]]:
    """What each team earns from a deal, as levels per team and as its breakdown: ``base``
    (the 1st player's team: 3 with 1st and 2nd, 2 with 1st and 3rd, else 1), ``bao2`` and
    ``guan2`` (closed 2s). Seats 0, 2 are team 0."""
    w = finish[0] % 2
    if finish[1] % 2 == w:
        rise = 3
    elif len(finish) > 2 and finish[2] % 2 == w:
        rise = 2
    else:
        rise = 1
    earn = [0, 0]
    earn[w] = rise
    breakdown: list[list[dict[str, Any]]] = [[], []]
    breakdown[w].append({"reason": "base", "levels": rise})
    for t in (0, 1):
        earn[t] += bao2[t] + closed[t]
        add_item(breakdown[t], "bao2", bao2[t])
        add_item(breakdown[t], "guan2", closed[t])
    return earn, breakdown


def void_attempt(
    before: list[int],
    levels: list[int],
    level_team: int | None,
    breakdown: list[list[dict[str, Any]]],
) -> None:
    """After the attempt at the last level: if the level team used up its attempts (its
    level was reset), its earnings void and the breakdown says ``attempt`` instead."""
    if level_team is not None and levels[level_team] != before[level_team]:
        breakdown[level_team] = []
        add_item(breakdown[level_team], "attempt", levels[level_team] - before[level_team])


def _copy_view(view: dict[str, Any]) -> dict[str, Any]:
    return {
        "anti": view["anti"],
        "double": view["double"],
        "givers": view["givers"][:],
        "receivers": view["receivers"][:],
        "paid": view["paid"][:],
        "returned": view["returned"][:],
    }
