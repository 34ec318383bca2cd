"""Issue 19, the server side: the time limit "none", the pause between deals, the open-table
form's engine options, the referee's sanctions."""

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import override_settings
from django.utils import timezone, translation
from matchkit import make_user

from clubs.models import Membership, Role
from engine.match import Match as EngineMatch
from engine.variants import variant_facts
from games.variants import Variant
from matches import broadcast, selectors, store
from matches.forms import TableForm
from matches.messages import MatchError
from matches.models import Match, MatchEvent, Table
from matches.services import clock, play, tables
from matches.services.access import may_referee
from tournaments.models import Game, Round, Tournament


def people_and_bots(club, players, people=2, **kwargs):
    """A Bao 2 table: ``people`` players in the first seats, heuristic bots in the rest."""
    table = tables.open_table(players[0], club, variant="bao2", **kwargs)
    for seat in range(1, 4):
        if seat < people:
            tables.take_seat(players[seat], table, seat)
        else:
            tables.add_bot(players[0], table, seat, "heuristic")
    return Match.objects.get(table=table)


def play_to_next_deal(match, players):
    """Play until the match's first deal is over: bots by their deadlines, people by sending
    (as players) what the heuristic would play. Returns the match as stored then."""
    for _ in range(2000):
        match = Match.objects.get(pk=match.pk)
        engine = EngineMatch.from_json(match.snapshot)
        if engine.deals or engine.over:
            return match
        act_once(match, players)
    raise AssertionError("the deal did not end")


def act_once(match, players):
    """The seat to move acts: a bot at its deadline, a person as the heuristic would."""
    seat = match.to_move
    if match.seats[seat]["bot"]:
        clock.act_on_deadline(match.pk, match.version, force=True)
        return
    engine = EngineMatch.from_json(match.snapshot)
    action = clock.bot_action(engine, seat, "heuristic", match.version)
    play.submit_action(match.pk, action.to_json(), seat=seat, user=players[seat])


def seconds_after(later, earlier):
    return (later - earlier).total_seconds()


# ------------------------------------------------------------------ time limit "none"
def test_time_limit_zero_is_no_limit_and_unset_is_the_engine_default(club, players, scheduled):
    assert variant_facts("bao2").options["time_limit_minutes"] == 60
    none = tables.open_table(players[0], club, variant="bao2", time_limit_seconds=0, sit=False)
    default = tables.open_table(players[0], club, variant="bao2", sit=False)
    assert none.time_limit_seconds == 0 and default.time_limit_seconds == 3600
    for table in (none, default):
        for seat in range(4):
            tables.add_bot(players[0], table, seat, "heuristic")
    assert Match.objects.get(table=none).ends_at is None
    started = Match.objects.get(table=default)
    assert seconds_after(started.ends_at, started.started_at) == 3600
    assert not [c for c in scheduled if c[0] == "limit" and c[1] != started.pk]


def test_the_form_opens_a_bao2_table_without_time_limit(client, club, players, scheduled):
    client.force_login(players[0])
    form = TableForm(variant="bao2")
    data = {name: field.initial for name, field in form.fields.items()}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (False, None)}
    data["time_limit_minutes"] = 0
    response = client.post(f"/matches/clubs/{club.slug}/tables/?game=bao2", data)
    table = Table.objects.get()
    assert response.status_code == 302 and table.time_limit_seconds == 0
    for seat in range(1, 4):
        tables.add_bot(players[0], table, seat, "heuristic")
    assert Match.objects.get(table=table).ends_at is None


# ------------------------------------------------------------------ the pause between deals
@override_settings(MATCHES_BOT_DELAY_SECONDS=0, MATCHES_SUMMARY_PAUSE_SECONDS=10)
def test_next_deal_clock_starts_after_the_pause(club, players, scheduled):
    match = play_to_next_deal(people_and_bots(club, players), players)
    pause = match.pause
    assert pause["deal"] == 0 and pause["pending"] == [0, 1]  # the bots count as dismissed
    until = match.pause_ends(timezone.now())
    assert 9 < seconds_after(until, timezone.now()) <= 10
    engine = store.engine_of(match)
    seat = match.to_move
    wait = 0 if match.seats[seat]["bot"] else engine.action_seconds(seat)
    assert abs(seconds_after(match.deadline, until) - wait) < 0.01
    assert selectors.public_state(match)["summary_pending"] == [0, 1]
    # once the pause is over, the clocks run from the action as usual, and the pause is gone
    Match.objects.filter(pk=match.pk).update(
        pause={**pause, "until": (timezone.now() - timedelta(seconds=1)).timestamp()}
    )
    match.refresh_from_db()
    assert selectors.public_state(match)["summary_pending"] is None
    assert play.dismiss_summary(match.pk, 0, 0) is False  # too late: changes nothing
    act_once(match, players)
    match.refresh_from_db()
    assert match.pause is None
    if match.deadline is not None:
        assert seconds_after(match.deadline, timezone.now()) <= 30


@override_settings(MATCHES_BOT_DELAY_SECONDS=0, MATCHES_SUMMARY_PAUSE_SECONDS=10)
def test_next_deal_clock_starts_as_soon_as_everyone_dismissed(club, players, scheduled):
    match = play_to_next_deal(people_and_bots(club, players), players)
    deadline = match.deadline
    assert play.dismiss_summary(match.pk, 1, 5) is False  # another deal's summary
    assert play.dismiss_summary(match.pk, 2, 0) is False  # a bot's seat: nothing to dismiss
    with pytest.raises(MatchError):
        play.dismiss_summary(match.pk, 1, "0")
    assert play.dismiss_summary(match.pk, 1, 0) is True
    assert play.dismiss_summary(match.pk, 1, 0) is False  # once
    match.refresh_from_db()
    assert match.pause["pending"] == [0] and match.deadline == deadline
    scheduled.clear()
    assert play.dismiss_summary(match.pk, 0, 0) is True
    match.refresh_from_db()
    assert match.pause is None and selectors.public_state(match)["summary_pending"] is None
    # the deadline moved earlier by what was left of the pause: the clock runs from now
    engine = store.engine_of(match)
    seat = match.to_move
    wait = 0 if match.seats[seat]["bot"] else engine.action_seconds(seat)
    assert abs(seconds_after(match.deadline, timezone.now()) - wait) < 1
    assert match.deadline < deadline
    assert [c[:3] for c in scheduled] == [("deadline", match.pk, match.version)]


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_no_pause_at_a_table_of_bots(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2", sit=False)
    for seat in range(4):
        tables.add_bot(players[0], table, seat, "heuristic")
    match = play_to_next_deal(Match.objects.get(table=table), players)
    assert match.pause is None
    assert selectors.public_state(match)["summary_pending"] is None


# ------------------------------------------------------------------ the open-table form
@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_the_form_offers_every_engine_option_with_its_default(variant):
    form = TableForm(variant=variant)
    defaults = variant_facts(variant).options
    for name, default in defaults.items():
        assert form.fields[name].initial == default, name
    for name in ("clocks", "rated", "spectators_allowed"):
        assert name in form.fields
    html = form.as_p()
    assert "{" not in html  # never raw JSON


def test_the_form_bounds_numbers_and_refuses_history_at_rated_tables(settings):
    settings.LANGUAGE_CODE = "zh-hans"
    base = {"variant": "honger", "time_limit_minutes": 0, "first_action_seconds": 30}
    base |= {"action_seconds": 20, "deals": 8, "base": 1}
    form = TableForm({**base, "deals": 0, "base": 10**9, "time_limit_minutes": -1})
    assert not form.is_valid()
    assert {"deals", "base", "time_limit_minutes"} <= set(form.errors)
    form = TableForm({**base, "rated": "on", "show_history": "on"})
    assert not form.is_valid() and "show_history" in form.errors
    form = TableForm({**base, "show_history": "on", "deals": 4, "base": 2})
    assert form.is_valid(), form.errors
    kwargs = form.service_kwargs()
    assert kwargs["options"] == {
        "first_action_seconds": 30,
        "action_seconds": 20,
        "deals": 4,
        "base": 2,
        "show_history": True,
    }
    assert kwargs["time_limit_seconds"] == 0


def test_show_history_only_at_casual_tables(club, players, scheduled):
    with pytest.raises(MatchError) as refused:
        tables.open_table(
            players[0], club, variant="bao2", rated=True, options={"show_history": True}
        )
    assert refused.value.code == "history_rated"
    table = tables.open_table(
        players[0], club, variant="bao2", options={"show_history": True}, sit=False
    )
    for seat in range(4):
        tables.add_bot(players[0], table, seat, "heuristic")
    match = Match.objects.get(table=table)
    for _ in range(12):
        clock.act_on_deadline(match.pk, match.version, force=True)
        match.refresh_from_db()
    engine = store.engine_of(match)
    assert "history" in engine.observation(0) and "history" in engine.observation(None)
    plain = EngineMatch.new("bao2", "x")
    assert "history" not in plain.observation(0)


@pytest.mark.parametrize("rated", [False, True])
def test_show_history_is_refused_at_every_competition_table(club, players, rated):
    # tournament and league tables (competition rules 八.7), rated or not: nothing is opened
    before = Table.objects.count()
    with pytest.raises(MatchError) as refused:
        tables.open_table(
            players[0],
            club,
            variant="guandan",
            rated=rated,
            competition=True,
            options={"show_history": True},
        )
    assert refused.value.code == "history_competition"
    with translation.override("zh-hans"):
        assert "比赛" in refused.value.message and "八.7" in refused.value.message
    with translation.override("en"):
        assert refused.value.message.startswith("Played cards cannot be shown at a tournament")
    assert Table.objects.count() == before
    # without it a competition table opens as always
    table = tables.open_table(
        players[0], club, variant="guandan", rated=rated, competition=True, sit=False
    )
    assert table.rated is rated and not table.options.get("show_history")


# ------------------------------------------------------------------ the referee
@pytest.fixture
def officials(club):
    """Who referees without playing: an admin of the club and the tournament's organiser
    (a plain member), neither seated (a seated player may not referee: issue 40)."""
    admin, organiser = make_user("referee-admin"), make_user("organiser")
    Membership.objects.create(club=club, user=admin, role=Role.ADMIN)
    Membership.objects.create(club=club, user=organiser, role=Role.MEMBER)
    return admin, organiser


@pytest.fixture
def organiser_table(club, players, officials, scheduled):
    """A live table of four players, of a tournament organised by ``officials[1]``."""
    match = people_and_bots(club, players, people=4)
    tournament = Tournament.objects.create(
        club=club,
        name="春季赛",
        variant="bao2",
        starts_at=timezone.now(),
        created_by=officials[1],
    )
    rnd = Round.objects.create(tournament=tournament, number=1, scheduled_at=timezone.now())
    Game.objects.create(round=rnd, number=1, side0=[], side1=[], table=match.table)
    return match


def test_who_may_referee(club, players, officials, organiser_table):
    table = organiser_table.table
    outsider_club_admin = make_user("elsewhere")
    assert may_referee(officials[0], table)  # an admin of the club
    assert may_referee(officials[1], table)  # the tournament's organiser
    assert not may_referee(players[0], table)  # the club's owner, seated at the table
    assert not may_referee(players[2], table)  # a member (seated)
    assert not may_referee(AnonymousUser(), table)
    assert not may_referee(outsider_club_admin, table)
    for user in (players[2], AnonymousUser()):
        with pytest.raises(MatchError) as refused:
            play.referee_sanction(user, organiser_table.pk, "yellow", 0, "不文明")
        assert refused.value.code == "not_referee"
    assert Match.objects.get(pk=organiser_table.pk).version == organiser_table.version


@override_settings(MATCHES_BOT_DELAY_SECONDS=0, MATCHES_SUMMARY_PAUSE_SECONDS=0)
def test_a_yellow_card_lowers_the_level_for_every_seat(
    club, players, officials, monkeypatch, scheduled
):
    match = play_to_next_deal(people_and_bots(club, players, people=4), players)
    levels = EngineMatch.from_json(match.snapshot).levels
    team = 0 if levels[0] > 0 else 1
    assert levels[team] > 0
    sent = []
    monkeypatch.setattr(broadcast, "_send", lambda messages, key=None: sent.extend(messages))
    for bad in (("purple", team, "x"), ("yellow", 9, "x"), ("yellow", team, "  ")):
        with pytest.raises(MatchError):
            play.referee_sanction(officials[0], match.pk, *bad)
    assert not sent
    accepted = play.referee_sanction(officials[0], match.pk, "yellow", team, "  拖延时间  ")
    event = MatchEvent.objects.get(match=match, seq=accepted.version)
    assert event.actor == "referee" and event.user == officials[0] and event.seat is None
    assert event.action == {"sanction": "yellow", "target": team, "reason": "拖延时间"}
    [(_, message)] = sent
    frames = message["texts"]
    assert set(frames) == {"0", "1", "2", "3", "s"}
    for text in frames.values():
        frame = json.loads(text)
        assert frame["event"]["actor"] == "referee"
        assert frame["event"]["action"]["reason"] == "拖延时间"
        assert frame["obs"]["levels"][team] == levels[team] - 1
        assert frame["obs"]["cards"]["yellow"][team] == 1
    # the replay shows it too
    steps = selectors.replay_frames(Match.objects.get(pk=match.pk))
    assert steps[-1]["actor"] == "referee" and steps[-1]["views"][0]["levels"][team] == (
        levels[team] - 1
    )


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
def test_sanctions_are_refused_on_a_finished_match(club, officials, organiser_table):
    match = organiser_table
    play.referee_sanction(officials[1], match.pk, "forfeit", 1, "弃权")
    match.refresh_from_db()
    assert match.status == "finished" and match.result["winner"] == 0
    with pytest.raises(MatchError) as refused:
        play.referee_sanction(officials[0], match.pk, "yellow", 0, "迟到")
    assert refused.value.code == "match_over"
    assert Match.objects.get(pk=match.pk).version == match.version


def test_point_games_have_no_cards():
    assert play.referee_sanctions("honger") == ["revoke_initiative", "suspend_follow", "forfeit"]
    assert play.referee_sanctions("bao2") == [
        "revoke_initiative",
        "suspend_follow",
        "yellow",
        "red",
        "forfeit",
    ]


def test_referee_view_answers_json_and_checks_the_permission(
    client, club, players, officials, organiser_table
):
    match = organiser_table
    url = f"/matches/tables/{match.table_id}/referee/"
    client.force_login(players[2])
    page = client.get(f"/matches/tables/{match.table_id}/")
    assert 'id="referee"' not in page.content.decode()
    response = client.post(url, {"sanction": "yellow", "target": 0, "reason": "x"})
    assert response.status_code == 403 and response.json()["code"] == "not_referee"
    client.force_login(officials[1])
    page = client.get(f"/matches/tables/{match.table_id}/")
    assert 'id="referee"' in page.content.decode() and "js/referee.js" in page.content.decode()
    response = client.post(url, {"sanction": "suspend_follow", "target": 9, "reason": "x"})
    assert response.status_code == 400
    response = client.post(url, {"sanction": "revoke_initiative", "target": 0, "reason": "x"})
    assert response.status_code == 200 and response.json()["version"] == match.version + 1
    client.logout()
    response = client.post(url, {"sanction": "yellow", "target": 0, "reason": "x"})
    assert response.status_code == 403
