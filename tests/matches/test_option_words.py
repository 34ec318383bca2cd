"""Every number option the engine has is bounded, and its refusal reaches a person as a
sentence in their language naming the option (the open-table service, the table form and the
tournament settings read the engine's bounds: one place for them)."""

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from engine.match import Match as EngineMatch
from engine.match import OptionError
from engine.variants import deal_rules
from games.options import offered_bounds, option_problem
from games.variants import Variant
from matches.forms import TableForm
from matches.messages import MatchError
from matches.models import Table
from matches.services import tables
from tournaments.forms import check_settings
from tournaments.services.errors import TournamentError


@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_every_number_option_is_bounded_and_refused_past_its_bounds(variant):
    rules = deal_rules(variant)
    options = {**rules.defaults, **rules.optional_options}
    numbers = [k for k, v in options.items() if not isinstance(v, bool)]
    assert numbers
    for name in numbers:
        low, high = rules.option_bounds[name]
        assert EngineMatch.new(variant, 1, {name: high}).options[name] == high
        for bad in (low - 1, high + 1, str(high), 1.5):
            with pytest.raises(OptionError) as refused:
                EngineMatch.new(variant, 1, {name: bad})
            assert (refused.value.option, refused.value.kind) == (name, "range")
            assert (refused.value.low, refused.value.high) == (low, high)


def test_the_refusal_is_said_in_the_readers_language():
    with pytest.raises(OptionError) as refused:
        EngineMatch.new("guandan", 1, {"action_seconds": 601})
    with translation.override("zh-hans"):
        assert option_problem(refused.value) == "之后每手的秒数必须是 1 到 600 之间的整数。"
    with translation.override("en"):
        assert option_problem(refused.value) == (
            "Seconds for later actions must be a whole number from 1 to 600."
        )
    with pytest.raises(OptionError) as refused:
        EngineMatch.new("guandan", 1, {"colour_twos": 1})
    with translation.override("zh-hans"):
        assert option_problem(refused.value) == "没有“colour_twos”这个比赛选项。"
    with pytest.raises(OptionError) as refused:
        EngineMatch.new("bao2", 1, {"colour_twos": 1})
    with translation.override("zh-hans"):
        assert option_problem(refused.value) == "花色2：请选择是或否。"


def test_the_forms_offer_the_engines_bounds_and_a_person_at_least_five_seconds():
    assert offered_bounds("action_seconds") == (5, 600)
    assert offered_bounds("deals", deal_rules("honger").option_bounds) == (1, 50)
    form = TableForm(variant="honger")
    assert (form.fields["deals"].min_value, form.fields["deals"].max_value) == (1, 50)
    assert form.fields["first_action_seconds"].min_value == 5


@pytest.mark.django_db
def test_the_service_refuses_an_unbounded_clock_in_words_and_opens_nothing(club, players):
    with pytest.raises(MatchError) as refused:
        tables.open_table(players[0], club, variant="bao2", options={"action_seconds": 10**9})
    assert refused.value.code == "bad_options"
    with translation.override("zh-hans"):
        assert refused.value.message == "之后每手的秒数必须是 1 到 600 之间的整数。"
        assert refused.value.to_json()["message"] == refused.value.message
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_the_tournament_settings_refuse_the_option_in_words():
    start = timezone.now() + timedelta(days=2)
    settings = {"name": "x", "variant": "bao2", "starts_at": start}
    with translation.override("zh-hans"), pytest.raises(TournamentError) as refused:
        check_settings({**settings, "match_options": {"a_attempts": 0}}, None)
    assert refused.value.fields["match_options"] == ["打A次数必须是 1 到 10 之间的整数。"]
