"""The review's API (``/api/v1/tables/<id>/review/``): the replay's permission rules (a
members-only club's review to its members only, nothing before the match ends), every decision
only to the seat's own player, and its place in the OpenAPI schema."""

import pytest
from django.urls import reverse

from clubs.models import Membership, Role, User, Visibility
from reviews.models import MatchReview, ReviewStatus


def decision(step, same):
    played = {"kind": "play", "cards": ["S3"], "type": "single", "key": "3"}
    best = played if same else {"kind": "play", "cards": ["SK", "HK"], "type": "pair", "key": "K"}
    return {
        "step": step,
        "deal_no": 0,
        "played": played,
        "best": best,
        "same": same,
        "levels": 0.0 if same else -1.0,
        "levels_se": 0.2,
        "win": 0.0,
        "win_se": 0.0,
        "worlds": 20,
    }


@pytest.fixture
def reviewed(finished):
    """The match's review as a worker writes it: seats 0 and 1 reviewed (seat 0 with a costly
    moment at step 3)."""
    MatchReview.objects.create(
        match=finished,
        status=ReviewStatus.DONE,
        complete=True,
        cpu_ms=12.5,
        seats=[
            {"seat": 0, "decisions": [decision(3, False), decision(7, True)], "complete": True},
            {"seat": 1, "decisions": [decision(4, True)], "complete": True},
        ],
    )
    return finished


def url(table_id):
    return reverse("table-review", args=[table_id])


def get(client, table_id, user=None):
    if user is not None:
        client.force_login(user)
    return client.get(url(table_id), HTTP_ACCEPT_LANGUAGE="en")


def test_a_seats_player_gets_every_decision_of_their_own_seat_only(reviewed, people, client):
    body = get(client, reviewed.table_id, people[0]).json()
    assert body["status"] == "done" and body["game"] == "guandan"
    assert body["match"] == reviewed.pk and body["complete"] is True
    seats = {s["seat"]: s for s in body["seats"]}
    assert body["seats"][0]["seat"] == 0 and seats[0]["mine"] is True  # the caller's first
    assert [d["step"] for d in seats[0]["decisions"]] == [3, 7]
    assert seats[0]["reviewed"] == 2 and seats[0]["agreed"] == 1
    assert [m["step"] for m in seats[0]["highlights"]] == [3]
    assert "♠K ♥K" in seats[0]["highlights"][0]["text"]
    assert seats[1]["mine"] is False and seats[1]["decisions"] is None
    # the other seat's player: their own decisions, not seat 0's
    client.logout()
    seats = {s["seat"]: s for s in get(client, reviewed.table_id, people[1]).json()["seats"]}
    assert seats[1]["mine"] and [d["step"] for d in seats[1]["decisions"]] == [4]
    assert seats[0]["decisions"] is None and seats[0]["highlights"][0]["step"] == 3


def test_a_public_clubs_review_to_anyone_without_decisions(reviewed, client):
    body = get(client, reviewed.table_id).json()
    assert body["status"] == "done"
    assert all(s["decisions"] is None and not s["mine"] for s in body["seats"])
    assert body["seats"][0]["highlights"][0]["step"] == 3  # the moments are public, as the page


@pytest.mark.parametrize("who", ["anonymous", "outsider", "member", "seated"])
def test_a_members_only_clubs_review_reaches_its_members_only(reviewed, club, people, who, client):
    club.visibility = Visibility.MEMBERS
    club.save()
    user = {
        "anonymous": None,
        "outsider": User.objects.create_user("rvout", "rvout@example.com", "pw"),
        "member": User.objects.create_user("rvmem", "rvmem@example.com", "pw"),
        "seated": people[2],
    }[who]
    if who == "member":
        Membership.objects.create(club=club, user=user, role=Role.MEMBER)
    response = get(client, reviewed.table_id, user)
    if who in ("anonymous", "outsider"):
        assert response.status_code == 404
        assert "玩家" not in response.content.decode()
        assert "guandan" not in response.content.decode()
    else:
        assert response.status_code == 200
        assert {s["seat"] for s in response.json()["seats"]} == {0, 1}
        assert not any(s["mine"] for s in response.json()["seats"])  # seat 2 was not reviewed


def test_no_review_before_the_end_nor_of_no_table(club, people, client):
    from matches.services import tables

    table = tables.open_table(people[0], club, variant="guandan", clocks=False)
    assert get(client, table.pk, people[0]).status_code == 404
    assert get(client, 999999).status_code == 404


def test_the_status_while_it_runs_and_when_the_club_keeps_reviews_off(finished, club, client):
    assert get(client, finished.table_id).json()["status"] == "running"
    MatchReview.objects.create(match=finished, status=ReviewStatus.FAILED, attempts=3)
    assert get(client, finished.table_id).json()["status"] == "failed"
    MatchReview.objects.filter(match=finished).delete()
    club.match_reviews = False
    club.save()
    body = get(client, finished.table_id).json()
    assert body["status"] == "off" and "seats" not in body


def test_the_endpoint_is_in_the_openapi_schema(client):
    schema = client.get(reverse("api-schema"), {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/tables/{table_id}/review/"]["get"]
    shape = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert shape.endswith("/MatchReview")
    seat = schema["components"]["schemas"]["SeatReview"]["properties"]
    assert {"mine", "highlights", "decisions"} <= set(seat)
