"""A withdrawal after the start (第二十三、二十四条二) is recorded on its entry — the round, the
reason, the organiser who accepted it and the rule applied — not in a game's notes: a late
entry withdrawn before it was ever paired keeps its record; the withdrawal notes of the games
written before (migration ``0005_entry_withdrawal_record``) move onto their entries, the
games' own forfeit and annulment notes stay; the standings CSV and the printable page mark
the withdrawals as the standings page does."""

import csv
import io
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from tournaments import selectors
from tournaments.models import Entry, Game, Tournament, WithdrawalRule
from tournaments.services import entries as entry_services
from tournaments.services import rounds as round_services
from tournaments.services.errors import TournamentError

from .test_tournament_services import START, register_pair
from .test_withdrawal_rules import REASON, event, play_round

BEFORE = [("tournaments", "0004_cuts_duplicate_elimination")]


def _migrate(targets):
    """Migrate the test database to ``targets`` (None: every app's latest); the models as
    they are there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _csv(client, t):
    response = client.get(f"/tournaments/{t.pk}/standings.csv", HTTP_ACCEPT_LANGUAGE="zh-hans")
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


@pytest.mark.django_db
def test_a_late_entry_withdrawn_before_it_is_paired_keeps_its_record(
    client, club, club_admin, members
):
    people = members(10)
    t, entries = event(club, club_admin, people[:8], rounds_planned=3, late_until_round=2)
    play_round(club_admin, t, 1, START)
    late = register_pair(people[8], people[9], t, START + timedelta(minutes=1))
    assert not any(late.pk in g.side0 + g.side1 for g in Game.objects.filter(round__tournament=t))
    # between rounds 1 and 2: it withdraws in round 2, before it was ever paired
    entry_services.withdraw(club_admin, t, late, now=START + timedelta(minutes=2), reason=REASON)
    late.refresh_from_db()
    assert (late.status, late.withdrawn_round, late.withdrawal_reason) == ("withdrawn", 2, REASON)
    assert (late.withdrawn_by, late.withdrawal_rule) == (club_admin, WithdrawalRule.SWISS)
    record = selectors.withdrawals(t)[late.pk]
    assert (record.round, record.reason, record.rule) == (2, REASON, "swiss")
    assert record.by_name == club_admin.name and not record.annulled
    # no game carries it, and it cannot be put back
    assert not any(
        n.get("code") == "withdrawal"
        for g in Game.objects.filter(round__tournament=t)
        for n in g.notes
    )
    with pytest.raises(TournamentError) as err:
        entry_services.reinstate(club_admin, t, late)
    assert err.value.code == "withdrawn_after_start"
    # round 2 is paired without it
    round_services.pair_next_round(club_admin, t, START + timedelta(minutes=3))
    assert all(
        late.pk not in g.side0 + g.side1
        for g in Game.objects.filter(round__tournament=t, round__number=2)
    )
    # the pages, the API and the CSV show the record
    client.force_login(club_admin)
    text = client.get(
        f"/tournaments/{t.pk}/standings/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert 'id="withdrawals"' in text and "退赛（第2轮）" in text and REASON in text
    api = client.get(f"/api/v1/tournaments/{t.pk}/standings/").json()
    line = next(x for x in api if x["entry"] == late.pk)
    assert line["withdrawal"] == {"round": 2, "reason": REASON, "rule": "swiss", "annulled": False}
    rows = _csv(client, t)
    assert rows[0][-2:] == ["退赛情况", "退赛理由"]
    mine = next(r for r in rows[1:] if r[1] == late.name)
    assert mine[-2:] == ["退赛（第2轮）", REASON] and mine[0] != ""
    assert all(r[-2:] == ["", ""] for r in rows[1:] if r[1] != late.name)


@pytest.mark.django_db
def test_the_standings_csv_and_the_printable_page_mark_withdrawals(
    client, club, club_admin, members
):
    people = members(12)
    t, entries = event(
        club, club_admin, people, national=True, format="round_robin", variant="guandan"
    )
    client.force_login(club_admin)
    before = _csv(client, t)
    assert "退赛情况" not in before[0]  # no withdrawal: no such columns
    gone = entries[0]
    play_round(club_admin, t, 1, START)
    round_services.start_round(club_admin, t, START + timedelta(minutes=5))
    entry_services.withdraw(club_admin, t, gone, now=START + timedelta(minutes=6), reason=REASON)
    rows = _csv(client, t)
    width = len(rows[0])
    assert rows[0][-2:] == ["退赛情况", "退赛理由"]
    assert all(len(r) == width for r in rows)
    # the annulled entry comes last, without a place or numbers (成绩注销)
    assert rows[-1][1] == gone.name and rows[-1][0] == ""
    assert rows[-1][-2:] == ["退赛（第2轮） · 成绩注销", REASON]
    assert set(rows[-1][2:-2]) == {""}
    assert [r[1] for r in rows[1:]].count(gone.name) == 1
    assert all(r[0] != "" for r in rows[1:-1])
    page = client.get(f"/tournaments/{t.pk}/print/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert page.status_code == 200
    section = text[text.index('id="withdrawals"') :]
    assert "退赛（第2轮）" in section and "成绩注销" in section and REASON in section
    # a Swiss withdrawal: the entry is ranked, and its line carries the badge
    swiss, pairs = event(club, club_admin, members(8), rounds_planned=3, name="瑞士赛")
    play_round(club_admin, swiss, 1, START)
    round_services.pair_next_round(club_admin, swiss, START + timedelta(minutes=1))
    left = pairs[1]
    entry_services.withdraw(
        club_admin, swiss, left, now=START + timedelta(minutes=2), reason="身体不适"
    )
    text = client.get(
        f"/tournaments/{swiss.pk}/print/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    table = text[text.index('class="standings') : text.index("</table>")]
    row = next(r for r in table.split("<tr>") if left.name in r)
    assert "退赛（第2轮）" in row
    assert "身体不适" in text[text.index('id="withdrawals"') :]
    rows = _csv(client, swiss)
    mine = next(r for r in rows[1:] if r[1] == left.name)
    assert mine[0] != "" and mine[-2:] == ["退赛（第2轮）", "身体不适"]


@pytest.mark.django_db(transaction=True)
def test_the_withdrawal_notes_of_the_games_move_onto_their_entries(club, club_admin, members):
    people = members(6)
    names = {"by_name": club_admin.name, "name": "甲"}
    forfeit = {"code": "withdrawal_forfeit", "units": [], "detail": {"name": "甲"}}
    try:
        old = _migrate(BEFORE)
        OldEntry = old.get_model("tournaments", "Entry")
        OldRound = old.get_model("tournaments", "Round")
        OldGame = old.get_model("tournaments", "Game")
        t = old.get_model("tournaments", "Tournament").objects.create(
            club_id=club.pk, name="循环赛", variant="guandan", format="round_robin", starts_at=START
        )
        a, b, c = (
            OldEntry.objects.create(
                tournament_id=t.pk,
                player1_id=people[i].pk,
                player2_id=people[i + 1].pk,
                name=name,
                status=status,
                seed=i,
            )
            for i, name, status in (
                (0, "甲", "withdrawn"),
                (2, "乙", "checked_in"),
                (4, "丙", "withdrawn"),
            )
        )
        r1, r2 = (
            OldRound.objects.create(
                tournament_id=t.pk, number=n, scheduled_at=START, status="finished"
            )
            for n in (1, 2)
        )
        detail = {"round": 2, "reason": REASON, "by": club_admin.pk, "rule": "annulled", **names}
        annulled = {"code": "withdrawal_annulled", "units": [a.pk], "detail": detail}
        first = OldGame.objects.create(
            round_id=r1.pk,
            number=1,
            side0=[a.pk],
            side1=[b.pk],
            status="finished",
            winner=0,
            notes=[{"code": "rematch", "units": [], "detail": {"times": 2}}, annulled],
        )
        last = OldGame.objects.create(
            round_id=r2.pk,
            number=1,
            side0=[a.pk],
            side1=[c.pk],
            status="finished",
            source="forfeit",
            notes=[
                {**forfeit, "units": [a.pk, c.pk]},
                annulled,
                {"code": "withdrawal", "units": [a.pk], "detail": detail},
                {
                    # 丙's, accepted by someone since removed, with a reason too long now
                    "code": "withdrawal",
                    "units": [c.pk],
                    "detail": {
                        "round": 2,
                        "reason": "长" * 250,
                        "by": 987654321,
                        "by_name": "旧组织者",
                        "rule": "stands",
                        "name": "丙",
                    },
                },
            ],
        )
    finally:
        _migrate(None)
    a, b, c = (Entry.objects.get(pk=e.pk) for e in (a, b, c))
    assert (a.withdrawn_round, a.withdrawal_reason, a.withdrawn_by, a.withdrawal_rule) == (
        2,
        REASON,
        club_admin,
        "annulled",
    )
    assert (c.withdrawn_round, c.withdrawal_reason, c.withdrawn_by, c.withdrawal_rule) == (
        2,
        "长" * 200,
        None,
        "stands",
    )
    assert (b.withdrawn_round, b.withdrawal_reason, b.withdrawn_by, b.withdrawal_rule) == (
        None,
        "",
        None,
        "",
    )
    # only the record left the games: the forfeit, the annulment and the pairing notes stay
    last = Game.objects.get(pk=last.pk)
    assert [n["code"] for n in last.notes] == ["withdrawal_forfeit", "withdrawal_annulled"]
    first = Game.objects.get(pk=first.pk)
    assert [n["code"] for n in first.notes] == ["rematch", "withdrawal_annulled"]
    tournament = Tournament.objects.get(pk=t.pk)
    found = selectors.withdrawals(tournament)
    assert list(found) == [a.pk, c.pk]
    assert found[a.pk].by_name == club_admin.name and found[a.pk].annulled
    assert found[c.pk].by_name == "" and found[c.pk].rule == "stands"
    assert selectors.annulled(tournament) == [a.pk]
    assert a.pk not in {line.entry.pk for line in selectors.standings(tournament)}
    # and back: the record is a note on the entry's last game again
    try:
        old = _migrate(BEFORE)
        notes = old.get_model("tournaments", "Game").objects.get(pk=last.pk).notes
        records = {n["units"][0]: n["detail"] for n in notes if n["code"] == "withdrawal"}
        assert set(records) == {a.pk, c.pk}
        assert records[a.pk]["reason"] == REASON and records[a.pk]["rule"] == "annulled"
        assert records[a.pk]["by"] == club_admin.pk and records[a.pk]["round"] == 2
    finally:
        _migrate(None)
    assert Entry.objects.get(pk=a.pk).withdrawn_round == 2


@pytest.mark.django_db
def test_an_entry_has_the_round_and_the_rule_of_a_withdrawal_together_or_neither(
    club, club_admin, members
):
    people = members(4)
    t, entries = event(club, club_admin, people)
    entry = entries[0]
    for round_, rule in ((2, ""), (None, WithdrawalRule.SWISS)):
        with pytest.raises(IntegrityError), transaction.atomic():
            Entry.objects.filter(pk=entry.pk).update(withdrawn_round=round_, withdrawal_rule=rule)
    entry.refresh_from_db()
    assert (entry.withdrawn_round, entry.withdrawal_rule) == (None, "")
