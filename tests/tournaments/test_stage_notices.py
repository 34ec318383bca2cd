"""Notices to qualifiers and to entries put out (issue 45): when a next stage is made from a
ranking, each qualifier's players are told that they go through and their seed; when a
low-position cut (第二十九条) puts entries out, their players are told — each a notice on the
site, a notice in their list and an e-mail under their preferences, through the real outbox,
exactly once (asked again, or by four beats at once)."""

from datetime import timedelta

import pytest

from outbox import notices
from outbox.models import Kind, Notification, OutboxMessage
from tests.tournaments.test_cuts import play_round
from tests.tournaments.test_series import swiss_stage
from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments import notifications, selectors
from tournaments.models import Entry, TournamentNotice
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services import stages as stage_services


@pytest.mark.django_db
def test_each_qualifier_is_told_once_and_nobody_else(club, club_admin, members):
    t, entries, now = swiss_stage(club, club_admin, members)
    # one qualifier's player wants no tournament e-mails: a notice all the same
    ranking = [line.entry for line in selectors.standings(t)]
    quiet = ranking[0].player2
    notices.set_email_preferences(quiet, {Kind.TOURNAMENTS: False})

    stage = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=4, now=now
    )
    qualified = {u for e in ranking[:4] for u in e.user_ids}
    others = {u for e in ranking[4:] for u in e.user_ids}
    told = set(
        Notification.objects.filter(key__startswith=f"qualified:{stage.pk}:").values_list(
            "user_id", flat=True
        )
    )
    assert told == qualified and not told & others
    on_site = TournamentNotice.objects.filter(tournament=stage)
    assert sorted(on_site.values_list("user_id", flat=True)) == sorted(qualified)
    mail = OutboxMessage.objects.filter(key__startswith=f"qualified:{stage.pk}:")
    assert set(mail.values_list("user_id", flat=True)) == qualified - {quiet.pk}
    # the text names the stage and the seed, in the player's language (zh-hans by default)
    top = stage.entries.get(seed=1)
    text = on_site.get(user_id=top.player1_id).text
    assert stage.name in text and "1" in text and t.name in text
    first_mail = mail.get(user_id=top.player1_id)
    assert stage.name in first_mail.body and f"/tournaments/{stage.pk}/" in first_mail.body

    # asked again (a double tap), or told again by hand: nothing more
    again = stage_services.create_next_stage(
        club_admin, t, format="elimination", qualifiers_count=4, now=now
    )
    assert again.pk == stage.pk
    assert notifications.notify_qualified(stage, t, list(stage.entries.all())) == 0
    assert TournamentNotice.objects.filter(tournament=stage).count() == len(qualified)
    assert mail.count() == len(qualified) - 1


@pytest.mark.django_db(transaction=True)
def test_entries_put_out_by_a_cut_are_told_once_when_four_beats_run_at_once(
    club, club_admin, members
):
    from matchkit import at_once

    people = members(12)
    t = make_tournament(club, club_admin, rounds_planned=3, start_when_ready=True, cuts="1:4")
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    register_pairs(t, people)
    schedule_services.tick(START)
    play_round(club_admin, t, 1, START)
    results, errors = at_once(lambda: schedule_services.tick(START + timedelta(minutes=1)))
    assert errors == []
    out = list(Entry.objects.filter(tournament=t, eliminated_after_round=1))
    kept = Entry.objects.filter(tournament=t, eliminated_after_round__isnull=True)
    assert len(out) == 2
    out_users = {u for e in out for u in e.user_ids}
    told = Notification.objects.filter(key__startswith=f"cut:{t.pk}:1:")
    assert sorted(told.values_list("user_id", flat=True)) == sorted(out_users)  # once each
    mail = OutboxMessage.objects.filter(key__startswith=f"cut:{t.pk}:1:")
    assert sorted(mail.values_list("user_id", flat=True)) == sorted(out_users)
    on_site = TournamentNotice.objects.filter(tournament=t, url=f"/tournaments/{t.pk}/standings/")
    assert sorted(on_site.values_list("user_id", flat=True)) == sorted(out_users)
    assert all("4" in n.text and "1" in n.text for n in on_site)
    assert not told.filter(user_id__in=[u for e in kept for u in e.user_ids]).exists()
    # later beats and rounds tell nobody again
    schedule_services.tick(START + timedelta(minutes=2))
    assert notifications.notify_cut(t, 1, 4, out) == 0
    assert told.count() == len(out_users) and mail.count() == len(out_users)
