"""The away summary (matches.services.away) shows auto-play's plays in reading order
(engine.display), read with the rules of the deal they were made in: in Guandan's second deal
the level has moved, and the ♥ level card is the wild card that completes a full house or a
straight (issue 43, point 4)."""

import pytest

from engine.cards import cards_str
from engine.display import display_order
from engine.match import Match as EngineMatch
from engine.variants import combo_rules
from matches.models import Actor, Match, Table
from matches.services import away, play, tables


def _first_or_pass(engine, seat):
    legal = engine.legal_actions(seat)
    passes = [a for a in legal if a.kind == "pass"]
    return passes[0] if passes else legal[0]


def a_wild_play_in_the_second_deal():
    """A seed, the actions up to a moment of its second deal, and a play of that moment: a
    full house or straight with the deal's wild card, shown otherwise than in card order and
    otherwise than the first deal's rules would show it (engine only)."""
    for k in range(200):
        seed = f"away-order-{k}"
        engine = EngineMatch.new("guandan", seed, {})
        actions = []
        while engine.deal_no == 0:  # (every seat passes when it may: a quick first deal)
            act = _first_or_pass(engine, engine.actors()[0])
            engine.apply(act)
            actions.append(act)
        level = engine.deal.level
        rules, first = combo_rules("guandan", level), combo_rules("guandan", None)
        for _ in range(60):
            seat = engine.actors()[0]
            for act in engine.legal_actions(seat):
                if act.kind != "play" or act.type not in ("full_house", "straight"):
                    continue
                if not any(rules.is_wild(c) for c in act.cards):
                    continue
                shown = list(display_order(rules.read_as(list(act.cards), act.type), rules))
                other = first.read_as(list(act.cards), act.type)
                if shown != sorted(act.cards) and (
                    other is None or list(display_order(other, first)) != shown
                ):
                    return seed, actions, act, level, cards_str(shown)
            act = _first_or_pass(engine, seat)
            engine.apply(act)
            actions.append(act)
    raise AssertionError("no such seed")


def test_auto_plays_are_shown_in_reading_order_with_their_deals_wild_card(club, players, scheduled):
    seed, actions, wild_play, level, shown = a_wild_play_in_the_second_deal()
    assert level != "2"  # the level moved: the first deal's rules would read these otherwise
    table = tables.open_table(players[0], club, variant="guandan", sit=False)
    match = tables.seat_players(Table.objects.get(pk=table.pk), players, seed=seed)
    for act in actions:  # the people play the first deal and the start of the second
        play.submit_action(match.pk, act, seat=act.seat, user=players[act.seat])
    seat = wild_play.seat
    # the seat drops out and auto-play makes the play with the wild card for it
    play.submit_action(match.pk, wild_play, seat=seat, actor=Actor.AUTOPLAY)
    summary = away.away_summary(Match.objects.get(pk=match.pk), seat)
    assert summary is not None and len(summary["plays"]) == 1
    told = summary["plays"][0]
    assert told["type"] == wild_play.type
    assert told["cards"] == shown, (told, cards_str(wild_play.cards), level)
    assert told["cards"] != cards_str(sorted(wild_play.cards))


@pytest.mark.parametrize(
    ("cards", "kind", "shown"),
    [
        # the full house: its triple, then its pair
        (["S6", "S7", "H6", "C6", "D7"], "full_house", ["S6", "H6", "C6", "S7", "D7"]),
        # a straight from its low end
        (["S7", "H3", "C5", "D4", "S6"], "straight", ["H3", "D4", "C5", "S6", "S7"]),
    ],
)
def test_a_plays_cards_are_read_in_order_and_kept_when_they_do_not_read(cards, kind, shown):
    # (the first deal's rules, as the summary reads a play of it)
    assert away._reading_order("guandan", "2", cards, kind) == shown
    # cards that do not read as the type told stay as they were played
    assert away._reading_order("guandan", "2", cards, "bomb") == cards
    assert away._reading_order("guandan", "2", ["XX"], kind) == ["XX"]
