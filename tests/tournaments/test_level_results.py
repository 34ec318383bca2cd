"""Issue 45: a Bao 2 result is entered as the levels each side reached, by name, with both
sides named, and an impossible result (both at the last level, no winner) is refused."""

from datetime import timedelta

import pytest
from django.test import Client

from tests.tournaments.test_tournament_services import START, make_tournament, register_pairs
from tournaments.models import Round
from tournaments.services import results as result_services
from tournaments.services import schedule as schedule_services
from tournaments.services import setup as setup_services
from tournaments.services.errors import TournamentError

pytestmark = pytest.mark.django_db


def test_bao2_results_are_levels_by_name_and_both_at_the_top_needs_a_winner(
    club, club_admin, members
):
    people = members(4)
    t = make_tournament(club, club_admin, start_when_ready=True)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    entries = register_pairs(t, people)
    schedule_services.tick(START)
    game = Round.objects.get(tournament=t, number=1).games.exclude(status="bye").get()
    with pytest.raises(TournamentError) as refused:
        result_services.set_result(club_admin, game, 23, 23, now=START)
    assert refused.value.code == "bad_score"
    with pytest.raises(TournamentError) as refused:
        result_services.set_result(club_admin, game, 24, 3, now=START)
    assert "A" in refused.value.message  # the range said in level names
    result_services.set_result(club_admin, game, 23, 23, winner=1, now=START)
    game.refresh_from_db()
    assert game.winner == 1
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(club_admin)
    page = client.get(f"/tournaments/{t.pk}/run/").content.decode()
    form = page[page.index(f'id="s0-{game.pk}"') :]
    assert form.startswith(f'id="s0-{game.pk}" name="score0" data-levels')
    assert ">A（第2轮）</option>" in form and ">10</option>" in form
    assert 'value="23" selected' in form
    names = {e.name for e in entries}
    labels = page.count("data-side-name>")
    assert labels >= 2 and any(n in page[page.index("data-side-name") :] for n in names)
