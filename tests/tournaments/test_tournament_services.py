"""Tournament services: windows, entries, rounds, results, corrections, scheduling by beat."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from clubs.models import Membership
from outbox.models import OutboxMessage
from tournaments import selectors
from tournaments.models import (
    EntryStatus,
    Game,
    GameStatus,
    Round,
    RoundStatus,
    TournamentNotice,
    TournamentStatus,
)
from tournaments.services import entries as entry_services
from tournaments.services import results as result_services
from tournaments.services import rounds as round_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import NotAllowed, TournamentError

START = datetime(2030, 5, 1, 9, 0, tzinfo=UTC)


def make_tournament(club, admin, **extra):
    fields = {
        "name": "春季瑞士赛",
        "variant": "bao2",
        "format": "swiss",
        "unit_kind": "pair",
        "rounds_planned": 3,
        "starts_at": START,
        "registration_closes": START - timedelta(minutes=5),
        "round_minutes": 60,
        "online": False,
    }
    fields.update(extra)
    return setup_services.create_tournament(admin, club, **fields)


def register_pair(a, b, tournament, now):
    """``a`` registers with ``b``, who accepts: the pair is registered."""
    entry_services.register(a, tournament, partner=b, now=now)
    return entry_services.answer_invitation(b, tournament, accept=True, now=now)


def register_pairs(tournament, people, checkin=True, now=None):
    now = now or START - timedelta(hours=1)
    entries = []
    for a, b in zip(people[0::2], people[1::2], strict=True):
        entry = register_pair(a, b, tournament, now)
        if checkin:
            entry_services.check_in(b, tournament, now=START - timedelta(minutes=10))
        entries.append(entry)
    return entries


def score_on_sheet(club, e0, e1):
    """Entries ``e0`` and ``e1`` score one Bao 2 deal in person on a sheet kept by ``e0``'s
    first player (``e0``'s pair seated 0 and 2), won by ``e1``'s pair, then time up; both
    sides confirm it. Returns the sheet."""
    from sheets import services as sheets

    seats = [e0.player1, e1.player1, e0.player2, e1.player2]
    sheet = sheets.start_sheet(
        e0.player1,
        club,
        variant="bao2",
        players=[sheets.PlayerSpec(user_id=u.pk) for u in seats],
        rated=False,
    )
    sheets.add_entry(e0.player1, sheet, {"deal": {"finish": [1, 3]}}, uuid.uuid4())
    sheets.add_entry(e0.player1, sheet, {"time_up": True}, uuid.uuid4())
    for who in (e0.player1, e1.player1):
        sheet = sheets.confirm(who, sheet)
    return sheet


def test_windows_and_entry_refusals(club, club_admin, members):
    people = members(6)
    t = make_tournament(club, club_admin)
    early = START - timedelta(days=2)
    with pytest.raises(TournamentError) as err:
        entry_services.register(people[0], t, partner=people[1], now=early)
    assert err.value.code == "registration_closed"  # still a draft
    setup_services.publish(club_admin, t, now=early)
    entry = register_pair(people[0], people[1], t, early)
    assert entry.name and entry.user_ids == [people[0].pk, people[1].pk]
    for kwargs, code in [
        ({"partner": None}, "partner_needed"),
        ({"partner": people[2]}, "already_registered"),
    ]:
        with pytest.raises(TournamentError) as err:
            entry_services.register(people[0], t, now=early, **kwargs)
        assert err.value.code == code
    with pytest.raises(TournamentError) as err:
        entry_services.register(people[2], t, partner=people[2], now=early)
    assert err.value.code == "bad_partner"
    with pytest.raises(TournamentError) as err:
        entry_services.register(people[2], t, partner=people[3], now=START)
    assert err.value.code == "registration_closed"
    with pytest.raises(TournamentError) as err:
        entry_services.check_in(people[1], t, now=early)
    assert err.value.code == "checkin_closed"
    assert entry_services.check_in(people[1], t, now=START - timedelta(minutes=20)).status == (
        EntryStatus.CHECKED_IN
    )
    with pytest.raises(TournamentError) as err:
        entry_services.check_in(people[4], t, now=START - timedelta(minutes=20))
    assert err.value.code == "not_registered"
    assert entry_services.withdraw(people[0], t).status == EntryStatus.WITHDRAWN


def test_only_admins_manage(club, club_admin, members):
    (member,) = members(1)
    with pytest.raises(NotAllowed):
        make_tournament(club, member)
    t = make_tournament(club, club_admin)
    for call in (
        lambda: setup_services.publish(member, t),
        lambda: setup_services.update_tournament(member, t, name="x"),
        lambda: setup_services.pause(member, t),
        lambda: round_services.start_round(member, t),
        lambda: round_services.pair_next_round(member, t),
    ):
        with pytest.raises(NotAllowed):
            call()


@pytest.mark.parametrize(
    "fields, code",
    [
        ({"variant": "mahjong"}, "bad_variant"),
        ({"variant": "honger"}, "bad_unit_kind"),  # Red Two: individual events only
        ({"variant": "shuangkou2", "unit_kind": "pair"}, "bad_unit_kind"),
        ({"unit_kind": "individual", "format": "round_robin"}, "bad_format"),
        ({"rounds_planned": 0}, "bad_number"),
        ({"tiebreaks": ["nope"]}, "bad_tiebreaks"),
        ({"match_options": {"colour": 1}}, "bad_options"),
        # a tournament's tables never show played cards, rated or not (八.7)
        ({"match_options": {"show_history": True}}, "history_competition"),
        ({"match_options": {"show_history": True}, "rated": True}, "history_competition"),
        ({"name": ""}, "bad_name"),
        ({"starts_at": datetime(2030, 1, 1)}, "bad_time"),
        ({"bogus": 1}, "bad_field"),
    ],
)
def test_bad_settings_are_refused(club, club_admin, fields, code):
    with pytest.raises(TournamentError) as err:
        make_tournament(club, club_admin, **fields)
    assert err.value.code == code


def test_in_person_swiss_with_sheet_results_corrections_and_edits(club, club_admin, members):

    people = members(10)
    t = make_tournament(club, club_admin, rated=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    assert schedule_services.tick(START - timedelta(minutes=1)) == {}
    # pair by hand, edit, then the beat starts the round at its time
    rnd = round_services.pair_next_round(club_admin, t, now=START - timedelta(minutes=1))
    games = list(rnd.games.order_by("number"))
    assert [g.status for g in games] == ["pending", "pending", "bye"]
    a, b = games[0].side0[0], games[1].side0[0]
    round_services.swap_entries(club_admin, rnd, a, b)
    games = list(rnd.games.order_by("number"))
    assert games[0].side0 == [b] and games[1].side0 == [a]
    assert any(n["code"] == "edited" for n in games[0].notes)
    assert schedule_services.tick(START) == {t.pk: ["started:1"]}
    rnd.refresh_from_db()
    assert rnd.status == RoundStatus.PLAYING
    with pytest.raises(TournamentError):
        round_services.swap_entries(club_admin, rnd, a, b)
    # each table scores in person on a sheet confirmed by both sides
    by_entry = {e.pk: e for e in entries}
    clock = time_machine.travel(START + timedelta(minutes=10), tick=False)
    clock.start()
    for game in rnd.games.filter(status=GameStatus.PLAYING):
        sheet = score_on_sheet(club, by_entry[game.side0[0]], by_entry[game.side1[0]])
        assert sheet.status == "confirmed"
    clock.stop()
    later = START + timedelta(minutes=30)
    with time_machine.travel(later, tick=False):
        done = schedule_services.tick(later)
    assert "finished:1" in done[t.pk] and "started:2" in done[t.pk]
    first = list(Round.objects.get(tournament=t, number=1).games.order_by("number"))
    assert all(g.source in ("sheet", "") for g in first)
    assert all(g.sheet_id for g in first if not g.is_bye)
    from ladder.models import RatedResult

    assert RatedResult.objects.filter(source="sheet").count() == 2  # rated: fed the ladder
    # a correction of round 1 updates the standings at once
    target = first[0]
    before = {line.entry.pk: line.row.values["match_points"] for line in selectors.standings(t)}
    result_services.set_result(club_admin, target, 3, 9, now=later)
    after = {line.entry.pk: line.row.values["match_points"] for line in selectors.standings(t)}
    assert after[target.side1[0]] >= before[target.side1[0]]
    assert sum(after.values()) == sum(before.values())
    with pytest.raises(TournamentError) as err:
        result_services.set_result(club_admin, target, 9, 3, winner=1)
    assert err.value.code == "bad_winner"


def test_elimination_bracket_follows_a_correction(club, club_admin, members):
    people = members(12)
    t = make_tournament(
        club, club_admin, format="elimination", third_place=True, start_when_ready=True
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    assert selectors.total_rounds(t) == 3
    schedule_services.tick(START)
    r1 = Round.objects.get(tournament=t, number=1)
    played = [g for g in r1.games.order_by("slot") if not g.is_bye]
    assert len(played) == 2 and r1.games.filter(status="bye").count() == 2
    for g in played:
        result_services.set_result(club_admin, g, 10, 5, now=START)
    schedule_services.tick(START + timedelta(minutes=1))
    r2 = Round.objects.get(tournament=t, number=2)
    assert r2.status == RoundStatus.PLAYING
    semis = list(r2.games.order_by("slot"))
    winners_r1 = {g.side0[0] for g in played}
    assert winners_r1 <= {u for g in semis for u in g.side0 + g.side1}
    # correct a first-round game: its new winner replaces the old one in the semi-final
    wrong = played[0]
    result_services.set_result(club_admin, wrong, 4, 11, now=START + timedelta(minutes=2))
    semis = list(r2.games.order_by("slot"))
    in_semis = {u for g in semis for u in g.side0 + g.side1}
    assert wrong.side1[0] in in_semis and wrong.side0[0] not in in_semis
    fixed = next(g for g in semis if wrong.side1[0] in g.side0 + g.side1)
    assert any(n["code"] == "bracket_corrected" for n in fixed.notes)
    for g in semis:
        result_services.set_result(club_admin, g, 7, 7, winner=0, now=START + timedelta(minutes=3))
    schedule_services.tick(START + timedelta(minutes=4))
    final_round = Round.objects.get(tournament=t, number=3)
    final, third = final_round.games.order_by("number")
    assert third.third_place and not final.third_place
    assert set(final.side0 + final.side1) == {g.side0[0] for g in semis}
    assert set(third.side0 + third.side1) == {g.side1[0] for g in semis}
    result_services.set_result(club_admin, final, 12, 3, now=START + timedelta(minutes=5))
    result_services.set_result(club_admin, third, 3, 12, now=START + timedelta(minutes=5))
    schedule_services.tick(START + timedelta(minutes=6))
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    assert len(entries) == 6
    bracket = selectors.bracket(t)
    assert [len(r) for r in bracket] == [4, 2, 2]


def test_round_robin_runs_all_rounds(club, club_admin, members):
    people = members(10)
    t = make_tournament(club, club_admin, format="round_robin", checkin_required=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people, checkin=False)
    assert selectors.total_rounds(t) == 5
    now = START
    for number in range(1, 6):
        schedule_services.tick(now)
        rnd = Round.objects.get(tournament=t, number=number)
        for g in rnd.games.filter(status="playing"):
            result_services.set_result(club_admin, g, 5 + number, 5, now=now)
        now += timedelta(minutes=1)
    schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    met = [tuple(sorted(g.side0 + g.side1)) for g in Game.objects.filter(round__tournament=t)]
    pairs = [m for m in met if len(m) == 2]
    assert len(pairs) == len(set(pairs)) == 10
    assert sum(1 for m in met if len(m) == 1) == 5


def test_pause_resume_and_start_by_hand(club, club_admin, members):
    people = members(8)
    t = make_tournament(club, club_admin, start_when_ready=False)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    t.refresh_from_db()
    assert t.status == TournamentStatus.RUNNING
    r1 = Round.objects.get(tournament=t, number=1)
    for g in r1.games.all():
        result_services.set_result(club_admin, g, 6, 2, now=START)
    setup_services.pause(club_admin, t)
    assert schedule_services.tick(START + timedelta(hours=2)).get(t.pk, []) == ["finished:1"]
    assert not Round.objects.filter(tournament=t, number=2).exists()
    setup_services.resume(club_admin, t)
    assert schedule_services.tick(START + timedelta(minutes=5)) == {}  # round 2 is due at 10:00
    round_services.start_round(club_admin, t, now=START + timedelta(minutes=6))
    assert Round.objects.get(tournament=t, number=2).status == RoundStatus.PLAYING
    with pytest.raises(TournamentError) as err:
        round_services.start_round(club_admin, t)
    assert err.value.code == "round_running"


def test_individual_event_rotates_partners(club, club_admin, members):
    people = members(8)
    t = make_tournament(club, club_admin, unit_kind="individual", rounds_planned=3)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    for i, person in enumerate(people):
        entry_services.register(person, t, team=f"T{i % 2}", now=START - timedelta(hours=1))
        entry_services.check_in(person, t, now=START - timedelta(minutes=10))
    now = START
    partners = set()
    for number in range(1, 4):
        schedule_services.tick(now)
        rnd = Round.objects.get(tournament=t, number=number)
        for g in rnd.games.all():
            for side in g.sides:
                key = tuple(sorted(side))
                assert key not in partners
                partners.add(key)
            result_services.set_result(club_admin, g, 5, 3, now=now)
        now += timedelta(minutes=1)
    rows = selectors.standings(t)
    assert len(rows) == 8 and sum(r.row.played for r in rows) == 24


# ----------------------------------------------------------------- full Swiss, bots, beat
# Committed as beat's tasks commit, not inside one test transaction: each move's engine state
# is kept after its commit for the next (uncommitted, every move replayed its match), and
# PostgreSQL can prune the old versions of the match rows, each rewritten a few hundred times
# (one open transaction kept them all: half this test's CPU was the server's).
@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_full_swiss_of_16_pairs_played_by_bots_through_beat(
    club,
    club_admin,
    members,
    celery_eager,
    no_deadline_tasks,
    settings,
    mailoutbox,
    django_capture_on_commit_callbacks,
):
    from matches.models import Match
    from matches.services import presence
    from matches.tasks import sweep_task
    from tournaments.tasks import tournament_tick_task

    settings.MATCHES_BOT_DELAY_SECONDS = 0
    people = members(34)
    t = make_tournament(
        club,
        club_admin,
        online=True,
        rounds_planned=4,
        time_limit_minutes=1,
        round_minutes=30,
        tiebreaks=["buchholz", "sonneborn_berger", "level_diff"],
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people[:32])
    late = register_pair(people[32], people[33], t, START - timedelta(hours=1))
    assert late.status == EntryStatus.REGISTERED  # never checks in: not paired
    now = START - timedelta(minutes=2)
    with time_machine.travel(now, tick=False) as clock:
        tournament_tick_task.delay()
        assert not t.rounds.exists()
        # the e-mails counted below are those from the rounds' start on (the invitations and
        # the check-in call went out as their transactions committed)
        mailoutbox.clear()
        clock.shift(timedelta(minutes=2))
        for number in range(1, 5):
            with django_capture_on_commit_callbacks(execute=True):
                tournament_tick_task.delay()  # round 1 at its time, then each when ready
            rnd = Round.objects.get(tournament=t, number=number)
            assert rnd.status == RoundStatus.PLAYING
            games = list(rnd.games.select_related("table"))
            assert len(games) == 8 and all(g.table_id for g in games)
            matches = list(Match.objects.filter(table__in=[g.table_id for g in games]))
            assert len(matches) == 8
            for match in matches:  # the players leave it to auto-play (bots)
                for seat in range(4):
                    presence.set_autoplay(match.pk, seat, "disconnect")
            clock.shift(timedelta(minutes=1, seconds=1))  # the match time limit passes
            for _ in range(3000):
                sweep_task.delay()
                if not Match.objects.filter(pk__in=[m.pk for m in matches], status="playing"):
                    break
                clock.shift(timedelta(seconds=1))
            else:
                raise AssertionError("matches did not finish")
            with django_capture_on_commit_callbacks(execute=True):
                tournament_tick_task.delay()  # results in: the next round starts at once
            rnd.refresh_from_db()
            assert rnd.status == RoundStatus.FINISHED
        tournament_tick_task.delay()
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    games = list(Game.objects.filter(round__tournament=t).select_related("table"))
    assert len(games) == 32 and all(g.status == GameStatus.FINISHED for g in games)
    met = [tuple(sorted(g.side0 + g.side1)) for g in games]
    assert len(set(met)) == 32, "no rematch in 4 Swiss rounds of 16"
    # standings agree with the live matches' own results
    points = {e.pk: 0 for e in entries}
    diff = {e.pk: 0 for e in entries}
    for g in games:
        result = Match.objects.get(table_id=g.table_id).result
        s0, s1 = result["score"]
        assert (g.score0, g.score1) == (s0, s1)
        for side, mine, theirs in ((g.side0, s0, s1), (g.side1, s1, s0)):
            points[side[0]] += 2 if mine > theirs else 1 if mine == theirs else 0
            diff[side[0]] += mine - theirs
    late.refresh_from_db()
    assert late.status == EntryStatus.WITHDRAWN  # no check-in before round 1
    lines = selectors.standings(t)
    lines = [line for line in lines if line.entry.pk != late.pk]
    assert {line.entry.pk: line.row.values["match_points"] for line in lines} == points
    assert {line.entry.pk: line.row.values["level_diff"] for line in lines} == diff
    keys = [
        tuple(line.row.values[k] for k in ("match_points", "buchholz", "sonneborn_berger"))
        for line in lines
    ]
    assert keys == sorted(keys, reverse=True)
    assert all(line.row.played == 4 for line in lines)
    # every player was told about every round, on the site and by email
    notices = TournamentNotice.objects.filter(tournament=t)
    assert notices.filter(url__contains="#round-").count() == 4 * 32
    assert notices.filter(url__endswith="#check-in").count() == 2  # the pair not checked in
    # every round e-mail, plus one to each player of the pair withdrawn for not checking in
    # (and, once it ended, the final standings to each of the 32 who played)
    finals = set(
        OutboxMessage.objects.filter(key__startswith=f"final:{t.pk}:").values_list(
            "message_id", flat=True
        )
    )
    assert len(finals) == 32
    mailoutbox = [m for m in mailoutbox if m.extra_headers["Message-ID"] not in finals]
    withdrawn_mail = [m for m in mailoutbox if set(m.to) & {late.player1.email, late.player2.email}]
    assert len(mailoutbox) - len(withdrawn_mail) == 4 * 32
    assert len(withdrawn_mail) == 2


def test_no_show_forfeits_after_grace_and_rated_results_feed_the_ladder(
    club, club_admin, members, no_deadline_tasks
):
    from ladder.models import RatedResult
    from matches.models import Match, Presence

    people = members(12)
    t = make_tournament(club, club_admin, online=True, rated=True, no_show_minutes=5)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    rnd = Round.objects.get(tournament=t, number=1)
    games = list(rnd.games.order_by("number"))
    assert len(games) == 3 and all(g.table_id for g in games)
    present_all, one_side, nobody = games
    for game, seats in ((present_all, range(4)), (one_side, (1, 3)), (nobody, ())):
        match = Match.objects.get(table_id=game.table_id)
        for seat in seats:
            Presence.objects.create(match=match, seat=seat, channel_name=f"c{game.pk}-{seat}")
    with time_machine.travel(START + timedelta(minutes=4), tick=False):
        assert "forfeits:1" not in schedule_services.tick(START + timedelta(minutes=4)).get(
            t.pk, []
        )
    later = START + timedelta(minutes=6)
    with time_machine.travel(later, tick=False):
        done = schedule_services.tick(later)[t.pk]
    assert "forfeits:1" in done
    one_side.refresh_from_db()
    nobody.refresh_from_db()
    present_all.refresh_from_db()
    assert present_all.status == GameStatus.PLAYING
    assert (one_side.status, one_side.source, one_side.winner) == ("finished", "forfeit", 1)
    assert (nobody.status, nobody.source, nobody.winner) == ("finished", "forfeit", None)
    rows = {line.entry.pk: line.row for line in selectors.standings(t)}
    assert rows[nobody.side0[0]].losses == 1 and rows[nobody.side1[0]].losses == 1
    assert rows[one_side.side1[0]].wins == 1
    # the forfeited live match of people at a rated table fed the club ladder
    forfeited = Match.objects.get(table_id=one_side.table_id)
    assert forfeited.result["reason"] == "forfeit"
    rated = RatedResult.objects.get(source="live", source_id=str(forfeited.pk))
    assert rated.club_id == club.pk and rated.winning_side == 1
    double = Match.objects.get(table_id=nobody.table_id)
    assert double.status == "finished" and double.events.count() == 1  # the log ends it
    assert not RatedResult.objects.filter(source_id=str(double.pk)).exists()
    nobody.refresh_from_db()
    assert (nobody.source, nobody.winner, nobody.score0, nobody.score1) == ("forfeit", None, 0, 0)
    notices = TournamentNotice.objects.filter(tournament=t, text__contains="弃权")
    assert notices.count() == 8  # the players of the two forfeited games


def test_individual_event_seats_partners_opposite_at_live_tables(
    club, club_admin, members, no_deadline_tasks
):
    from matches.models import Match

    people = members(8)
    t = make_tournament(club, club_admin, online=True, unit_kind="individual")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = {}
    for person in people:
        entry = entry_services.register(person, t, now=START - timedelta(hours=1))
        entry_services.check_in(person, t, now=START - timedelta(minutes=10))
        entries[entry.pk] = person.pk
    with time_machine.travel(START, tick=False):
        schedule_services.tick(START)
    for game in Game.objects.filter(round__tournament=t):
        seats = [s["user"] for s in Match.objects.get(table_id=game.table_id).seats]
        assert {seats[0], seats[2]} == {entries[e] for e in game.side0}
        assert {seats[1], seats[3]} == {entries[e] for e in game.side1}


def test_checkin_notice_once_and_table_failures_refuse_the_round(
    club, club_admin, members, no_deadline_tasks
):
    people = members(4)
    t = make_tournament(club, club_admin, online=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people, checkin=False)
    assert schedule_services.tick(START - timedelta(hours=1)) == {}
    assert schedule_services.tick(START - timedelta(minutes=20)) == {t.pk: ["checkin_open"]}
    assert schedule_services.tick(START - timedelta(minutes=19)) == {}
    notices = TournamentNotice.objects.filter(tournament=t, url__endswith="#check-in")
    assert notices.count() == 4 and "签到" in notices.first().text
    for person in people[::2]:
        entry_services.check_in(person, t, now=START - timedelta(minutes=10))
    # a player left the club: the round cannot open its table, nothing is kept

    Membership.objects.filter(user=people[3]).delete()
    with pytest.raises(TournamentError) as err:
        round_services.start_round(club_admin, t, now=START)
    assert err.value.code == "table_failed"
    assert not Round.objects.filter(tournament=t).exists()
    with time_machine.travel(START, tick=False):
        assert schedule_services.tick(START) == {t.pk: ["not_started:table_failed"]}


def test_players_find_their_table_and_get_an_email_with_a_link(
    club,
    club_admin,
    members,
    no_deadline_tasks,
    client,
    mailoutbox,
    settings,
    celery_eager,
    django_capture_on_commit_callbacks,
):
    settings.ALLOWED_HOSTS = ["bao2.example.org"]
    settings.SITE_URL = "https://bao2.example.org"
    settings.DEBUG = False
    people = members(4)
    t = make_tournament(club, club_admin, online=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    with time_machine.travel(START, tick=False):
        with django_capture_on_commit_callbacks(execute=True):
            schedule_services.tick(START)
    game = Game.objects.get(round__tournament=t)
    client.force_login(people[0])
    page = client.get(f"/tournaments/{t.pk}/", HTTP_HOST="bao2.example.org")
    assert f"/matches/tables/{game.table_id}/" in page.content.decode()
    assert len(mailoutbox) == 4
    # the e-mail links the player's own table on the configured site (issue 22), and names
    # the partner, the opponents and the time
    by_to = {m.to[0]: m.body for m in mailoutbox}
    body = by_to[people[0].email]
    assert f"https://bao2.example.org/matches/tables/{game.table_id}/" in body
    assert "localhost" not in body and "#round-1" not in body
    partner, opponents = people[1], [people[2], people[3]]
    assert partner.name in body and all(o.name in body for o in opponents)
    assert timezone.localtime(START).strftime("%H:%M") in body


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_concurrent_ticks_start_a_round_once(club, club_admin, members):
    from django.db import connection
    from matchkit import at_once

    if connection.vendor != "postgresql":
        pytest.skip("row locks (select_for_update) need PostgreSQL; SQLite serialises writers")

    people = members(8)
    t = make_tournament(club, club_admin)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    results, errors = at_once(lambda: schedule_services.tick(START))
    assert errors == []
    assert sorted(r.get(t.pk, []) for r in results) == [[], [], [], ["started:1"]]
    assert Round.objects.filter(tournament=t).count() == 1
    assert Game.objects.filter(round__tournament=t).count() == 2


def test_late_registration_until_a_set_round_and_withdrawal(club, club_admin, members):
    people = members(10)
    t = make_tournament(
        club,
        club_admin,
        late_until_round=2,
        registration_closes=None,
        rounds_planned=3,
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people[:6])
    schedule_services.tick(START)
    assert Game.objects.filter(round__number=1, round__tournament=t).count() == 2  # 3 + bye
    # during round 1 a late pair registers (no check-in needed) and one pair withdraws: the
    # organiser accepts it (第二十三条), its game is forfeited (第二十四条二.2)
    late = register_pair(people[6], people[7], t, START + timedelta(minutes=5))
    entry_services.withdraw(club_admin, t, entries[0], reason="有事")
    for g in Round.objects.get(tournament=t, number=1).games.filter(status="playing"):
        result_services.set_result(club_admin, g, 8, 2, now=START + timedelta(minutes=10))
    schedule_services.tick(START + timedelta(minutes=11))
    r2 = Round.objects.get(tournament=t, number=2)
    paired = {u for g in r2.games.all() for u in g.side0 + g.side1}
    assert late.pk in paired and entries[0].pk not in paired
    assert paired == {entries[1].pk, entries[2].pk, late.pk}
    with pytest.raises(TournamentError) as err:
        entry_services.register(people[8], t, partner=people[9], now=START + timedelta(minutes=12))
    assert err.value.code == "registration_closed"  # round 2 exists: too late


def test_two_player_shuangkou_singles_online(club, club_admin, members, no_deadline_tasks):
    from matchkit import play_out

    from matches.models import Match

    people = members(4)
    t = make_tournament(
        club,
        club_admin,
        variant="shuangkou2",
        unit_kind="single",
        online=True,
        rounds_planned=2,
        match_options={"deals": 1},
        checkin_required=False,
    )
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = {
        entry_services.register(p, t, now=START - timedelta(hours=1)).pk: p.pk for p in people
    }
    now = START
    for number in (1, 2):
        with time_machine.travel(now, tick=False):
            schedule_services.tick(now)
            games = list(Game.objects.filter(round__tournament=t, round__number=number))
            assert len(games) == 2
            for game in games:
                match = Match.objects.get(table_id=game.table_id)
                seats = [s["user"] for s in match.seats]
                assert seats == [entries[game.side0[0]], entries[game.side1[0]]]
                play_out(match)
        now += timedelta(minutes=1)
    with time_machine.travel(now, tick=False):
        schedule_services.tick(now)
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    rows = selectors.standings(t)
    assert sum(r.row.played for r in rows) == 8
    assert all(g.source == "live" for g in Game.objects.filter(round__tournament=t))
