"""Tables, seats, matches and their append-only event logs.

State changes go through ``matches.services``; reads shared by callers live in
``matches.selectors``. The authoritative state of a match is its event log
(:class:`MatchEvent`, unique ``(match, seq)``); :attr:`Match.snapshot` is the engine's
``Match.to_json()`` after the last event and :attr:`Match.version` the number of events.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.variants import Variant, game


class BotKind(models.TextChoices):
    """Who sits in a seat when it is not a person."""

    NONE = "", _("Person")
    RANDOM = "random", _("Easy bot")
    HEURISTIC = "heuristic", _("Normal bot")
    SEARCH = "search", _("Strong bot")


class TableStatus(models.TextChoices):
    """A table waits for players, plays its match, then is finished."""

    OPEN = "open", _("Waiting for players")
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")
    CLOSED = "closed", _("Closed")


class TableKind(models.TextChoices):
    """Whose table it is: a club's, or a club-less one (practice against bots, friends' room)."""

    CLUB = "club", _("Club table")
    PRACTICE = "practice", _("Practice table")
    FRIENDS = "friends", _("Friends' table")


class Table(models.Model):
    """A virtual table: one variant, its options, its seats and (once full) a match.

    A club's table has its club; a practice or friends' table has none (``club`` is null,
    a database constraint keeps the two together), is never rated and is seen only by the
    people :mod:`matches.services.access` allows.
    """

    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="tables",
        verbose_name=_("club"),
    )
    kind = models.CharField(
        _("kind"), max_length=10, choices=TableKind.choices, default=TableKind.CLUB
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("opened by"),
    )
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    #: Engine options (``colour_twos``, ``first_action_seconds``, ``action_seconds``,
    #: ``time_limit_minutes``, ...), validated by the engine when the table is opened.
    options = models.JSONField(_("options"), default=dict, blank=True)
    #: Match time limit in seconds (0: none); the engine's ``time_limit_minutes`` unless set.
    time_limit_seconds = models.PositiveIntegerField(_("time limit (seconds)"), default=0)
    #: Whether the per-action clock runs (off: nobody is ever timed out).
    clocks = models.BooleanField(_("clocks"), default=True)
    rated = models.BooleanField(_("rated"), default=False)
    spectators_allowed = models.BooleanField(_("spectators allowed"), default=True)
    #: Quick phrases (matches.services.phrases) at a casual table; never at a rated or a
    #: competition's table whatever this says.
    phrases_allowed = models.BooleanField(_("quick phrases allowed"), default=True)
    #: The table belongs to a tournament or a league (competition rules apply: no played-card
    #: history, no quick phrases).
    competition = models.BooleanField(_("competition"), default=False)
    #: Tables with the same non-empty key play the same deals ("siblings": the tables of a
    #: team fixture, a duplicate round): what one shows would give away another's hands.
    deal_group = models.CharField(_("deal group"), max_length=64, blank=True, db_index=True)
    status = models.CharField(
        _("status"), max_length=10, choices=TableStatus.choices, default=TableStatus.OPEN
    )
    created_at = models.DateTimeField(_("opened at"), default=timezone.now)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["club", "status"])]
        constraints = [
            # A club's table has a club; a club-less kind never has one; and a club-less
            # table is never rated (no ladder belongs to it).
            models.CheckConstraint(
                condition=(
                    models.Q(kind="club", club__isnull=False)
                    | (~models.Q(kind="club") & models.Q(club__isnull=True, rated=False))
                ),
                name="table_kind_club",
            ),
        ]

    @property
    def seat_count(self) -> int:
        """Number of seats of the table's variant."""
        return game(self.variant).seats

    def __str__(self) -> str:
        return f"{self.get_variant_display()} #{self.pk}"


class Seat(models.Model):
    """One seat of a table: a person, a bot, or empty (no user and no bot)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="seats",
        verbose_name=_("player"),
    )
    bot = models.CharField(_("bot"), max_length=10, choices=BotKind.choices, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="unique_seat_index"),
        ]

    @property
    def taken(self) -> bool:
        """Whether a person or a bot sits here."""
        return self.user_id is not None or bool(self.bot)

    def __str__(self) -> str:
        return f"{self.table_id}:{self.index}"


class MatchStatus(models.TextChoices):
    """A match is played, then finished."""

    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")


class Match(models.Model):
    """A live match: seed, options, seats, the event log's version and a JSON snapshot.

    ``deadline`` is when the server acts for the seat to move (its clock ran out, or a bot /
    auto-play turn is due), valid only while ``version == deadline_version``.
    """

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="match")
    variant = models.CharField(_("game"), max_length=16, choices=Variant.choices)
    seed = models.CharField(_("seed"), max_length=64)
    options = models.JSONField(_("options"), default=dict)
    #: ``[{"user": id or None, "bot": "" | "random" | "heuristic" | "search", "name": str}, ...]``
    seats = models.JSONField(_("seats"), default=list)
    version = models.PositiveIntegerField(_("version"), default=0)
    #: Bumped by every write of this row (an action, or a seat put on or taken off auto-play):
    #: a writer that read revision r updates only ``WHERE revision = r`` (optimistic locking).
    revision = models.PositiveIntegerField(default=0)
    snapshot = models.JSONField(_("snapshot"), default=dict)
    status = models.CharField(
        _("status"), max_length=10, choices=MatchStatus.choices, default=MatchStatus.PLAYING
    )
    to_move = models.SmallIntegerField(null=True, blank=True)
    #: (no index of its own: every action changes it, and the sweep's query is served by
    #: the index on status and deadline)
    deadline = models.DateTimeField(null=True, blank=True)
    deadline_version = models.PositiveIntegerField(null=True, blank=True)
    #: When the match time limit runs out (None: no limit, or already applied).
    ends_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: Per seat: "" (the person plays), "timeout" or "disconnect" (托管: a bot plays the seat,
    #: ``matches.services.bots.autoplay_bot``).
    autoplay = models.JSONField(default=list)
    #: Per seat: clock expiries in a row.
    timeouts = models.JSONField(default=list)
    #: The pause between deals while a deal summary is shown (None: no pause):
    #: ``{"deal": the finished deal's number, "pending": [seats yet to dismiss it],
    #: "until": epoch seconds}``. Until it ends no clock of the next deal runs.
    pause = models.JSONField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["status", "deadline"])]

    def pause_ends(self, now: datetime) -> datetime | None:
        """When the pause between deals ends, if it is still on at ``now`` (someone has yet
        to dismiss the last deal's summary and its time has not run out)."""
        pause = self.pause
        if not pause or not pause.get("pending"):
            return None
        until = datetime.fromtimestamp(float(pause["until"]), tz=UTC)
        return until if until > now else None

    def summary_pending(self) -> list[int] | None:
        """The seats yet to dismiss the last deal's summary while the pause between deals is
        on (None: no pause): what the frames carry as ``table.summary_pending``."""
        if self.pause_ends(timezone.now()) is None:
            return None
        return list(self.pause["pending"])

    def __str__(self) -> str:
        return f"{self.variant} match #{self.pk}"


class Actor(models.TextChoices):
    """Who made an event: the seat's person, a bot, auto-play, the clock, the system, or a
    referee (a sanction)."""

    PLAYER = "player", _("Player")
    BOT = "bot", _("Bot")
    AUTOPLAY = "auto", _("Auto-play")
    CLOCK = "clock", _("Clock")
    SYSTEM = "system", _("System")
    REFEREE = "referee", _("Referee")


class MatchEvent(models.Model):
    """One accepted action of a match, in order: ``seq`` 1, 2, ... (append-only)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    action = models.JSONField()
    seat = models.SmallIntegerField(null=True, blank=True)
    actor = models.CharField(max_length=8, choices=Actor.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("match event")
        verbose_name_plural = _("match events")
        ordering = ["match", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="unique_match_event_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.seq}"


class Presence(models.Model):
    """A live websocket connection to a match (seat None: spectator)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="presences")
    seat = models.SmallIntegerField(null=True, blank=True)
    channel_name = models.CharField(max_length=200, unique=True)
    connected_at = models.DateTimeField(default=timezone.now)
