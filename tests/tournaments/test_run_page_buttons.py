"""Issue 45: on the run page 退赛 is a destructive button apart from 签到, and asks first."""

import re
from datetime import timedelta

import pytest

from tests.tournaments.test_tournament_services import START, make_tournament
from tournaments.services import entries as entry_services
from tournaments.services import setup as setup_services

pytestmark = pytest.mark.django_db


def test_withdraw_is_a_confirmed_danger_button_apart_from_check_in(
    client, club, club_admin, members
):
    a, b = members(2)
    t = make_tournament(club, club_admin, checkin_minutes=30)
    setup_services.publish(club_admin, t, now=START - timedelta(days=1))
    t.refresh_from_db()
    entry_services.register(club_admin, t, player=a, partner=b, now=START - timedelta(hours=2))
    client.force_login(club_admin)
    page = client.get(f"/tournaments/{t.pk}/run/").content.decode()
    withdraw = re.search(r"<button[^>]*>[^<]*(Withdraw|退赛)</button>", page).group(0)
    check_in = re.search(r"<button[^>]*>[^<]*(Check in|签到)</button>", page).group(0)
    assert 'class="danger' in withdraw and "data-confirm=" in withdraw
    assert "danger" not in check_in
