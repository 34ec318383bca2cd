"""Leagues (联赛): a host club's league, its seasons, divisions, entries and fixtures.

State changes go through ``leagues.services``; reads shared by callers live in
``leagues.selectors``; the round robin / Swiss schedule is the pure ``leagues.schedule``.
Standings are never stored: they are computed from the fixtures and cached under the
season's ``standings_key``, which every change of a result renews, so a corrected result
updates them at once. A fixture's tables point at the live table or the score sheet that
plays them by id only (``table_ref`` / ``sheet_ref``): every call into those apps goes
through ``leagues.bridge``.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.variants import Variant

#: Bounds of every number a form or the API may set.
MAX_UP_DOWN = 6
MAX_ROUNDS = 40
MAX_WINDOW_DAYS = 60
MAX_POINTS = 10
MAX_TIME_LIMIT = 600
MAX_DEALS = 50
MAX_DIVISIONS = 30
MAX_TEAM_TABLES = 4
TEAM_MIN, TEAM_MAX = 4, 10


class League(models.Model):
    """A league of a host club; an inter-club league invites other clubs, whose admins
    enter their own teams."""

    host = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="leagues", verbose_name=_("host club")
    )
    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True, max_length=4000)
    inter_club = models.BooleanField(_("inter-club"), default=False)
    invited_clubs = models.ManyToManyField(
        "clubs.Club", blank=True, related_name="league_invitations", verbose_name=_("invited clubs")
    )
    #: Entries promoted from / relegated to the next division when a season closes.
    promote = models.PositiveSmallIntegerField(
        _("promoted per division"), default=1, validators=[MaxValueValidator(MAX_UP_DOWN)]
    )
    relegate = models.PositiveSmallIntegerField(
        _("relegated per division"), default=1, validators=[MaxValueValidator(MAX_UP_DOWN)]
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("league")
        verbose_name_plural = _("leagues")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(promote__lte=MAX_UP_DOWN) & Q(relegate__lte=MAX_UP_DOWN),
                name="league_up_down_bounded",
            )
        ]

    def __str__(self) -> str:
        return self.name


class EntryKind(models.TextChoices):
    """What plays one side of a fixture."""

    TEAM = "team", _("Teams (团体赛)")
    PAIR = "pair", _("Fixed pairs")
    SINGLE = "single", _("Single players")


class ScheduleFormat(models.TextChoices):
    """How the fixtures of a division are drawn."""

    ROUND_ROBIN = "round_robin", _("Round robin")
    DOUBLE_ROUND_ROBIN = "double_round_robin", _("Double round robin")
    SWISS = "swiss", _("Swiss")


class Tiebreak(models.TextChoices):
    """The tie-breaks after match points, in the names of the shared standings code."""

    DIFF = "level_diff", _("Level or point difference")
    HEAD_TO_HEAD = "head_to_head", _("Head-to-head")
    BUCHHOLZ = "buchholz", _("Opponents' match points")
    SONNEBORN_BERGER = "sonneborn_berger", _("Sonneborn-Berger")
    WINS = "wins", _("Wins")


class SeasonStatus(models.TextChoices):
    """Draft (entries come in), running (the schedule is out), closed."""

    DRAFT = "draft", _("Taking entries")
    RUNNING = "running", _("Running")
    CLOSED = "closed", _("Closed")


class Season(models.Model):
    """One season of a league: its game and match settings, format, points, tie-breaks and
    the calendar of its rounds (each a play-by window of ``window_days`` days)."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("league")
    )
    name = models.CharField(_("name"), max_length=120)
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    entry_kind = models.CharField(
        _("entries"), max_length=8, choices=EntryKind.choices, default=EntryKind.TEAM
    )
    format = models.CharField(
        _("format"),
        max_length=20,
        choices=ScheduleFormat.choices,
        default=ScheduleFormat.ROUND_ROBIN,
    )
    #: Rounds of a Swiss season (round robins derive theirs from the entries).
    swiss_rounds = models.PositiveSmallIntegerField(
        _("Swiss rounds"),
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_ROUNDS)],
    )
    online = models.BooleanField(_("played online"), default=True)
    rated = models.BooleanField(_("rated (feeds the ladder)"), default=True)
    time_limit_minutes = models.PositiveIntegerField(
        _("match time limit (minutes)"), default=0, validators=[MaxValueValidator(MAX_TIME_LIMIT)]
    )
    colour_twos = models.BooleanField(_("coloured twos (Bao 2)"), default=False)
    deals = models.PositiveSmallIntegerField(
        _("deals (point games)"), default=0, validators=[MaxValueValidator(MAX_DEALS)]
    )
    #: Tables of a team fixture (each team fields one pair per table).
    team_tables = models.PositiveSmallIntegerField(
        _("tables per team fixture"),
        default=2,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_TEAM_TABLES)],
    )
    points_win = models.PositiveSmallIntegerField(
        _("points for a win"), default=2, validators=[MaxValueValidator(MAX_POINTS)]
    )
    points_draw = models.PositiveSmallIntegerField(
        _("points for a draw"), default=1, validators=[MaxValueValidator(MAX_POINTS)]
    )
    points_loss = models.PositiveSmallIntegerField(
        _("points for a loss"), default=0, validators=[MaxValueValidator(MAX_POINTS)]
    )
    tiebreak1 = models.CharField(
        _("first tie-break"), max_length=20, choices=Tiebreak.choices, default=Tiebreak.DIFF
    )
    tiebreak2 = models.CharField(
        _("second tie-break"),
        max_length=20,
        choices=Tiebreak.choices,
        default=Tiebreak.HEAD_TO_HEAD,
        blank=True,
    )
    tiebreak3 = models.CharField(
        _("third tie-break"),
        max_length=20,
        choices=Tiebreak.choices,
        default=Tiebreak.WINS,
        blank=True,
    )
    starts_on = models.DateField(_("first round opens on"))
    window_days = models.PositiveSmallIntegerField(
        _("days per round"),
        default=7,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_WINDOW_DAYS)],
    )
    status = models.CharField(
        _("status"), max_length=8, choices=SeasonStatus.choices, default=SeasonStatus.DRAFT
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    #: Renewed by every change the standings show (a result, an entry, a withdrawal, a
    #: division: ``leagues.services.standings.changed``), in the changing transaction; the
    #: cached standings are kept under it, so a change makes them stale at once.
    standings_key = models.UUIDField(default=uuid.uuid4, editable=False)

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["-starts_on", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(points_win__gte=models.F("points_draw"))
                & Q(points_draw__gte=models.F("points_loss"))
                & Q(points_win__lte=MAX_POINTS),
                name="season_points_ordered",
            ),
            models.CheckConstraint(
                condition=Q(window_days__gte=1, window_days__lte=MAX_WINDOW_DAYS)
                & Q(swiss_rounds__gte=1, swiss_rounds__lte=MAX_ROUNDS)
                & Q(team_tables__gte=1, team_tables__lte=MAX_TEAM_TABLES)
                & Q(time_limit_minutes__lte=MAX_TIME_LIMIT)
                & Q(deals__lte=MAX_DEALS),
                name="season_numbers_bounded",
            ),
        ]

    @property
    def tiebreaks(self) -> list[str]:
        """The tie-breaks in order, without blanks and repeats."""
        out: list[str] = []
        for name in (self.tiebreak1, self.tiebreak2, self.tiebreak3):
            if name and name not in out:
                out.append(name)
        return out

    def __str__(self) -> str:
        return f"{self.league} · {self.name}"


class Division(models.Model):
    """A division of a season; ``level`` 1 is the top division."""

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="divisions", verbose_name=_("season")
    )
    name = models.CharField(_("name"), max_length=60)
    level = models.PositiveSmallIntegerField(
        _("division level"), validators=[MinValueValidator(1), MaxValueValidator(MAX_DIVISIONS)]
    )

    class Meta:
        verbose_name = _("division")
        verbose_name_plural = _("divisions")
        ordering = ["season", "level"]
        constraints = [
            models.UniqueConstraint(fields=["season", "level"], name="division_unique_level"),
            models.CheckConstraint(
                condition=Q(level__gte=1, level__lte=MAX_DIVISIONS), name="division_level_bounded"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Team(models.Model):
    """A club's named team of a season: its captain and roster (:class:`TeamMember`)."""

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="teams", verbose_name=_("season")
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="league_teams", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=60)
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="captained_teams",
        verbose_name=_("captain"),
    )

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["season", "name"]
        constraints = [
            models.UniqueConstraint(fields=["season", "name"], name="team_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    """A player of a team's roster; ``season`` repeats the team's so that the database
    itself keeps a player to one team per season."""

    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="members", verbose_name=_("team")
    )
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="league_teams",
        verbose_name=_("player"),
    )

    class Meta:
        verbose_name = _("team member")
        verbose_name_plural = _("team members")
        ordering = ["team", "id"]
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="team_member_one_team"),
        ]

    def __str__(self) -> str:
        return f"{self.team} · {self.user_id}"


class Entry(models.Model):
    """One side of a season's fixtures: a team, a pair or a single player, in a division.

    ``joined_round`` > 1 marks a late entry (its earlier rounds count as not played);
    ``withdrawn_at`` a withdrawal (its later fixtures are forfeits, its played ones stand);
    ``answer_by`` a pending pair (its partner has not accepted yet).
    """

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="entries", verbose_name=_("season")
    )
    division = models.ForeignKey(
        Division,
        on_delete=models.CASCADE,
        related_name="entries",
        verbose_name=_("division"),
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=120)
    team = models.OneToOneField(
        Team, on_delete=models.CASCADE, null=True, blank=True, related_name="entry"
    )
    player1 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("player"),
    )
    player2 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("partner"),
    )
    seed = models.PositiveIntegerField(_("seeding"), default=0)
    joined_round = models.PositiveSmallIntegerField(_("joined in round"), default=1)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    #: Set while a pair entered by one of its players waits for the partner's acceptance (it
    #: is not drawn nor in the standings until then); the entry is removed after this time.
    answer_by = models.DateTimeField(_("partner answers by"), null=True, blank=True)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["division", "seed", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(team__isnull=False) | Q(player1__isnull=False),
                name="league_entry_has_players",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class RoundStatus(models.TextChoices):
    """A round is drawn (its window not yet open), open, or closed (its window ended)."""

    DRAWN = "drawn", _("Drawn")
    OPEN = "open", _("Open")
    CLOSED = "closed", _("Closed")


class Round(models.Model):
    """One round of a season: its play-by window (dates, inclusive) and an optional club
    night the host sets for every fixture of the round."""

    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("season")
    )
    number = models.PositiveSmallIntegerField(
        _("round"), validators=[MinValueValidator(1), MaxValueValidator(2 * MAX_ROUNDS)]
    )
    opens_on = models.DateField(_("window opens"))
    closes_on = models.DateField(_("play by"))
    club_night = models.DateTimeField(_("club night"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=8, choices=RoundStatus.choices, default=RoundStatus.DRAWN
    )

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["season", "number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="league_round_unique"),
            models.CheckConstraint(
                condition=Q(closes_on__gte=models.F("opens_on")), name="league_round_window"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.season} · {self.number}"


class FixtureStatus(models.TextChoices):
    """A fixture waits for a time, has one agreed, is being played, or has a result."""

    PENDING = "pending", _("No time yet")
    PROPOSED = "proposed", _("Time proposed")
    AGREED = "agreed", _("Time agreed")
    PLAYING = "playing", _("Playing")
    DONE = "done", _("Result in")
    BYE = "bye", _("Bye")


class ResultSource(models.TextChoices):
    """Where a fixture's result came from."""

    NONE = "", _("No result")
    PLAYED = "played", _("Played")
    FORFEIT = "forfeit", _("Forfeit")
    ORGANISER = "organiser", _("Set by the organiser")


class Fixture(models.Model):
    """A meeting of two entries in a round (``away`` None: a bye) with its proposed and
    agreed time, its result (the sum of its tables) and the match points it gave."""

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="fixtures", verbose_name=_("round")
    )
    division = models.ForeignKey(
        Division, on_delete=models.CASCADE, related_name="fixtures", verbose_name=_("division")
    )
    home = models.ForeignKey(
        Entry,
        on_delete=models.CASCADE,
        related_name="home_fixtures",
        verbose_name=pgettext_lazy("fixture side", "home"),
    )
    away = models.ForeignKey(
        Entry,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="away_fixtures",
        verbose_name=pgettext_lazy("fixture side", "away"),
    )
    status = models.CharField(
        _("status"), max_length=10, choices=FixtureStatus.choices, default=FixtureStatus.PENDING
    )
    proposed_at = models.DateTimeField(_("proposed time"), null=True, blank=True)
    proposed_by = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    agreed_at = models.DateTimeField(_("agreed time"), null=True, blank=True)
    #: The organiser's extension of the play-by date (None: the round's).
    extended_to = models.DateField(_("extended to"), null=True, blank=True)
    home_score = models.IntegerField(_("home score"), null=True, blank=True)
    away_score = models.IntegerField(_("away score"), null=True, blank=True)
    #: 0 home, 1 away, None a draw (or no result yet).
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    source = models.CharField(
        _("result"), max_length=10, choices=ResultSource.choices, default="", blank=True
    )
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("fixture")
        verbose_name_plural = _("fixtures")
        ordering = ["round", "division", "id"]
        indexes = [models.Index(fields=["status", "agreed_at"], name="league_fixture_due")]
        constraints = [
            models.CheckConstraint(
                condition=Q(away__isnull=True) | ~Q(away=models.F("home")),
                name="league_fixture_two_entries",
            ),
            models.CheckConstraint(
                condition=Q(winner__isnull=True) | Q(winner__in=[0, 1]),
                name="league_fixture_winner_side",
            ),
        ]

    @property
    def entries(self) -> list[Entry]:
        """The fixture's entries, home first."""
        return [self.home] + ([self.away] if self.away_id else [])

    def __str__(self) -> str:
        return f"{self.home} – {self.away or '—'}"


class LineUp(models.Model):
    """A team's line-up for a team fixture: which pair sits at which table. It stays hidden
    from the other side until both line-ups are in or the fixture's time has come."""

    fixture = models.ForeignKey(
        Fixture, on_delete=models.CASCADE, related_name="lineups", verbose_name=_("fixture")
    )
    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="lineups", verbose_name=_("team")
    )
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    submitted_at = models.DateTimeField(_("submitted at"), default=timezone.now)

    class Meta:
        verbose_name = _("line-up")
        verbose_name_plural = _("line-ups")
        constraints = [
            models.UniqueConstraint(fields=["fixture", "entry"], name="lineup_one_per_side"),
        ]

    def __str__(self) -> str:
        return f"{self.fixture_id} · {self.entry}"


class LineUpPair(models.Model):
    """The pair a line-up sends to table ``table`` (1-based)."""

    lineup = models.ForeignKey(LineUp, on_delete=models.CASCADE, related_name="pairs")
    table = models.PositiveSmallIntegerField(
        _("table"), validators=[MinValueValidator(1), MaxValueValidator(MAX_TEAM_TABLES)]
    )
    player1 = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    player2 = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        verbose_name = _("line-up pair")
        verbose_name_plural = _("line-up pairs")
        ordering = ["lineup", "table"]
        constraints = [
            models.UniqueConstraint(fields=["lineup", "table"], name="lineup_pair_one_per_table"),
        ]


class FixtureTable(models.Model):
    """One table of a fixture: who sits where, the live table or score sheet playing it, and
    its result from the home side's view. ``home_side`` is the side (0: seats 0 and 2,
    north–south; 1: seats 1 and 3, east–west) the home players sit on: the two teams' pairs
    sit in opposite directions at the two tables of a team fixture."""

    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(_("table"))
    home_side = models.PositiveSmallIntegerField(default=0)
    #: User ids by seat.
    seat_users = models.JSONField(default=list)
    table_ref = models.PositiveBigIntegerField(_("live table"), null=True, blank=True)
    sheet_ref = models.PositiveBigIntegerField(_("score sheet"), null=True, blank=True)
    home_score = models.IntegerField(null=True, blank=True)
    away_score = models.IntegerField(null=True, blank=True)
    #: 0 home, 1 away, None a draw or no result.
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    done = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("fixture table")
        verbose_name_plural = _("fixture tables")
        ordering = ["fixture", "number"]
        constraints = [
            models.UniqueConstraint(fields=["fixture", "number"], name="fixture_table_unique"),
            models.CheckConstraint(
                condition=Q(home_side__in=[0, 1]), name="fixture_table_home_side"
            ),
        ]
