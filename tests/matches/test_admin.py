"""The Django admin lists, searches and shows every matches and sheets model; event logs are
read-only."""

from django.urls import reverse

from matches import store
from matches.models import Match, MatchEvent
from matches.services import play, tables


def test_admin_pages_of_every_matches_model(club, players, scheduled, client):
    players[0].is_staff = players[0].is_superuser = True
    players[0].save()
    table = tables.open_table(players[0], club, variant="bao2")
    for i in (1, 2, 3):
        tables.take_seat(players[i], table, i)
    match = Match.objects.get(table=table)
    seat = match.to_move
    action = store.engine_of(match).legal_actions(seat)[0].to_json()
    play.submit_action(match.pk, action, seat=seat, user=players[seat], expected_version=0)
    event = MatchEvent.objects.get(match=match)
    client.force_login(players[0])
    for model in (
        "matches_table",
        "matches_seat",
        "matches_match",
        "matches_matchevent",
        "matches_presence",
        "sheets_scoresheet",
        "sheets_sheetplayer",
        "sheets_sheetentry",
        "sheets_sheetverdict",
    ):
        url = reverse(f"admin:{model}_changelist")
        assert client.get(url).status_code == 200, model
        assert client.get(url, {"q": "p1"}).status_code == 200, model
    assert client.get(reverse("admin:matches_match_change", args=[match.pk])).status_code == 200
    # the event log: shown, never changed, added or deleted
    change = reverse("admin:matches_matchevent_change", args=[event.pk])
    page = client.get(change)
    assert page.status_code == 200 and b'name="action"' not in page.content
    client.post(change, {"seq": 99, "actor": "clock", "action": "{}"})
    assert MatchEvent.objects.get(pk=event.pk).seq == 1
    assert client.get(reverse("admin:matches_matchevent_add")).status_code == 403
    delete = reverse("admin:matches_matchevent_delete", args=[event.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert MatchEvent.objects.filter(pk=event.pk).exists()
