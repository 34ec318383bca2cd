import pytest

from clubs.models import Club, Membership, Role, User
from leagues.services import entries, setup
from tests.leagues.leaguekit import START


class World:
    """An inter-club Bao 2 team league: host club 南通 and invited club 如皋, one team each
    (captain + 3 players), plus an outsider club's admin, a non-member and anonymous."""

    def __init__(self):
        self.n = 0
        self.host = Club.objects.create(name="南通保二俱乐部", slug="nantong")
        self.guest = Club.objects.create(name="如皋俱乐部", slug="rugao")
        self.other = Club.objects.create(name="海门俱乐部", slug="haimen")
        self.host_admin = self.member(self.host, Role.OWNER)
        self.guest_admin = self.member(self.guest, Role.OWNER)
        self.other_admin = self.member(self.other, Role.OWNER)
        self.outsider = self.user()
        self.league = setup.create_league(
            self.host_admin, self.host, name="江苏团体联赛", inter_club=True
        )
        setup.invite_club(self.host_admin, self.league, self.guest)

    def user(self):
        self.n += 1
        return User.objects.create_user(
            username=f"u{self.n}", email=f"u{self.n}@example.com", password="pw-12345678"
        )

    def member(self, club, role=Role.MEMBER):
        user = self.user()
        Membership.objects.create(club=club, user=user, role=role)
        return user

    def season(self, **fields):
        values = dict(name="2030 春季", variant="bao2", entry_kind="team", starts_on=START)
        values.update(fields)
        return setup.create_season(self.host_admin, self.league, **values)

    def team(self, season, club, admin, name, division=None, size=4):
        players = [self.member(club) for _ in range(size)]
        entry = entries.enter_team(
            admin,
            season,
            club,
            name=name,
            captain=players[0],
            players=players,
            division=division,
        )
        return entry, players


@pytest.fixture
def world(db):
    return World()


@pytest.fixture
def two_teams(world):
    """A started season with one team of each club; returns (season, fixture, home, away)."""
    season = world.season()
    a, pa = world.team(season, world.host, world.host_admin, "南通一队")
    b, pb = world.team(season, world.guest, world.guest_admin, "如皋一队")
    setup.start_season(world.host_admin, season)
    fixture = season.rounds.get(number=1).fixtures.get()
    return season, fixture, (a, pa), (b, pb)
