"""Deal state machine: one test per rule (bao2.md §5–§8, guandan.md)."""

import pytest

from engine.actions import Action, Refusal
from engine.cards import cards_str, parse_cards
from engine.deal import Deal
from engine.variants import deal_rules


def position(
    hands,
    leader=0,
    lead_kind="first",
    initiative=None,
    finished=(),
    variant="bao2",
    level="3",
    **extra,
):
    case = {
        "variant": variant,
        "level": level,
        "hands": hands,
        "leader": leader,
        "lead_kind": lead_kind,
        "finished": list(finished),
        **extra,
    }
    if initiative is not None:
        case["initiative"] = initiative
    return Deal.from_position(deal_rules(case["variant"]), case)


def play(deal, seat, cards, type_):
    deal.apply({"seat": seat, "play": cards, "type": type_})


def passes(deal, *seats):
    for s in seats:
        deal.apply({"seat": s, "pass": True})


def refused(deal, action, code):
    before = deal.to_json()
    with pytest.raises(Refusal) as exc:
        deal.apply(action)
    assert exc.value.code == code
    assert deal.to_json() == before


def test_turn_passes_counter_clockwise_and_trick_winner_leads_with_initiative():
    d = position([["S9", "ST"], ["C5", "CK"], ["S4", "SA"], ["C8", "DJ"]])
    play(d, 0, ["S9"], "single")
    assert d.to_move() == 1 and not d.leading
    play(d, 1, ["CK"], "single")
    passes(d, 2, 3, 0)
    assert d.to_move() == 1 and d.leading and d.lead_kind == "trick"
    assert d.initiative == [False, True, False, False]


def test_first_lead_gives_no_initiative_to_a_leader_who_is_beaten():
    d = position([["S9", "ST"], ["C5", "CK"], ["S4", "SA"], ["C8", "DJ"]])
    play(d, 0, ["S9"], "single")
    assert d.initiative == [False] * 4


def test_refusal_codes_and_priority():
    d = position([["S9", "S2"], ["C5", "CK"], ["S4", "SA"], ["C8", "DJ"]])
    refused(d, {"seat": 1, "play": ["S2"], "type": "single"}, "not_your_turn")
    refused(d, {"seat": 0, "play": ["SK"], "type": "pair"}, "not_in_hand")
    refused(d, {"seat": 0, "play": ["S9", "S2"], "type": "pair"}, "invalid_combo")
    refused(d, {"seat": 0, "play": ["S2"], "type": "single"}, "needs_initiative")
    refused(d, {"seat": 0, "pass": True}, "must_lead")
    refused(d, {"seat": 0, "tribute": "S9"}, "wrong_phase")
    refused(d, {"seat": 0, "immune": ["S9"]}, "wrong_phase")
    refused(d, {"seat": 0, "play": ["S9"], "type": "immune"}, "wrong_phase")
    play(d, 0, ["S9"], "single")
    refused(d, {"seat": 1, "play": ["C5"], "type": "single"}, "does_not_beat")


def test_malformed_input_is_refused_with_clear_codes():
    d = position([["S9"], ["C5"], ["S4"], ["C8"]])
    refused(d, {"seat": 0, "play": ["X9"], "type": "single"}, "invalid_card")
    refused(d, {"seat": 0, "play": "S9", "type": "single"}, "invalid_action")
    refused(d, {"seat": 7, "play": ["S9"], "type": "single"}, "invalid_action")
    refused(d, {"seat": 0}, "invalid_action")
    refused(d, {"seat": 0, "pass": True, "play": ["S9"]}, "invalid_action")
    refused(d, ["S9"], "invalid_action")
    refused(d, {"seat": 0, "play": ["S9"]}, "invalid_action")
    refused(d, {"seat": "0", "pass": True}, "invalid_action")


def test_guandan_twos_are_free_and_immune_type_is_invalid():
    d = position(
        [["S2", "S9"], ["C5", "C6"], ["S4", "D4"], ["C8", "DA"]], variant="guandan", level="5"
    )
    refused(d, {"seat": 0, "play": ["S2", "S9"], "type": "immune"}, "invalid_combo")
    play(d, 0, ["S2"], "single")
    assert d.to_move() == 1


def test_wild_card_stands_for_a_two_without_needing_initiative():
    # level 3: H3 is wild; H3 + S9 ... a pair of 9s with the wild is fine, no natural 2 involved
    d = position([["H3", "S9", "SK"], ["C5"], ["S4"], ["C8"]])
    play(d, 0, ["H3", "S9"], "pair")
    assert d.to_move() == 1


def test_stuck_leader_is_skipped_and_keeps_twos_until_closed():
    d = position([["S2", "D2"], ["C4", "C6"], ["D6", "D7"], ["H8", "C8"]])
    assert d.to_move() == 1 and d.leading and d.stuck == [True, False, False, False]
    # the stuck player never gets a turn again: plays go round without seat 0
    play(d, 1, ["C4"], "single")
    assert d.to_move() == 2
    play(d, 2, ["D6"], "single")
    assert d.to_move() == 3
    play(d, 3, ["H8"], "single")
    assert d.to_move() == 1


def test_all_remaining_players_stuck_ends_the_deal_and_closes_their_twos():
    d = position(
        [["S2"], ["C4"], ["D2", "H2"], ["S5", "C2"]],
        leader=1,
        initiative=[False, False, False, False],
    )
    play(d, 1, ["C4"], "single")  # last card
    passes(d, 2, 3, 0)
    # 接风 to seat 3 (partner); seat 3 leads S5 (not stuck), then holds only C2
    assert d.to_move() == 3 and d.lead_kind == "jiefeng"
    play(d, 3, ["S5"], "single")
    passes(d, 0, 2)
    # seat 3 wins the trick, gains initiative and may now play its 2
    assert d.to_move() == 3 and d.initiative[3]
    play(d, 3, ["C2"], "single")
    # seats 0 and 2 remain; both only natural 2s without initiative
    passes(d, 0, 2)
    assert d.over
    assert d.result["finish"][:2] == [1, 3]
    assert d.result["base"] == [0, 3]
    assert d.result["closed"] == [0, 3]


def test_bao2_success_window_iron_wind_and_bonus():
    d = position(
        [["S9", "S2", "D2"], ["C4", "C5"], ["D6", "D7"], ["H8", "C8"]],
        lead_kind="trick",
        initiative=[True, False, False, False],
    )
    play(d, 0, ["S9"], "single")
    passes(d, 1, 2, 3)
    play(d, 0, ["S2", "D2"], "pair")
    assert d.phase == "immune" and d.to_move() == 1
    assert d.bao2 == [2, 0]
    refused(d, {"seat": 3, "pass": True}, "not_your_turn")
    refused(d, {"seat": 1, "play": ["C4"], "type": "single"}, "wrong_phase")
    legal = d.legal_actions()
    assert legal == [Action("pass", 1)]
    assert d.timeout_action(1) == Action("pass", 1)
    passes(d, 1, 3)
    assert d.to_move() == 2 and d.leading and d.lead_kind == "jiefeng"


def test_colour_twos_weights_bao2_bonus():
    d = position(
        [["S9", "H2", "D2", "S2"], ["C4", "C5"], ["D6", "D7"], ["H8", "C8"]],
        lead_kind="trick",
        initiative=[True, False, False, False],
        options={"colour_twos": True},
    )
    play(d, 0, ["S9"], "single")
    passes(d, 1, 2, 3)
    play(d, 0, ["S2", "H2", "D2"], "triple")
    assert d.bao2 == [5, 0]


def test_bao2_needs_a_trick_won_lead():
    # the leader leads by 接风: going out on pure 2s is no 保2 (and needs initiative anyway)
    d = position(
        [["S2", "D2"], ["C4", "C5"], ["D6", "D7"], ["H8", "C8"]],
        lead_kind="jiefeng",
        initiative=[True, False, False, False],
    )
    play(d, 0, ["S2", "D2"], "pair")
    assert d.bao2 == [0, 0] and d.phase == "play" and d.to_move() == 1 and not d.leading


def test_bao2_as_a_follow_is_ordinary():
    d = position(
        [["S9"], ["C4", "S2", "D2"], ["D6"], ["H8", "C8"]], initiative=[False, True, False, False]
    )
    play(d, 0, ["S9"], "single")
    refused(d, {"seat": 1, "play": ["S2", "D2"], "type": "pair"}, "does_not_beat")


def test_pure_twos_finishing_third_is_no_bao2():
    d = position(
        [[], ["C4", "D2"], ["S9", "S2"], []],
        leader=2,
        lead_kind="trick",
        initiative=[True, False, True, False],
        finished=[0, 3],
    )
    play(d, 2, ["S9"], "single")
    passes(d, 1)
    play(d, 2, ["S2"], "single")
    assert d.over and d.bao2 == [0, 0]
    assert d.result["finish"] == [0, 3, 2, 1]
    # seat 1 is last: its D2 is closed for its opponents (team 0)
    assert d.result["closed"] == [1, 0] and d.result["base"] == [2, 0]


def test_immune_bomb_voids_and_bomber_leads_without_initiative():
    hands = [
        ["ST", "S2", "D2"],
        ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3", "SK"],
        ["D6", "D7"],
        ["H8", "C8"],
    ]
    d = position(hands, lead_kind="trick", initiative=[True, False, False, False])
    play(d, 0, ["ST"], "single")
    passes(d, 1, 2, 3)
    play(d, 0, ["S2", "D2"], "pair")
    legal = d.legal_actions()
    assert Action("pass", 1) in legal and any(a.kind == "immune" for a in legal)
    refused(
        d,
        {"seat": 1, "immune": ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "SK"]},
        "invalid_combo",
    )
    d.apply({"seat": 1, "immune": ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3"]})
    assert d.bao2 == [0, 0] and d.to_move() == 1 and d.lead_kind == "jiefeng"
    assert not d.initiative[1]


def test_jiefeng_guandan_and_deal_end_on_double_up():
    d = position([["SK"], ["C5", "C6"], ["S4"], ["C8", "DA"]], variant="guandan", level="5")
    play(d, 0, ["SK"], "single")
    passes(d, 1, 2, 3)
    assert d.to_move() == 2 and d.lead_kind == "jiefeng"
    play(d, 2, ["S4"], "single")
    assert d.over
    assert d.result["finish"][:2] == [0, 2] and d.result["base"] == [3, 0]


def test_guandan_first_and_last():
    d = position([["SK"], ["CA"], ["S4", "S5"], ["C8"]], variant="guandan", level="5")
    play(d, 0, ["SK"], "single")
    play(d, 1, ["CA"], "single")  # 1 out second
    passes(d, 2, 3)
    # 接风 to 3 (partner of 1)
    assert d.to_move() == 3
    play(d, 3, ["C8"], "single")
    assert d.over
    assert d.result["finish"] == [0, 1, 3, 2]
    assert d.result["base"] == [1, 0]
    assert d.result["cards_left"] == [0, 0, 2, 0]


def test_card_count_ask_reveals_to_everyone_without_changing_turn():
    hands = [["S3", "S4", "S5", "S6", "S7", "S8", "S9", "ST"], ["C5"], ["S4"], ["C8"]]
    d = position(hands)
    from engine.observation import deal_observation

    assert deal_observation(d, 1)["counts"][0] is None
    refused(d, {"seat": 1, "ask": 2}, "invalid_ask")
    refused(d, {"seat": 1, "ask": 1}, "invalid_ask")
    d.apply({"seat": 1, "ask": 0})
    assert d.to_move() == 0
    for seat in (None, 1, 2, 3):
        assert deal_observation(d, seat)["counts"][0] == 8


def test_timeout_leader_plays_lowest_allowed_single():
    d = position([["S2", "H3", "SA", "S5"], ["C5"], ["S4"], ["C8"]])
    assert d.timeout_action(0) == Action.play(0, parse_cards(["S5"]), "single")
    d2 = position([["S2", "H3", "SA"], ["C5"], ["S4"], ["C8"]])
    # level 3: the wild H3 alone is a single of the level rank, above A
    assert d2.timeout_action(0) == Action.play(0, parse_cards(["SA"]), "single")
    assert d2.timeout_action(1) is None


def test_tribute_timeouts_and_legal_actions():
    case = {
        "variant": "bao2",
        "level": "5",
        "phase": "tribute",
        "previous_finish": [0, 1, 2, 3],
        "hands": [["S4", "S5", "SK", "S2"], ["C9"], ["D9"], ["HR", "SA", "D5", "S3"]],
    }
    d = Deal.from_position(deal_rules(case["variant"]), case)
    assert d.to_move() == 3
    assert [cards_str(a.cards) for a in d.legal_actions()] == [["HR"]]
    d.apply(d.timeout_action(3))
    assert d.phase == "return" and d.to_move() == 0
    assert sorted(cards_str(a.cards)[0] for a in d.legal_actions()) == ["S4"]
    d.apply(d.timeout_action(0))
    assert d.to_move() == 3 and d.leading and d.lead_kind == "tribute"


def test_bao2_return_falls_back_to_any_non_wild_card():
    case = {
        "variant": "bao2",
        "level": "5",
        "phase": "tribute",
        "previous_finish": [0, 1, 2, 3],
        "hands": [["H5", "SK", "S2", "D5"], ["C9"], ["D9"], ["HR", "S3"]],
    }
    d = Deal.from_position(deal_rules(case["variant"]), case)
    d.apply({"seat": 3, "tribute": "HR"})
    refused(d, {"seat": 0, "return": "H5"}, "invalid_return")
    d.apply({"seat": 0, "return": "S2"})


def test_bao2_double_tribute_equal_ranks_give_to_upper_seat():
    case = {
        "variant": "bao2",
        "level": "5",
        "phase": "tribute",
        "previous_finish": [0, 2],
        "hands": [["S4", "SK"], ["SA", "S3"], ["D9", "DT"], ["CA", "C6"]],
    }
    d = Deal.from_position(deal_rules(case["variant"]), case)
    refused(d, {"seat": 0, "return": "S4"}, "wrong_phase")
    d.apply({"seat": 3, "tribute": "CA"})
    refused(d, {"seat": 3, "tribute": "C6"}, "not_your_turn")
    d.apply({"seat": 1, "tribute": "SA"})
    # equal: 1 gives to 0 (its 上家), 3 gives to 2; returns to the 下家; seat 1 leads
    assert d.tribute["receivers"] == [2, 0] or d.tribute["receivers"] == [0, 2]
    assert sorted(d.hand(0)) == sorted(parse_cards(["S4", "SK", "SA"]))
    assert sorted(d.hand(2)) == sorted(parse_cards(["D9", "DT", "CA"]))
    d.apply({"seat": 0, "return": "S4"})
    d.apply({"seat": 2, "return": "D9"})
    assert d.to_move() == 1 and d.leading
    assert sorted(d.hand(1)) == sorted(parse_cards(["S3", "S4"]))


def test_referee_revoke_and_suspend():
    d = position(
        [["S9", "ST"], ["C5", "CK"], ["S4", "SA"], ["C8", "DJ"]],
        initiative=[True, True, False, False],
    )
    d.apply({"sanction": "revoke_initiative", "target": 1})
    assert d.initiative == [True, False, False, False]
    play(d, 0, ["S9"], "single")
    d.apply({"sanction": "suspend_follow", "target": 1})
    assert d.to_move() == 2
    passes(d, 2, 3)
    assert d.to_move() == 0 and d.leading
    play(d, 0, ["ST"], "single")
    assert d.to_move() == 1  # the suspension lasted one circle


def test_deal_json_round_trip_mid_window():
    d = position(
        [["S9", "S2", "D2"], ["C4", "C5"], ["D6", "D7"], ["H8", "C8"]],
        lead_kind="trick",
        initiative=[True, False, False, False],
    )
    play(d, 0, ["S9"], "single")
    passes(d, 1, 2, 3)
    play(d, 0, ["S2", "D2"], "pair")
    again = Deal.from_json(d.rules, d.to_json())
    assert again == d and again.to_json() == d.to_json()
    passes(again, 1, 3)
    assert again.to_move() == 2


def test_actions_after_the_deal_is_over_are_wrong_phase():
    d = position([["SK"], ["C5", "C6"], ["S4"], ["C8", "DA"]], variant="guandan", level="5")
    play(d, 0, ["SK"], "single")
    passes(d, 1, 2, 3)
    play(d, 2, ["S4"], "single")
    assert d.over and d.to_move() is None and d.legal_actions() == []
    refused(d, {"seat": 1, "pass": True}, "wrong_phase")


def test_both_tribute_givers_may_act_in_either_order():
    case = {
        "variant": "guandan",
        "level": "5",
        "phase": "tribute",
        "previous_finish": [0, 2],
        "previous_cards_left": {"1": 5, "3": 9},
        "hands": [["S4", "SK"], ["SA", "S3"], ["D9", "DT"], ["SB", "C6"]],
    }
    d = Deal.from_position(deal_rules(case["variant"]), case)
    assert d.actors() == [1, 3] and d.to_move() == 1
    assert d.legal_actions(3) == [Action("tribute", 3, tuple(parse_cards(["SB"])))]
    d.apply({"seat": 3, "tribute": "SB"})
    assert d.actors() == [1]
    d.apply({"seat": 1, "tribute": "SA"})
    assert d.phase == "return" and d.actors() == [0, 2]


IMMUNE_9 = ["S9", "S9", "D9", "D9", "C9", "C9", "H9", "H9", "H3", "H3"]


def test_immune_bomber_going_out_passes_the_lead_to_its_partner():
    d = position(
        [["ST", "S2", "D2"], IMMUNE_9, ["D6", "D7"], ["H8", "C8"]],
        lead_kind="trick",
        initiative=[True, False, False, False],
    )
    play(d, 0, ["ST"], "single")
    passes(d, 1, 2, 3)
    play(d, 0, ["S2", "D2"], "pair")
    d.apply({"seat": 1, "immune": IMMUNE_9})
    assert d.finished == [0, 1] and d.bao2 == [0, 0]
    assert d.to_move() == 3 and d.leading and d.lead_kind == "jiefeng"


def test_immune_after_a_deal_ending_bao2_voids_the_bonus():
    d = position(
        [[], ["C4"] + IMMUNE_9, ["S9", "S2"], ["H8", "C2", "S2"]],
        leader=2,
        lead_kind="trick",
        initiative=[True, False, True, False],
        finished=[0],
    )
    play(d, 2, ["S9"], "single")
    passes(d, 3, 1)
    play(d, 2, ["S2"], "single")
    assert d.phase == "immune" and d.to_move() == 3
    passes(d, 3)
    d.apply({"seat": 1, "immune": IMMUNE_9})
    assert d.over and d.bao2 == [0, 0]
    assert d.result["base"] == [3, 0] and d.result["bao2"] == [0, 0]
    assert d.result["closed"] == [2, 0]


def test_colour_twos_weights_closed_twos():
    d = position(
        [[], ["C4", "H2", "S2"], ["S9"], ["H8", "D2"]],
        leader=2,
        lead_kind="trick",
        initiative=[True, False, True, False],
        finished=[0],
        options={"colour_twos": True},
    )
    play(d, 2, ["S9"], "single")  # 1st and 2nd: the deal is over at once
    assert d.over and d.result["closed"] == [5, 0] and d.result["base"] == [3, 0]


def test_stuck_player_is_skipped_as_follower_once_stuck():
    d = position([["S2"], ["C4", "C6", "C8"], ["D6", "D7"], ["H8", "C9"]], leader=0)
    assert d.stuck[0] and d.to_move() == 1
    play(d, 1, ["C4"], "single")
    play(d, 2, ["D6"], "single")
    play(d, 3, ["H8"], "single")
    passes(d, 1, 2)  # seat 0 is never asked
    assert d.to_move() == 3 and d.leading and d.initiative[3]
