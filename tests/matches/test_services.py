import json

import pytest
from django.db import IntegrityError, OperationalError
from django.db.models.signals import post_init, pre_init
from django.test import override_settings
from django.utils import timezone
from matchkit import make_user, run_until_over

from engine.match import Match as EngineMatch
from matches import store
from matches.messages import MatchError
from matches.models import Match, MatchEvent, Table
from matches.services import clock, play, presence, tables


def full_table(club, players, variant="bao2", **kwargs):
    table = tables.open_table(players[0], club, variant=variant, **kwargs)
    for i, user in enumerate(players[1 : table.seat_count], start=1):
        tables.take_seat(user, table, i)
    table.refresh_from_db()
    return table


def test_open_table_take_seats_starts_match(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2", options={"colour_twos": True})
    assert table.status == "open"
    assert list(table.seats.values_list("user", flat=True)) == [players[0].pk, None, None, None]
    with pytest.raises(MatchError) as refused:
        tables.take_seat(players[0], table, 1)
    assert refused.value.code == "already_seated"
    tables.take_seat(players[1], table, 1)
    with pytest.raises(MatchError) as refused:
        tables.take_seat(players[2], table, 1)
    assert refused.value.code == "seat_taken"
    tables.take_seat(players[2], table, 2)
    assert not Match.objects.filter(table=table).exists()
    tables.take_seat(players[3], table, 3)
    table.refresh_from_db()
    assert table.status == "playing"
    match = table.match
    assert match.version == 0 and match.options["colour_twos"] is True
    assert [s["user"] for s in match.seats] == [p.pk for p in players]
    assert match.deadline is not None and match.deadline_version == 0
    assert ("deadline", match.pk, 0) == scheduled[0][:3]


def test_outsider_and_bad_options_refused(club, players, scheduled):
    outsider = make_user("outsider")
    with pytest.raises(MatchError) as refused:
        tables.open_table(outsider, club, variant="bao2")
    assert refused.value.code == "not_member"
    with pytest.raises(MatchError) as refused:
        tables.open_table(players[0], club, variant="bao2", options={"nonsense": 1})
    assert refused.value.code == "bad_options"
    with pytest.raises(MatchError) as refused:
        tables.open_table(players[0], club, variant="chess")
    assert refused.value.code == "bad_variant"
    table = tables.open_table(players[0], club, variant="bao2", rated=True)
    with pytest.raises(MatchError) as refused:
        tables.add_bot(players[0], table, 1, "heuristic")
    assert refused.value.code == "rated_bots"
    assert Table.objects.count() == 1


def test_actions_refused_change_nothing_and_accepted_bump_version(club, players, scheduled):
    table = full_table(club, players)
    match = table.match
    engine = EngineMatch.from_json(match.snapshot)
    seat = engine.to_move()
    other = (seat + 1) % 4
    legal = engine.legal_actions(seat)[0].to_json()
    # out of turn, acting for another seat, stale version, garbage
    for action, actor_seat, expected, code in [
        ({**legal, "seat": other}, other, 0, "not_your_turn"),
        (legal, other, 0, "not_your_seat"),
        (legal, seat, 3, "stale"),
        ({"play": ["ZZ"], "type": "single"}, seat, 0, "invalid_card"),
        ({"time_up": True}, seat, 0, "invalid_action"),
        ({"pass": True, "play": ["S3"]}, seat, 0, "invalid_action"),
    ]:
        if action is legal and actor_seat == other:
            action = dict(legal)
        with pytest.raises(MatchError) as refused:
            play.submit_action(
                match.pk,
                action,
                seat=actor_seat,
                user=players[actor_seat],
                expected_version=expected,
            )
        assert refused.value.code == code, action
        assert refused.value.message
    match.refresh_from_db()
    assert match.version == 0 and not MatchEvent.objects.exists()
    accepted = play.submit_action(
        match.pk, legal, seat=seat, user=players[seat], expected_version=0
    )
    assert accepted.version == 1
    match.refresh_from_db()
    assert match.version == 1 and match.events.get().seq == 1
    # the same action at the old version is stale: exactly one acceptance
    with pytest.raises(MatchError) as refused:
        play.submit_action(match.pk, legal, seat=seat, user=players[seat], expected_version=0)
    assert refused.value.code == "stale"


def test_event_seq_unique(club, players, scheduled):
    table = full_table(club, players)
    MatchEvent.objects.create(match=table.match, seq=1, action={"time_up": True}, actor="system")
    with pytest.raises(IntegrityError):
        MatchEvent.objects.create(
            match=table.match, seq=1, action={"time_up": True}, actor="system"
        )
    MatchEvent.objects.all().delete()


def test_clock_timeout_twice_puts_seat_on_autoplay_until_it_acts(club, players, scheduled):
    table = full_table(club, players)
    match = table.match
    seat = match.to_move
    # too early: nothing happens
    assert clock.act_on_deadline(match.pk, 0) == "early"
    # a task for another version does nothing
    assert clock.act_on_deadline(match.pk, 7, force=True) == "stale"
    acted = {}
    for _ in range(40):
        match.refresh_from_db()
        if match.autoplay[seat]:
            break
        who = clock.act_on_deadline(match.pk, match.version, force=True)
        acted.setdefault(match.to_move, []).append(who)
    assert match.autoplay[seat] == "timeout"
    assert acted[seat][:2] == ["clock", "clock"]
    events = list(match.events.filter(seat=seat).values_list("actor", flat=True))
    assert events[:2] == ["clock", "clock"]
    # now the heuristic plays for the seat
    while match.to_move != seat:
        clock.act_on_deadline(match.pk, match.version, force=True)
        match.refresh_from_db()
    assert clock.act_on_deadline(match.pk, match.version, force=True) == "auto"
    # the person acts again: auto-play ends
    match.refresh_from_db()
    while match.to_move != seat:
        clock.act_on_deadline(match.pk, match.version, force=True)
        match.refresh_from_db()
    engine = EngineMatch.from_json(match.snapshot)
    action = engine.legal_actions(seat)[0].to_json()
    play.submit_action(match.pk, action, seat=seat, user=players[seat])
    match.refresh_from_db()
    assert match.autoplay[seat] == "" and match.timeouts[seat] == 0


@override_settings(MATCHES_BOT_DELAY_SECONDS=0)
@pytest.mark.parametrize("variant", ["bao2", "guandan", "honger", "shuangkou2"])
def test_bot_tables_play_every_variant_to_the_end(club, players, scheduled, variant):
    table = tables.open_table(
        players[0], club, variant=variant, sit=False, time_limit_seconds=0, options={}
    )
    for i in range(table.seat_count):
        tables.add_bot(players[0], table, i, "heuristic" if i % 2 else "random")
    table.refresh_from_db()
    match = run_until_over(table.match.pk)
    assert match.result["over"] is True
    table.refresh_from_db()
    assert table.status == "finished"
    assert set(match.events.values_list("actor", flat=True)) == {"bot"}


def test_time_limit_ends_match_after_the_deal(club, players, scheduled):
    table = tables.open_table(players[0], club, variant="bao2", sit=False, time_limit_seconds=1)
    for i in range(4):
        tables.add_bot(players[0], table, i, "heuristic")
    match = Match.objects.get(table=table)
    assert match.ends_at is not None
    assert clock.apply_time_limit(match.pk) is False  # not yet
    Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    assert clock.apply_time_limit(match.pk) is True
    assert clock.apply_time_limit(match.pk) is False  # once only
    match = run_until_over(match.pk)
    assert match.result["reason"] == "time"
    assert match.events.filter(action={"time_up": True}).count() == 1
    assert match.snapshot["actions"].count('{"time_up":true}') == 1


def test_sweeper_applies_overdue_deadlines(club, players, scheduled):
    table = full_table(club, players)
    match = table.match
    Match.objects.filter(pk=match.pk).update(deadline=match.deadline.replace(year=2000))
    assert clock.sweep() == {"deadlines": 1, "time_limits": 0}
    match.refresh_from_db()
    assert match.version == 1 and match.events.get().actor == "clock"
    assert clock.sweep() == {"deadlines": 0, "time_limits": 0}


def test_rated_match_is_recorded_for_the_ladder(club, players, scheduled):
    from ladder.models import RatedResult

    table = full_table(club, players, rated=True, time_limit_seconds=1)
    match = table.match
    for seat in range(4):
        presence.set_autoplay(match.pk, seat, "timeout")
    Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    clock.apply_time_limit(match.pk)
    match = run_until_over(match.pk)
    result = RatedResult.objects.get(source="live", source_id=str(match.pk))
    assert [result.score0, result.score1] == match.result["score"]
    assert result.club_id == club.pk
    sides = sorted(result.players.values_list("side", "user_id"))
    assert sides == sorted(
        [(0, players[0].pk), (0, players[2].pk), (1, players[1].pk), (1, players[3].pk)]
    )


def test_disconnect_and_reconnect_autoplay(club, players, scheduled):
    table = full_table(club, players)
    match = table.match
    presence.connected(match.pk, 1, "chan-a")
    presence.connected(match.pk, 1, "chan-b")
    presence.disconnected("chan-a")
    match.refresh_from_db()
    assert match.autoplay[1] == ""
    presence.disconnected("chan-b")
    match.refresh_from_db()
    assert match.autoplay[1] == "disconnect"
    presence.connected(match.pk, 1, "chan-c")
    match.refresh_from_db()
    assert match.autoplay[1] == ""


def test_stale_presence_of_a_crashed_server_does_not_block_autoplay(club, players, scheduled):
    from datetime import timedelta

    from django.utils import timezone

    from matches.models import Presence

    table = full_table(club, players)
    match = table.match
    # a server crashed: its connection of seat 1 never said goodbye
    presence.connected(match.pk, 1, "chan-dead")
    long_ago = timezone.now() - presence.PRESENCE_TTL - timedelta(seconds=1)
    Presence.objects.filter(channel_name="chan-dead").update(connected_at=long_ago)
    # a live second tab keeps confirming itself with heartbeats
    presence.connected(match.pk, 1, "chan-live")
    Presence.objects.filter(channel_name="chan-live").update(connected_at=long_ago)
    presence.heartbeat("chan-live")
    assert Presence.objects.get(channel_name="chan-live").connected_at > long_ago
    presence.connected(match.pk, 1, "chan-new")
    presence.disconnected("chan-new")
    match.refresh_from_db()
    assert match.autoplay[1] == ""  # the live tab is still there
    presence.disconnected("chan-live")
    match.refresh_from_db()
    assert match.autoplay[1] == "disconnect"  # the dead row did not count
    assert not Presence.objects.filter(channel_name="chan-dead").exists()


def _interleave(monkeypatch, between):
    """Run ``between()`` once, after the next action has read the match and before it writes."""
    real = store.engine_of
    calls = []

    def engine_of(match):
        engine = real(match)
        if not calls:
            calls.append(match.version)
            between()
        return engine

    monkeypatch.setattr(store, "engine_of", engine_of)
    return calls


def test_action_retried_when_a_seat_goes_on_autoplay_between_read_and_write(
    club, players, scheduled, monkeypatch
):
    table = full_table(club, players)
    match = table.match
    seat = match.to_move
    other = (seat + 1) % 4
    engine = store.engine_of(match)
    action = engine.legal_actions(seat)[0].to_json()
    calls = _interleave(monkeypatch, lambda: presence.set_autoplay(match.pk, other, "disconnect"))
    accepted = play.submit_action(
        match.pk, action, seat=seat, user=players[seat], expected_version=0
    )
    assert calls == [0] and accepted.version == 1
    match.refresh_from_db()
    # the write that lost the race was redone from a fresh read: the auto-play flag survives
    assert match.autoplay[other] == "disconnect"
    assert match.revision == 2 and match.events.count() == 1


def test_time_limit_applied_even_when_the_table_moves_on_between_read_and_write(
    club, players, scheduled, monkeypatch
):
    table = full_table(club, players, time_limit_seconds=1)
    match = table.match
    Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    seat = match.to_move
    action = store.engine_of(match).legal_actions(seat)[0].to_json()

    def player_acts():
        play.submit_action(match.pk, action, seat=seat, user=players[seat])

    calls = _interleave(monkeypatch, player_acts)
    assert clock.apply_time_limit(match.pk) is True
    assert calls == [0]
    match.refresh_from_db()
    assert match.ends_at is None and match.version == 2
    assert list(match.events.order_by("seq").values_list("actor", flat=True)) == [
        "player",
        "system",
    ]
    assert match.events.get(seq=2).action == {"time_up": True}


def test_a_seat_named_by_a_non_integer_is_refused(club, players, scheduled):
    table = full_table(club, players)
    match = table.match
    seat = match.to_move
    action = store.engine_of(match).legal_actions(seat)[0].to_json()
    for bad in (seat == 1, str(seat), float(seat), [seat], None):
        with pytest.raises(MatchError) as refused:
            play.submit_action(match.pk, {**action, "seat": bad}, seat=seat, user=players[seat])
        assert refused.value.code == "invalid_action"
    match.refresh_from_db()
    assert match.version == 0


def _counting_writes(monkeypatch):
    """Count the writes services makes (one statement on PostgreSQL, one transaction on
    SQLite: store.write_many)."""
    opened = []
    write_many = store.write_many

    def counted(writes):
        opened.append(1)
        return write_many(writes)

    monkeypatch.setattr(store, "write_many", counted)
    return opened


def _first_legal(match, seat=None):
    engine = store.engine_of(match)
    seat = engine.to_move() if seat is None else seat
    return seat, engine.legal_actions(seat)[0].to_json()


def test_actions_of_several_matches_are_written_in_one_transaction(
    club, players, scheduled, monkeypatch
):
    matches = [full_table(club, players).match for _ in range(4)]
    requests = []
    for match in matches[:3]:
        seat, action = _first_legal(match)
        requests.append(
            play.ActionRequest(match.pk, action, seat, user=players[seat], expected_version=0)
        )
    # refused in the same batch: out of turn, and another seat's action
    seat, action = _first_legal(matches[3])
    late = (seat + 1) % 4
    requests.append(play.ActionRequest(matches[3].pk, {"pass": True, "seat": late}, late))
    requests.append(play.ActionRequest(matches[3].pk, action, late, user=players[late]))
    opened = _counting_writes(monkeypatch)
    submitted = play.submit_actions(requests)
    outcomes = submitted.outcomes
    assert len(opened) == 1  # one write for the three accepted actions
    assert all(isinstance(o, play.Accepted) for o in outcomes[:3])
    assert [o.version for o in outcomes[:3]] == [1, 1, 1]
    assert [o.code for o in outcomes[3:]] == ["not_your_turn", "not_your_seat"]
    # the accepted actions' updates are returned for the caller to publish, in their order
    assert [message["version"] for _, message in submitted.frames] == [1, 1, 1]
    assert [group for group, _ in submitted.frames] == [f"match.{m.pk}" for m in matches[:3]]
    for match in matches:
        match.refresh_from_db()
        assert match.events.count() == match.version
    assert [m.version for m in matches] == [1, 1, 1, 0]
    # after the commit, each accepted action planned its match's next deadline
    assert sorted(c[1] for c in scheduled if c[0] == "deadline" and c[2] == 1) == sorted(
        m.pk for m in matches[:3]
    )


def test_two_actions_of_one_match_in_a_batch_are_applied_in_order(club, players, scheduled):
    match = full_table(club, players).match
    engine = store.engine_of(match)
    first_seat = engine.to_move()
    first = engine.legal_actions(first_seat)[0]
    engine.apply(first)
    second_seat = engine.to_move()
    second = engine.legal_actions(second_seat)[0].to_json()
    outcomes = play.submit_actions(
        [
            play.ActionRequest(match.pk, first.to_json(), first_seat, expected_version=0),
            play.ActionRequest(match.pk, second, second_seat, expected_version=1),
            # sent with the version both saw: the first came first
            play.ActionRequest(match.pk, second, second_seat, expected_version=0),
        ]
    ).outcomes
    assert [o.version for o in outcomes[:2]] == [1, 2]
    assert isinstance(outcomes[2], MatchError) and outcomes[2].code == "stale"
    assert list(match.events.order_by("seq").values_list("seat", flat=True)) == [
        first_seat,
        second_seat,
    ]


def test_a_failing_write_in_a_batch_refuses_only_its_own_action(
    club, players, scheduled, monkeypatch
):
    matches = [full_table(club, players).match for _ in range(3)]
    bad = matches[1].pk
    write_many = store.write_many

    def failing(writes):
        if any(w.match_id == bad for w in writes):
            raise OperationalError("disk I/O error")
        return write_many(writes)

    monkeypatch.setattr(store, "write_many", failing)
    requests = []
    for match in matches:
        seat, action = _first_legal(match)
        requests.append(play.ActionRequest(match.pk, action, seat, expected_version=0))
    opened = _counting_writes(monkeypatch)
    submitted = play.submit_actions(requests)
    outcomes = submitted.outcomes
    assert isinstance(outcomes[1], OperationalError)
    assert [outcomes[0].version, outcomes[2].version] == [1, 1]
    assert len(opened) == 4  # the shared write was undone, then each tried alone
    assert [Match.objects.get(pk=m.pk).version for m in matches] == [1, 0, 1]
    assert MatchEvent.objects.filter(match_id=bad).count() == 0
    # the refused match still plays: its state was not kept from the undone write
    monkeypatch.setattr(store, "write_many", write_many)
    assert play.submit_actions(requests[1:2]).outcomes[0].version == 1


def test_writes_of_different_fields_are_all_written_or_none(club, players, scheduled):
    """store.write_many writes the rows of one field set in one statement; a batch whose rows
    set different fields (a deal just ended in one match: its pause) is still all or nothing,
    so a failure cannot leave a part written (which the retry alone would apply twice)."""
    ids = [full_table(club, players).match.pk for _ in range(2)]

    def writes(**broken):
        out = []
        for k, match in enumerate(store.read_many(ids).values()):
            seat, action = _first_legal(match)
            change = play._prepare(match, action, seat=seat, actor="player", user=None, expected=0)
            write = play._write_of(change)
            if k:  # the second match sets one more field (and may break the version's check)
                write = write._replace(fields={**write.fields, "pause": None, **broken})
            out.append(write)
        return out

    with pytest.raises(IntegrityError):  # the second row breaks its check: version >= 0
        store.write_many(writes(version=-1))
    assert [Match.objects.get(pk=pk).version for pk in ids] == [0, 0]
    assert not MatchEvent.objects.filter(match_id__in=ids).exists()
    assert store.write_many(writes()) == set(ids)
    assert [Match.objects.get(pk=pk).version for pk in ids] == [1, 1]


def test_a_batch_write_stores_awkward_text_as_it_was(club, players, scheduled):
    """The batch write binds its values itself (psycopg's quoting, without psycopg parsing a
    statement of more than 50 parameters anew): quotes, percent signs, backslashes, NUL-free
    control characters and non-Latin text in a stored value come back unchanged, and a value
    cannot end the statement."""
    ids = [full_table(club, players).match.pk for _ in range(4)]
    awkward = "x'); DROP TABLE matches_match; -- %s %(a)s %% \\ \t\n 保2 ' '' \"q\""
    writes = []
    for match in store.read_many(ids).values():
        seat, action = _first_legal(match)
        change = play._prepare(match, action, seat=seat, actor="player", user=None, expected=0)
        write = play._write_of(change)
        write.event.action = {**write.event.action, "reason": awkward}
        writes.append(write._replace(fields={**write.fields, "timeouts": [awkward]}))
    assert store.write_many(writes) == set(ids)
    for pk in ids:
        assert Match.objects.get(pk=pk).timeouts == [awkward]
        assert MatchEvent.objects.get(match_id=pk).action["reason"] == awkward


def test_a_read_builds_the_rows_the_orm_would(club, players, scheduled, django_assert_num_queries):
    """store.read_many builds its Match and Table without Model.__init__ when nothing listens
    to their init signals: the same field values, deferred fields and instance state as the
    ORM's own read, the table at hand without a query; with a listener, the signals are sent."""
    match = full_table(club, players).match
    orm = Match.objects.select_related("table").only(
        *(f.name for f in Match._meta.concrete_fields),
        *(f"table__{name.removesuffix('_id')}" for name in store._TABLE_FIELDS),
    )
    expected = orm.get(pk=match.pk)
    read = store.read_many([match.pk])[match.pk]
    with django_assert_num_queries(0):
        assert read.table.pk == match.table_id and read.table.variant == "bao2"
    assert read.__dict__.keys() - {"_state"} == expected.__dict__.keys() - {"_state"}
    for field in Match._meta.concrete_fields:
        assert getattr(read, field.attname) == getattr(expected, field.attname), field.name
    assert read.table.get_deferred_fields() == expected.table.get_deferred_fields() != set()
    assert (read._state.adding, read._state.db) == (False, "default")
    assert (read.table._state.adding, read.table._state.db) == (False, "default")
    read.save(update_fields=["revision"])  # a saved instance: an UPDATE, not an INSERT
    assert Match.objects.count() == 1
    built = []

    def listener(sender, **kwargs):
        built.append(sender)

    pre_init.connect(listener, sender=Table)
    try:
        again = store.read_many([match.pk])[match.pk]
    finally:
        pre_init.disconnect(listener, sender=Table)
    assert built == [Table] and again.table.variant == "bao2"


@pytest.mark.parametrize("by", ["player", "system"])
def test_a_new_event_is_the_one_the_orm_would_build(
    club, players, scheduled, django_assert_num_queries, by
):
    """store.new_event builds the event of an action without Model.__init__ when nothing
    listens to its init signals: the same fields and instance state as ``MatchEvent(...)``,
    its match and user at hand without a query, saved as a new row; with a listener, the
    signals are sent."""
    match = store.read(full_table(club, players).match.pk)
    user = players[0] if by == "player" else None
    now = timezone.now()
    args = (match, 1, {"pass": True, "seat": 0}, 0 if user else None, by, user, now)
    built = store.new_event(*args)
    expected = MatchEvent(
        match=match, seq=1, action=args[2], seat=args[3], actor=by, user=user, created_at=now
    )
    assert built.__dict__.keys() == expected.__dict__.keys()
    for field in MatchEvent._meta.concrete_fields:
        assert getattr(built, field.attname) == getattr(expected, field.attname), field.name
    assert (built._state.adding, built._state.db) == (expected._state.adding, expected._state.db)
    with django_assert_num_queries(0):
        assert built.match is match and built.user == user
    built.save()  # an INSERT (then removed: the match itself did not move on)
    assert MatchEvent.objects.get(pk=built.pk).action == args[2]
    built.delete()
    sent = []

    def listener(sender, **kwargs):
        sent.append(sender)

    post_init.connect(listener, sender=MatchEvent)
    try:
        again = store.new_event(*args)
    finally:
        post_init.disconnect(listener, sender=MatchEvent)
    assert sent == [MatchEvent] and again.match is match


@pytest.mark.postgresql
def test_the_sweeps_query_has_its_index_and_the_deadline_none_of_its_own(db):
    """Every action changes a match's deadline, so the column has one index only, on status
    and deadline, which the sweep's query for overdue deadlines uses."""
    from django.db import connection, transaction

    query = Match.objects.filter(status="playing", deadline__lte=timezone.now()).values_list(
        "pk", "deadline_version"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s AND indexdef LIKE %s",
            [Match._meta.db_table, "%deadline%"],
        )
        assert [row[0].split("(")[1] for row in cursor.fetchall()] == ["status, deadline)"]
        sql, params = query.query.sql_with_params()
        cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table: make the choice visible
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index" in plan and "status" in plan


@pytest.mark.postgresql
def test_a_long_snapshot_is_stored_compressed_with_lz4(club, players, scheduled):
    """On PostgreSQL the snapshot column compresses with LZ4 (migration 0007), not pglz:
    a finished match's snapshot (several kilobytes, rewritten on every action) is stored so.
    The match's time is up once its snapshot has passed 4 KB (a few deals: a deal adds about
    1 KB), and it ends with the deal in progress: playing it to its last level took thousands
    of actions more to show the same."""
    from django.db import connection

    for _table in range(5):  # the deals are random: a match may reach its last level first
        match = full_table(club, players, time_limit_seconds=1).match
        for _ in range(5000):  # played until its snapshot is twice the 2 KB PostgreSQL compresses
            match = Match.objects.get(pk=match.pk)
            if len(json.dumps(match.snapshot)) > 4096 or match.status == "finished":
                break
            assert clock.act_on_deadline(match.pk, match.version, force=True) != "stale"
        if match.status != "finished":
            break
    else:
        pytest.fail("five matches in a row reached their last level within 4 KB of snapshot")
    Match.objects.filter(pk=match.pk).update(ends_at=match.ends_at.replace(year=2000))
    assert clock.apply_time_limit(match.pk)
    match = run_until_over(match.pk)
    assert match.result["reason"] == "time", match.result
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute WHERE attrelid = %s::regclass"
            " AND attname = 'snapshot'",
            [Match._meta.db_table],
        )
        assert cursor.fetchone()[0] == "l"
        cursor.execute(
            f"SELECT octet_length(snapshot::text), pg_column_compression(snapshot)"
            f" FROM {Match._meta.db_table} WHERE id = %s",
            [match.pk],
        )
        size, method = cursor.fetchone()
    assert size > 2048 and method == "lz4"


@pytest.mark.postgresql
def test_live_play_statements_are_prepared_once_per_connection(club, players, scheduled):
    """On PostgreSQL an action's read and write are statements prepared on the server once
    per connection (one per statement, whatever the values), Django's own queries are not;
    with prepared statements turned off (a pooler in transaction mode) actions still play."""
    from django.db import connection

    def prepared():
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return sorted(row[0] for row in cursor.fetchall())

    matches = [full_table(club, players).match for _ in range(3)]
    assert connection.settings_dict["OPTIONS"]["prepare_threshold"] is not None
    before = prepared()
    for match in matches[:2]:
        seat, action = _first_legal(store.read(match.pk))
        assert play.submit_action(match.pk, action, seat=seat, user=players[seat]).version == 1
    after = prepared()
    new = [s for s in after if s not in before]
    assert any("= ANY($1::bigint[])" in s for s in after)  # the read
    assert any(s.startswith("WITH v (") for s in after)  # the write
    assert not [s for s in new if "%s" in s or "matches_match" not in s]  # only live play's
    seat, action = _first_legal(store.read(matches[0].pk))
    play.submit_action(matches[0].pk, action, seat=seat, user=players[seat])
    assert prepared() == after  # the same statements again, not new ones
    connection.connection.prepare_threshold = None
    try:
        seat, action = _first_legal(store.read(matches[2].pk))
        assert play.submit_action(matches[2].pk, action, seat=seat, user=players[seat]).version
    finally:
        connection.connection.prepare_threshold = 5
    assert prepared() == after
