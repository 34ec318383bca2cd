"""Tournaments (比赛): a club's event, its entries, rounds, games and on-site notices.

State changes go through ``tournaments.services``; reads shared by callers live in
``tournaments.selectors``; pairing and standings are the pure modules
``tournaments.pairing`` and ``tournaments.standings``. Standings are never stored: they are computed
from the games, so a corrected result updates them at once.

The models moved here from ``ladder`` with state-only migrations: each keeps its table
(``db_table``, the ``ladder_`` names), so the rows stay where they are.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.variants import Variant, game, is_game


class TournamentFormat(models.TextChoices):
    """How units are paired round after round."""

    SWISS = "swiss", _("Swiss")
    ROUND_ROBIN = "round_robin", _("Round robin")
    ELIMINATION = "elimination", _("Single elimination")
    #: Winners' and losers' brackets, then a final (第二十六条二, 附录六).
    DOUBLE_ELIMINATION = "double_elim", _("Double elimination")


#: Formats played as a knockout bracket (every game needs a winner, 第十四条三).
KNOCKOUT_FORMATS = (TournamentFormat.ELIMINATION, TournamentFormat.DOUBLE_ELIMINATION)


class SeriesMode(models.TextChoices):
    """How each tie of a knockout is played (多局制淘汰赛, 第三十条三; :mod:`tournaments.series`):
    one game, 2 or 3 games whose 级分 are added up, or best of three or five."""

    SINGLE = "", _("One game")
    SUM2 = "sum2", _("2 games, grade points added up")
    SUM3 = "sum3", _("3 games, grade points added up")
    BEST3 = "best3", _("Best of three")
    BEST5 = "best5", _("Best of five")


class Scoring(models.TextChoices):
    """How a game is scored in the standings: the club's own match points and level
    difference, or the national competition rules' 场分 (2/1/0) and 级分 (Guandan: the 26-point
    table; Bao 2: the level difference on its own 0–23 scale), with their tie-break order
    (:mod:`tournaments.scoring`)."""

    CLUB = "club", _("Club scoring")
    NATIONAL = "national", _("National rules (match points and grade points)")


class UnitKind(models.TextChoices):
    """What one entry is: a fixed pair, a single player, or a player of an individual event
    whose partner changes every round (Bao 2 / Guandan), or every deal (Nanping Red Two, which
    is played only as an individual event)."""

    PAIR = "pair", _("Fixed pairs")
    SINGLE = "single", _("Single players")
    INDIVIDUAL = "individual", _("Individual (rotating partners)")


class TournamentStatus(models.TextChoices):
    """Draft (not public), scheduled (public, registration by its window), running, paused,
    finished or cancelled."""

    DRAFT = "draft", _("Draft")
    SCHEDULED = "scheduled", _("Scheduled")
    RUNNING = "running", _("Running")
    PAUSED = "paused", _("Paused")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


#: A tournament under way or about to be: registration, check-in and the tick work on these.
ACTIVE_STATUSES = (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING, TournamentStatus.PAUSED)


class Tournament(models.Model):
    """A club's tournament: format, game, match settings, windows and round times."""

    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="tournaments", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    format = models.CharField(
        _("format"), max_length=12, choices=TournamentFormat.choices, default="swiss"
    )
    unit_kind = models.CharField(
        _("entries"), max_length=12, choices=UnitKind.choices, default=UnitKind.PAIR
    )
    #: Planned rounds (Swiss; round robin and elimination derive theirs from the entries).
    rounds_planned = models.PositiveSmallIntegerField(_("rounds"), default=5)
    third_place = models.BooleanField(_("third-place game"), default=False)
    rated = models.BooleanField(_("rated (feeds the club ladder)"), default=False)
    #: Played at virtual tables (live) or in person with score sheets.
    online = models.BooleanField(_("played online"), default=True)
    #: Engine options of each match (``time_limit_minutes``, ``deals``, ...).
    match_options = models.JSONField(_("match options"), default=dict, blank=True)
    time_limit_minutes = models.PositiveIntegerField(_("match time limit (minutes)"), default=0)
    tiebreaks = models.JSONField(_("tie-breaks"), default=list, blank=True)
    scoring = models.CharField(
        _("scoring"), max_length=10, choices=Scoring.choices, default=Scoring.CLUB
    )
    #: Low-position elimination (积分编排赛 + 低位淘汰赛, 第二十九条): after the round
    #: ``after_round`` of a Swiss event only the ``keep`` best-placed entries play on, as
    #: ``[{"after_round": 3, "keep": 12}, ...]``; the others keep their place below them.
    cuts = models.JSONField(_("low-position elimination"), default=list, blank=True)
    #: Duplicate event (复式赛, 第三十三条): every table of a round plays the same deals.
    duplicate = models.BooleanField(_("duplicate (same deals at every table)"), default=False)
    #: Group round robin (分组循环赛, 第二十七条一): the entries spread over this many groups by
    #: serpentine seeding, each group a round robin of its own (1: no groups).
    groups = models.PositiveSmallIntegerField(_("groups"), default=1)
    #: Single or double round robin (单循环赛 / 双循环赛, 第二十七条二、三): how many times the
    #: units of a round robin (of each group) meet — 2: every pairing played again, sides
    #: swapped, in the rounds after the first cycle. 1 for every other format.
    cycles = models.PositiveSmallIntegerField(_("round robin cycles"), default=1)
    #: The earlier stage this one was made from (its ranking gave the entries and their seeds):
    #: a multi-stage event is tournaments linked stage to stage.
    previous_stage = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="next_stages",
        verbose_name=_("previous stage"),
    )
    #: Each knockout tie a series of games (多局制淘汰赛, 第三十条): :class:`SeriesMode`.
    series = models.CharField(
        _("games per tie"), max_length=8, choices=SeriesMode.choices, default="", blank=True
    )
    points_win = models.PositiveSmallIntegerField(_("points for a win"), default=2)
    points_draw = models.PositiveSmallIntegerField(_("points for a draw"), default=1)
    registration_opens = models.DateTimeField(_("registration opens"), null=True, blank=True)
    registration_closes = models.DateTimeField(_("registration closes"), null=True, blank=True)
    checkin_required = models.BooleanField(_("check-in required"), default=True)
    checkin_minutes = models.PositiveIntegerField(_("check-in opens (minutes before)"), default=30)
    #: Entries may still register before this round is created (0: not after the start).
    late_until_round = models.PositiveSmallIntegerField(
        _("late registration until round"), default=0
    )
    starts_at = models.DateTimeField(_("starts at"))
    round_minutes = models.PositiveIntegerField(_("minutes between rounds"), default=60)
    #: Start the next round as soon as every game of the round has finished.
    start_when_ready = models.BooleanField(_("next round when all have finished"), default=True)
    no_show_minutes = models.PositiveIntegerField(_("no-show forfeit after (minutes)"), default=0)
    status = models.CharField(
        _("status"), max_length=10, choices=TournamentStatus.choices, default="draft"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # An event open to several clubs and its entry conditions (tournaments.services.eligibility,
    # checked with the other settings in tournaments.forms; docs/competitions.md).
    #: Clubs the host club invited: their members may enter, as the host's do.
    invited_clubs = models.ManyToManyField(
        "clubs.Club",
        blank=True,
        related_name="tournament_invitations",
        verbose_name=_("invited clubs"),
    )
    #: Each player's rating on the platform ladder of the game, at least / at most this
    #: (None: no bound).
    min_rating = models.PositiveSmallIntegerField(_("minimum rating"), null=True, blank=True)
    max_rating = models.PositiveSmallIntegerField(_("maximum rating"), null=True, blank=True)
    #: Each player's rated matches of the game (on that ladder), at least this many.
    min_rated_matches = models.PositiveSmallIntegerField(_("minimum rated matches"), default=0)
    #: The most entries (in a team event: teams) that take part; later ones wait (0: no cap).
    max_entries = models.PositiveSmallIntegerField(_("entry cap"), default=0)
    #: A team event: each team is a club's named team of this many pairs (or players);
    #: 0: not a team event.
    team_size = models.PositiveSmallIntegerField(
        _("team event: pairs (or players) per team"), default=0
    )

    class Meta:
        db_table = "ladder_tournament"
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-starts_at", "-id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_due")]
        constraints = [
            # one next stage per tournament: asking twice makes one (services.stages)
            models.UniqueConstraint(
                fields=["previous_stage"],
                name="tournament_one_next_stage",
                violation_error_message=_("This tournament already has its next stage."),
            ),
            models.CheckConstraint(
                condition=models.Q(groups__gte=1, groups__lte=16),
                name="tournament_groups_range",
                violation_error_message=_("A round robin has from 1 to 16 groups."),
            ),
            models.CheckConstraint(
                condition=models.Q(cycles__gte=1, cycles__lte=2),
                name="tournament_cycles_range",
                violation_error_message=_(
                    "A round robin is played once or twice (single or double round robin)."
                ),
            ),
        ]

    @property
    def next_stage(self) -> Tournament | None:
        """The stage made from this one's ranking, if any."""
        return self.next_stages.first()

    @property
    def round_robin_cycles(self) -> int:
        """How many times the units of a round robin meet (2: a double round robin); 1 for
        every other format, whatever is stored."""
        return self.cycles if self.format == TournamentFormat.ROUND_ROBIN else 1

    def format_display(self) -> str:
        """The format as the pages name it: a double round robin is 双循环赛, not 循环赛."""
        if self.round_robin_cycles == 2:
            return str(pgettext_lazy("tournament format", "Double round robin"))
        return str(self.get_format_display())

    @property
    def per_seat(self) -> bool:
        """True when results are per player, not per side (Nanping Red Two: partnerships
        change every deal, so a game is four players scored on their own totals)."""
        return is_game(self.variant) and not game(self.variant).fixed_sides

    def __str__(self) -> str:
        return self.name


class EntryStatus(models.TextChoices):
    """Awaiting the partner's acceptance (a pair registered by one of its players), registered,
    checked in, or withdrawn."""

    PENDING = "pending", _("Awaiting the partner")
    REGISTERED = "registered", _("Registered")
    CHECKED_IN = "checked_in", _("Checked in")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    #: Over the entry cap: it moves up when a place is freed before the start.
    WAITING = "waiting", _("On the waiting list")


class WithdrawalRule(models.TextChoices):
    """How 第二十四条二 treated an entry that withdrew after the start, by format."""

    #: Round robin, fewer than half of its opponents played: its results are cancelled and it
    #: leaves the standings (each opponent keeps the result it scored against it).
    ANNULLED = "annulled", _("Round robin: results annulled")
    #: Round robin, half or more played: its results stand, its later games are forfeits.
    STANDS = "stands", _("Round robin: results stand, later games forfeited")
    #: Swiss: its results stand, it is not paired again.
    SWISS = "swiss", _("Swiss: not paired again")
    #: Knockout (single or double elimination): the opponent goes through.
    KNOCKOUT = "knockout", _("Knockout: the opponent goes through")


#: The entries that take part: paired, listed in the standings (a pending pair does not yet).
ACCEPTED_STATUSES = (EntryStatus.REGISTERED, EntryStatus.CHECKED_IN)


class Entry(models.Model):
    """One unit of a tournament: a pair (two players), or a single player."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="entries", verbose_name=_("tournament")
    )
    name = models.CharField(_("name"), max_length=120, blank=True)
    player1 = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="tournament_entries",
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
    #: Team label in individual events (members of one team avoid being partners).
    team = models.CharField(_("team"), max_length=60, blank=True)
    seed = models.PositiveIntegerField(_("seed"), default=0)
    status = models.CharField(
        _("status"), max_length=12, choices=EntryStatus.choices, default="registered"
    )
    registered_at = models.DateTimeField(_("registered at"), default=timezone.now)
    checked_in_at = models.DateTimeField(_("checked in at"), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    #: Eliminated by a low-position cut after this round (第二十九条): no longer paired,
    #: ranked below the entries that play on.
    eliminated_after_round = models.PositiveSmallIntegerField(
        _("eliminated after round"), null=True, blank=True
    )
    #: A pending entry lapses (and is removed) at this time unless the partner accepts.
    answer_by = models.DateTimeField(_("partner answers by"), null=True, blank=True)
    # A withdrawal after the start (第二十三、二十四条二), written by
    # tournaments.services.entries.withdraw: all four together, or none (a withdrawal before
    # round 1 started, or none at all). Kept on the entry so that an entry with no game (a
    # late entry never paired) keeps its record too.
    #: The round it withdrew in (the first it does not finish: the round paired or being
    #: played when it withdrew; between rounds, the next).
    withdrawn_round = models.PositiveSmallIntegerField(
        _("withdrew in round"), null=True, blank=True
    )
    withdrawal_reason = models.CharField(_("reason for the withdrawal"), max_length=200, blank=True)
    #: The organiser who accepted it (第二十三条: "经竞赛部门同意").
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("withdrawal accepted by"),
    )
    withdrawal_rule = models.CharField(
        _("withdrawal rule applied"), max_length=10, choices=WithdrawalRule.choices, blank=True
    )
    #: The club it plays for: the host or an invited club (None: the host, as before clubs
    #: were invited).
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("club"),
    )
    #: Its team in a team event (its ``team`` label is the team's name).
    club_team = models.ForeignKey(
        "tournaments.ClubTeam",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="entries",
        verbose_name=_("team"),
    )

    class Meta:
        db_table = "ladder_entry"
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["tournament", "seed", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player1"], name="tournament_entry_unique_player1"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(withdrawn_round__isnull=True, withdrawal_rule="")
                    | (models.Q(withdrawn_round__isnull=False) & ~models.Q(withdrawal_rule=""))
                ),
                name="tournament_entry_withdrawal_round_and_rule",
                violation_error_message=_(
                    "A withdrawal after the start needs both its round and the rule applied."
                ),
            ),
        ]

    @property
    def user_ids(self) -> list[int]:
        """The entry's players' user ids."""
        return [self.player1_id] + ([self.player2_id] if self.player2_id else [])

    def __str__(self) -> str:
        return self.name or str(self.pk)


class RoundStatus(models.TextChoices):
    """Pending (not paired), paired (tables not yet open), playing, finished."""

    PENDING = "pending", _("Not paired yet")
    PAIRED = "paired", _("Paired")
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")


class Round(models.Model):
    """One round of a tournament and the time it is scheduled to start."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField(_("round"))
    scheduled_at = models.DateTimeField(_("scheduled at"))
    status = models.CharField(
        _("status"), max_length=10, choices=RoundStatus.choices, default="pending"
    )
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        db_table = "ladder_round"
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} R{self.number}"


class GameStatus(models.TextChoices):
    """Pending, playing, finished (a result), bye."""

    PENDING = "pending", _("Not started")
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")
    BYE = "bye", _("Bye")


class GameSource(models.TextChoices):
    """Where a game's result came from."""

    NONE = "", _("None yet")
    LIVE = "live", _("Live match")
    SHEET = "sheet", _("Score sheet")
    ADMIN = "admin", _("Entered by an organiser")
    FORFEIT = "forfeit", _("Forfeit")


class Game(models.Model):
    """One game of a round: two sides of entry ids (``side1`` empty: a bye), its table or
    score sheet and its result. In elimination ``slot`` is its place in the bracket.

    Nanping Red Two games are four players, each scored on their own: ``seat_scores`` holds
    each seat's match points (seats in :attr:`seat_entries` order) and ``seat_forfeits`` the
    seats that lost by forfeit; ``score0``/``score1``/``winner`` stay empty."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField(_("table number"))
    side0 = models.JSONField(default=list)
    side1 = models.JSONField(default=list)
    notes = models.JSONField(default=list, blank=True)
    slot = models.PositiveSmallIntegerField(default=0)
    third_place = models.BooleanField(default=False)
    status = models.CharField(
        _("status"), max_length=10, choices=GameStatus.choices, default="pending"
    )
    score0 = models.IntegerField(null=True, blank=True)
    score1 = models.IntegerField(null=True, blank=True)
    #: The winning side (0 / 1), None for a draw or no result.
    winner = models.SmallIntegerField(null=True, blank=True)
    #: 级分 of side 0 and side 1 in a national-rules event (:mod:`tournaments.scoring`), set
    #: with the result (None elsewhere, and before a result).
    grade0 = models.IntegerField(null=True, blank=True)
    grade1 = models.IntegerField(null=True, blank=True)
    seat_scores = models.JSONField(default=list, blank=True)
    seat_forfeits = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=8, choices=GameSource.choices, default="", blank=True)
    table = models.OneToOneField(
        "matches.Table", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    sheet = models.ForeignKey(
        "sheets.ScoreSheet", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "ladder_game"
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="game_unique_number")
        ]

    @property
    def sides(self) -> list[list[int]]:
        """The two sides' entry ids."""
        return [list(self.side0), list(self.side1)]

    @property
    def seat_entries(self) -> list[int]:
        """The entries by seat at a four-player table of an individual event: side 0 at seats
        0 and 2, side 1 at seats 1 and 3 (two-entry games: side 0, side 1)."""
        a, b = list(self.side0), list(self.side1)
        if len(a) == 2 and len(b) == 2:
            return [a[0], b[0], a[1], b[1]]
        return a + b

    @property
    def is_bye(self) -> bool:
        """True when the first side plays nobody this round."""
        return not self.side1

    @property
    def has_result(self) -> bool:
        """True once the game counts (finished, or a bye)."""
        return self.status in (GameStatus.FINISHED, GameStatus.BYE)

    def __str__(self) -> str:
        return f"{self.round} #{self.number}"


class TournamentNotice(models.Model):
    """An on-site notice to one player (a round is paired, a forfeit, ...)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="notices")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_notices"
    )
    text = models.CharField(max_length=300)
    url = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "ladder_tournamentnotice"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "read_at"], name="tnotice_unread")]


class ClubTeam(models.Model):
    """A club's named team in a team event, entered by its captain: its pairs (or players)
    are entries (:attr:`Entry.club_team`) and its standing is their results added up
    (:mod:`tournaments.teams`)."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="club_teams",
        verbose_name=_("tournament"),
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=60)
    captain = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("captain"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["tournament", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "name"],
                name="club_team_unique_name",
                violation_error_message=_("Another team of this tournament has this name."),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class TeamRosterChange(models.Model):
    """One change of a team's roster (:func:`tournaments.services.teams.change_roster`): who
    made it, when, and each pair before and after it — the team's history, read in each
    reader's language (:attr:`text`)."""

    team = models.ForeignKey(
        ClubTeam,
        on_delete=models.CASCADE,
        related_name="roster_changes",
        verbose_name=_("team"),
    )
    number = models.PositiveSmallIntegerField(_("number"))
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("changed by"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    #: ``[[before, after], ...]``: the pair's name before ("" for a pair added) and after.
    pairs = models.JSONField(_("entries before and after"), default=list)

    class Meta:
        verbose_name = _("roster change")
        verbose_name_plural = _("roster changes")
        ordering = ["team", "number"]
        constraints = [
            models.UniqueConstraint(fields=["team", "number"], name="roster_change_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.team} #{self.number}"

    @property
    def text(self) -> str:
        """The change as one sentence in the active language: who changed the roster of which
        team, each pair before and after."""
        what = "; ".join(
            (
                _("%(before)s became %(after)s") % {"before": before, "after": after}
                if before
                else _("%(after)s added") % {"after": after}
            )
            for before, after in self.pairs
        )
        return _("%(who)s changed the roster of %(team)s: %(what)s.") % {
            "who": self.changed_by.name,
            "team": self.team.name,
            "what": what,
        }
