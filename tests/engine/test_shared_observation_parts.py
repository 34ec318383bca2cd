"""The speed paths of issue 44 give what the long way gives: observations share the parts that
did not change (a trick's entries, the standing play, the finished tribute, the previous
summary, the referee cards), so an observation handed out must never change afterwards and
the bots must not change what they read; a hand's moves after a play (``HandMoves.without``,
which keeps the bombs a play cannot touch) are those of the smaller hand read afresh."""

import json
import random

import pytest

from engine.bots import HeuristicBot, RandomBot
from engine.match import Match
from engine.variants import VARIANT_NAMES, combo_rules, deal_rules
from engine.variants.guandan import BOMB_TYPES


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_an_observation_handed_out_never_changes(variant):
    seats = deal_rules(variant).seats
    kept = []
    for seed in range(2):
        m = Match.new(variant, 900 + seed, {"show_history": bool(seed)})
        bots = [RandomBot(f"{seed}/{s}") for s in range(seats)]
        rng = random.Random(seed)
        while not m.over and m.deal_no < 4:
            for v in [None, *range(seats)]:
                obs = m.observation(v)
                kept.append((obs, json.dumps(obs)))
            if rng.random() < 0.02 and m.deal.phase == "play" and variant in ("bao2", "guandan"):
                m.apply({"sanction": rng.choice(["yellow", "red"]), "target": rng.randrange(4)})
                continue
            seat = m.to_move()
            m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
    assert len(kept) > 1000
    for obs, text in kept:
        assert json.dumps(obs) == text


@pytest.mark.parametrize("variant", VARIANT_NAMES)
@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_the_bots_do_not_change_what_they_read(variant, kind):
    seats = deal_rules(variant).seats
    m = Match.new(variant, 77)
    bots = [RandomBot(s) if kind == "random" else HeuristicBot() for s in range(seats)]
    steps = 0
    while not m.over and m.deal_no < 2:
        seat = m.to_move()
        obs = m.observation(seat)
        before = json.dumps(obs)
        action = bots[seat].choose(obs, lambda s=seat: m.legal_actions(s))
        assert json.dumps(obs) == before
        m.apply(action)
        steps += 1
    assert steps > 50


def _moves_json(hm, standings):
    out = [[tuple(m) for m in hm.moves(None)], [tuple(m) for m in hm.bomb_moves()]]
    for st in standings:
        out.append([tuple(m) for m in hm.moves(st)])
    return out


@pytest.mark.parametrize("variant", ["guandan", "bao2"])
def test_a_hand_after_a_play_has_the_moves_of_the_smaller_hand(variant):
    rng = random.Random(5)
    deck = [c for c in range(54) for _ in range(2)]
    checked = kept = 0
    for trial in range(300):
        levels = deal_rules(variant).level_ranks
        rules = combo_rules(variant, rng.choice(list(dict.fromkeys(levels))))
        hand = sorted(rng.sample(deck, rng.choice([10, 18, 27])))
        allow_two = trial % 3 != 0
        hm = rules.hand_moves(hand, allow_two)
        leads = hm.moves(None)
        bombs_before = hm.bomb_moves()
        standings = [m for m in leads if m.type not in BOMB_TYPES][:6] + bombs_before[:2]
        for _ in range(4):
            if not leads:
                break
            move = rng.choice(leads)
            combo = hm.materialize(move)
            smaller = list(hand)
            for c in combo.cards:
                smaller.remove(c)
            after = hm.without(combo.cards)
            kept += after._bombs is not None
            fresh = rules.hand_moves(smaller, allow_two)
            assert _moves_json(after, standings) == _moves_json(fresh, standings), (hand, move)
            checked += 1
            hand, hm = smaller, after
            leads = hm.moves(None)
            hm.bomb_moves()
    assert checked > 500 and kept > 100
