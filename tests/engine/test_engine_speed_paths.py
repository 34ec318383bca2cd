"""The seventh speed session's shortcuts (issue 44) give what the long way gives: the random
bot's written-out draw and its hand's moves updated in place (``HandMoves.remove``) play the
same matches as the long way (``random.Random.randrange``, the hand read afresh at every
decision); the match's items of an observation follow every change of the match; the per-seat
flags and a pass's trick entry are shared, equal to what they copy."""

import json
import random

import pytest

from engine.actions import Action
from engine.bots import RandomBot
from engine.bots._moves import Moves, resolve
from engine.match import Match
from engine.variants import VARIANT_NAMES, combo_rules, deal_rules
from engine.variants.guandan import BOMB_TYPES


class LongWayRandomBot:
    """The random bot's choice the long way: ``randrange`` and the hand read afresh."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, obs, legal):
        if obs.get("phase") == "play" and obs.get("turn") == obs.get("seat"):
            moves = Moves(obs, legal)
            n = len(moves.moves) + (0 if obs["lead"] else 1)
            if n:
                i = self.rng.randrange(n)
                if i == len(moves.moves):
                    return Action("pass", obs["seat"])
                return moves.action(moves.moves[i])
        return self.rng.choice(resolve(legal))


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_the_random_bot_plays_the_long_way_s_matches(variant):
    seats = deal_rules(variant).seats
    decisions = 0
    for seed in range(3):
        logs = []
        for make in (RandomBot, LongWayRandomBot):
            m = Match.new(variant, 300 + seed)
            bots = [make(f"{seed}/{s}") for s in range(seats)]
            while not m.over and m.deal_no < 3:
                seat = m.to_move()
                legal = m.legal_actions
                m.apply(bots[seat].choose(m.observation(seat), lambda s=seat, f=legal: f(s)))
            logs.append([a.to_json() for a in m.log])
        assert logs[0] == logs[1]
        decisions += len(logs[0])
    assert decisions > 300


def _moves_json(hm, standings):
    out = [[tuple(m) for m in hm.moves(None)], [tuple(m) for m in hm.bomb_moves()]]
    for st in standings:
        out.append([tuple(m) for m in hm.moves(st)])
    return out


@pytest.mark.parametrize("variant", ["guandan", "bao2"])
def test_a_hand_s_moves_updated_in_place_are_the_smaller_hand_s(variant):
    rng = random.Random(7)
    deck = [c for c in range(54) for _ in range(2)]
    checked = kept = 0
    for trial in range(300):
        levels = deal_rules(variant).level_ranks
        rules = combo_rules(variant, rng.choice(list(dict.fromkeys(levels))))
        hand = sorted(rng.sample(deck, rng.choice([10, 18, 27])))
        allow_two = trial % 3 != 0
        hm = rules.hand_moves(hand, allow_two)
        leads = hm.moves(None)
        standings = [m for m in leads if m.type not in BOMB_TYPES][:6] + hm.bomb_moves()[:2]
        for step in range(4):
            if not leads:
                break
            if step % 2 and standings:
                hm.moves(standings[0])  # a typed list to drop
            move = rng.choice(leads)
            combo = hm.materialize(move)
            smaller = list(hand)
            for c in combo.cards:
                smaller.remove(c)
            bombs = hm._bombs
            handed_out = [tuple(m) for m in hm.moves(None)]
            hm.remove(combo.cards)
            kept += bombs is not None and hm._bombs is bombs
            fresh = rules.hand_moves(smaller, allow_two)
            assert _moves_json(hm, standings) == _moves_json(fresh, standings), (hand, move)
            assert hm.materialize(move) if move in fresh.moves(None) else True
            assert handed_out == [tuple(m) for m in rules.hand_moves(hand, allow_two).moves(None)]
            checked += 1
            hand = smaller
            leads = hm.moves(None)
    assert checked > 500 and kept > 100


def test_removing_a_card_not_held_changes_nothing():
    rules = combo_rules("guandan", "5")
    hand = sorted([0, 0, 13, 26, 1, 14, 27, 40, 52, 53, 17])  # S2 S2 H2 C2 S3 H3 C3 D3 SB HR H6
    hm = rules.hand_moves(hand)
    standings = [m for m in hm.moves(None) if m.type not in BOMB_TYPES][:6]
    before = _moves_json(hm, standings)
    with pytest.raises(ValueError):
        hm.remove((0, 0, 0))  # the third S2 is not held
    assert _moves_json(hm, standings) == before
    assert _moves_json(hm, standings) == _moves_json(rules.hand_moves(hand), standings)


def test_the_match_items_follow_every_change_of_the_match():
    m = Match.new("guandan", 11)
    bots = [RandomBot(s) for s in range(4)]
    first = m.observation(0)
    kept = json.dumps(first)
    m.apply({"sanction": "yellow", "target": 1})
    after_card = m.observation(0)
    assert after_card["levels"] == m.levels and after_card["cards"]["yellow"] == [0, 1]
    m.levels = [5, 3]  # set from outside: the next observation reads it
    assert m.observation(0)["levels"] == [5, 3]
    while m.deal_no == 0:
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), lambda s=seat: m.legal_actions(s)))
    second = m.observation(None)
    assert second["deal_no"] == 1 and second["previous"]["finish"] == m.deals[-1]["finish"]
    assert second["match"]["deals"] == 1 and second["marked_card"] is None
    assert second["levels"] == m.levels and second["attempts"] == m.attempts
    assert json.dumps(first) == kept


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_shared_flags_and_pass_entries_equal_what_they_copy(variant):
    seats = deal_rules(variant).seats
    m = Match.new(variant, 21)
    bots = [RandomBot(s) for s in range(seats)]
    passes = 0
    while not m.over and m.deal_no < 2:
        seat = m.to_move()
        obs = m.observation(seat)
        deal = m.deal
        assert obs["finished"] == deal.finished and obs["finished"] is not deal.finished
        assert obs["initiative"] == deal.initiative and obs["initiative"] is not deal.initiative
        assert obs["stuck"] == deal.stuck and obs["stuck"] is not deal.stuck
        assert obs["suspended"] == deal.suspended and obs["suspended"] is not deal.suspended
        for entry, (s, combo) in zip(obs["trick"], deal.trick, strict=True):
            if combo is None:
                assert entry == {"seat": s, "pass": True}
                passes += 1
        m.apply(bots[seat].choose(obs, lambda s=seat: m.legal_actions(s)))
    # two seats: a pass ends the trick at once, and the next observation shows a new one
    assert passes > 20 or seats == 2
