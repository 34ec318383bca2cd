"""Demo data for ``manage.py demo``: an inter-club Bao 2 team league with two divisions under
way (the demo club hosts, a second demo club is invited; round 1 played, round 2 open with
agreed times and a line-up in).

Idempotent: nothing is added when the demo league exists.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta
from typing import TextIO

from django.db import transaction
from django.utils import timezone

from clubs.models import Club, Membership, Role, User
from leagues.models import FixtureStatus, FixtureTable, League, ResultSource
from leagues.services import entries, fixtures, play, setup

LEAGUE_NAME = "江苏保2团体联赛（演示）"
TEAMS = [
    ("host", "示范一队"),
    ("guest", "如皋一队"),
    ("host", "示范二队"),
    ("guest", "如皋二队"),
    ("host", "示范三队"),
    ("guest", "如皋三队"),
    ("host", "示范四队"),
    ("guest", "如皋四队"),
]


def _players(club: Club, prefix: str, count: int) -> list[User]:
    users = []
    for i in range(count):
        user, _created = User.objects.get_or_create(
            username=f"{prefix}{i + 1}",
            defaults={"display_name": f"{prefix}{i + 1}", "email": f"{prefix}{i + 1}@example.com"},
        )
        Membership.objects.get_or_create(club=club, user=user)
        users.append(user)
    return users


@transaction.atomic
def load_demo(club: Club, users: Sequence[User], stdout: TextIO) -> None:
    """Create the demo league once (its host is ``club``, its organiser ``users[0]``)."""
    if not users or League.objects.filter(host=club, name=LEAGUE_NAME).exists():
        return
    organiser = users[0]
    guest, _created = Club.objects.get_or_create(
        slug="demo-rugao", defaults={"name": "如皋示范俱乐部"}
    )
    guest_admin = _players(guest, "rugao-admin", 1)[0]
    Membership.objects.filter(club=guest, user=guest_admin).update(role=Role.OWNER)
    today = timezone.localdate()
    league = setup.create_league(organiser, club, name=LEAGUE_NAME, inter_club=True)
    setup.invite_club(organiser, league, guest)
    season = setup.create_season(
        organiser,
        league,
        name=f"{today.year} 赛季",
        variant="bao2",
        starts_on=today - timedelta(days=8),
        window_days=7,
    )
    second = setup.add_division(organiser, season, "乙级")
    first = season.divisions.get(level=1)
    pools = {"host": _players(club, "demo-p", 16), "guest": _players(guest, "rugao-p", 16)}
    captains = {}
    for i, (side, name) in enumerate(TEAMS):
        roster = pools[side][(i // 2) * 4 : (i // 2) * 4 + 4]
        admin = organiser if side == "host" else guest_admin
        entry = entries.enter_team(
            admin,
            season,
            club if side == "host" else guest,
            name=name,
            captain=roster[0],
            players=roster,
            division=first if i < 4 else second,
        )
        captains[entry.pk] = roster
    setup.start_season(organiser, season)
    rng = random.Random(21)
    now = timezone.now()
    for fixture in season.rounds.get(number=1).fixtures.all():
        for number in (1, 2):
            home, away = (
                (23, rng.randint(2, 20)) if rng.random() < 0.5 else (rng.randint(2, 20), 23)
            )
            FixtureTable.objects.create(
                fixture=fixture,
                number=number,
                home_side=(number - 1) % 2,
                home_score=home,
                away_score=away,
                winner=0 if home > away else 1,
                done=True,
            )
        play.add_up(fixture, now, ResultSource.ORGANISER)
    play.tick()  # round 1 (played) closes, round 2 opens
    for fixture in season.rounds.get(number=2).fixtures.filter(status=FixtureStatus.PENDING)[:3]:
        home, away = captains[fixture.home_id], captains[fixture.away_id]
        fixtures.propose_time(home[0], fixture, now + timedelta(days=2, hours=3))
        fixtures.accept_time(away[0], fixture)
        fixtures.submit_lineup(home[0], fixture, [home[:2], home[2:]])
    stdout.write(f"League: {LEAGUE_NAME} (/leagues/{league.pk}/)")
