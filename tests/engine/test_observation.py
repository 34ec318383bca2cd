"""Observations never leak another player's cards and show counts exactly per the rules."""

import json

import pytest

from engine.bots import RandomBot
from engine.cards import card_str
from engine.match import Match
from engine.variants import deal_rules


def known_cards(deal, seat):
    """Card strings ``seat`` may legitimately see: its hand, every card played in this deal,
    the tribute cards, and the return cards it gave or got (all of them once all are in)."""
    known = set()
    if seat is not None:
        known.update(card_str(c) for c in deal.hand(seat))
    for trick in deal.history + [deal.trick]:
        for _, combo in trick:
            if combo is not None:
                known.update(card_str(c) for c in combo.cards)
    trib = deal.tribute
    if trib is not None:
        known.update(card_str(c) for c in trib["paid"] if c >= 0)
        all_back = all(c >= 0 for c in trib["returned"])
        for g, r, c in zip(trib["givers"], trib["receivers"], trib["returned"], strict=True):
            if c >= 0 and (all_back or seat in (g, r)):
                known.add(card_str(c))
    return known


def check_observation(match, seat):
    deal = match.deal
    obs = match.observation(seat)
    text = json.dumps(obs)
    assert json.loads(text) == obs  # JSON-ready
    known = known_cards(deal, seat)
    if match.deal_no == 0 and match.marked_card is not None:
        # the first deal's marked card was dealt face up (明牌, bao2.md §8): everyone saw it
        known.add(card_str(match.marked_card))
    for other in range(4):
        if other == seat:
            continue
        for c in deal.hand(other):
            s = card_str(c)
            if s not in known:
                assert f'"{s}"' not in text, (seat, other, s)
    for other, count in enumerate(obs["counts"]):
        size = deal.sizes[other]
        if other == seat or size <= 6:
            assert count == size
        elif size > 10:
            assert count is None
        else:
            assert count == (size if deal.revealed[other] else None)
    if seat is None:
        assert "hand" not in obs
    else:
        assert sorted(obs["hand"]) == sorted(card_str(c) for c in deal.hand(seat))


@pytest.mark.parametrize("variant", ["bao2", "guandan"])
def test_no_observation_contains_another_players_hidden_cards(variant):
    deals = 0
    for seed in range(6):
        m = Match.new(variant, 100 + seed, {"show_history": seed % 2 == 1})
        bots = [RandomBot(f"{seed}/{s}") for s in range(4)]
        step = 0
        while not m.over and m.deal_no < 4:
            seat = m.to_move()
            if step % 3 == 0:
                for viewer in (None, 0, 1, 2, 3):
                    check_observation(m, viewer)
            if step % 17 == 5:
                # someone asks a count of 7..10 now and then
                for target in range(4):
                    if 7 <= m.deal.sizes[target] <= 10 and m.deal.phase == "play":
                        m.apply({"seat": (target + 1) % 4, "ask": target})
                        break
            m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
            step += 1
        deals += m.deal_no
    assert deals >= 12


def test_current_trick_only_unless_show_history():
    m = Match.new("guandan", 5)
    bot = RandomBot(0)
    while len(m.deal.history) < 2:
        seat = m.to_move()
        m.apply(bot.choose(m.observation(seat), m.legal_actions(seat)))
    assert "history" not in m.observation(0)
    h = Match.replay("guandan", 5, {"show_history": True}, m.to_json()["actions"])
    obs = h.observation(0)
    assert len(obs["history"]) == len(h.deal.history) >= 2


def test_immune_window_observation_is_the_same_whether_or_not_the_bomb_is_held():
    from engine.deal import Deal
    from engine.observation import deal_observation

    def window(second_hand):
        hands = [["ST", "S2", "D2"], second_hand, ["D6", "D7"], ["H8", "C8"]]
        d = Deal.from_position(
            deal_rules("bao2"),
            {
                "variant": "bao2",
                "level": "3",
                "hands": hands,
                "leader": 0,
                "lead_kind": "trick",
                "initiative": [True, False, False, False],
                "finished": [],
            },
        )
        d.apply({"seat": 0, "play": ["ST"], "type": "single"})
        for s in (1, 2, 3):
            d.apply({"seat": s, "pass": True})
        d.apply({"seat": 0, "play": ["S2", "D2"], "type": "pair"})
        return d

    holds = window(["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3", "SK"])
    lacks = window(["S9", "S8", "D9", "D8", "C9", "C8", "H9", "H8", "HT", "H4", "SK"])
    for viewer in (None, 0, 2, 3):
        a, b = deal_observation(holds, viewer), deal_observation(lacks, viewer)
        assert a == b
        assert a["immune_window"] == {"bao2_seat": 0, "deciding": 1}


@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_play_view_is_part_of_the_observation_and_plays_the_same_match(variant):
    """The bots' light view holds exactly its keys, each equal to the observation's, in every
    phase and after the end; random bots reading it play the same match as from the full
    observation (same seed: same log)."""
    from bench.engine_speed import play_random_match
    from engine.observation import PLAY_VIEW_KEYS

    seats = deal_rules(variant).seats
    m = Match.new(variant, 7)
    bots = [RandomBot(f"7/{s}") for s in range(seats)]
    phases = set()
    while not m.over and m.deal_no < 3:
        for viewer in range(seats):
            view, obs = m.play_view(viewer), m.observation(viewer)
            assert set(view) == set(PLAY_VIEW_KEYS)
            assert view == {k: obs[k] for k in PLAY_VIEW_KEYS}
        phases.add(m.deal.phase)
        seat = m.to_move()
        m.apply(bots[seat].choose(m.observation(seat), m.legal_actions(seat)))
    assert "play" in phases
    light = play_random_match(variant, 11, max_deals=3)
    full = play_random_match(variant, 11, max_deals=3, full=True)
    assert [a.to_json() for a in light.log] == [a.to_json() for a in full.log]
    with pytest.raises(ValueError):
        m.play_view(seats)
