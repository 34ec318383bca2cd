"""Demo data for ``manage.py demo``: an inter-club Bao 2 team league with two divisions under
way (the demo club hosts and fields a team of its demo players, two more demo clubs are
invited; round 1 played, round 2 open with agreed times and a line-up in).

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
#: (club, team name) by division: the host's team is the demo club's own players.
DIVISIONS = [
    [("host", "示范一队"), ("rugao", "如皋一队"), ("haimen", "海门一队"), ("rugao", "如皋二队")],
    [("haimen", "海门二队"), ("rugao", "如皋三队"), ("haimen", "海门三队"), ("rugao", "如皋四队")],
]
GUESTS = {"rugao": "如皋示范俱乐部", "haimen": "海门示范俱乐部"}


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
    if len(users) < 4 or League.objects.filter(host=club, name=LEAGUE_NAME).exists():
        return
    organiser = users[0]
    today = timezone.localdate()
    league = setup.create_league(organiser, club, name=LEAGUE_NAME, inter_club=True)
    clubs, admins, pools = {"host": club}, {"host": organiser}, {"host": list(users[:4])}
    for slug, name in GUESTS.items():
        guest, _created = Club.objects.get_or_create(slug=f"demo-{slug}", defaults={"name": name})
        admins[slug] = _players(guest, f"{slug}-admin", 1)[0]
        Membership.objects.filter(club=guest, user=admins[slug]).update(role=Role.OWNER)
        pools[slug] = _players(guest, f"{slug}-p", 16)
        clubs[slug] = guest
        setup.invite_club(organiser, league, guest)
    season = setup.create_season(
        organiser,
        league,
        name=f"{today.year} 赛季",
        variant="bao2",
        starts_on=today - timedelta(days=8),
        window_days=7,
        today=today - timedelta(days=8),  # the demo's season is under way
    )
    levels = [season.divisions.get(level=1), setup.add_division(organiser, season, "乙级")]
    captains = {}
    for division, teams in zip(levels, DIVISIONS, strict=True):
        for side, name in teams:
            roster, pools[side] = pools[side][:4], pools[side][4:]
            entry = entries.enter_team(
                admins[side],
                season,
                clubs[side],
                name=name,
                captain=roster[0],
                players=roster,
                division=division,
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
