"""The officials of an event (national rules 第三十四条): a :class:`Panel` per tournament or
league season with its :class:`Official` people — one chief referee (裁判长), referees, and
an appeals committee (仲裁委员会) of an odd number, at least three —, the written
:class:`Appeal` of a player about a tournament game's or a league fixture table's result or
a sanction, the committee's
:class:`Vote` on it, and the organiser's :class:`Announcement` to the entrants."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

#: The rules' time to file an appeal after the round ends (第三十九条 一.2: 30 minutes).
DEFAULT_APPEAL_MINUTES = 30
#: The longest appeal time an event may set (a day): an appeal belongs to its round.
MAX_APPEAL_MINUTES = 1440
#: The shortest one.
MIN_APPEAL_MINUTES = 5
#: Longest appeal text, decision reason and announcement text.
TEXT_MAX = 2000
SUBJECT_MAX = 120
#: Hours within which the appeals committee answers an appeal (第三十九条二.4).
ANSWER_HOURS = 2
#: The highest appeal fee an event may set, in whole yuan (第三十九条一.4: "按竞赛规程的规定
#: 缴纳申诉费"; the platform takes no money: the fee is a record of what the organising
#: committee received and gives back). 0 means no fee.
MAX_APPEAL_FEE = 10000


class Panel(models.Model):
    """The officials of one event: a tournament or a league season (exactly one of them), and
    the event's time to file an appeal after a round ends."""

    tournament = models.OneToOneField(
        "tournaments.Tournament",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("tournament"),
    )
    season = models.OneToOneField(
        "leagues.Season",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("season"),
    )
    appeal_minutes = models.PositiveSmallIntegerField(
        _("minutes to appeal after a round"),
        default=DEFAULT_APPEAL_MINUTES,
        validators=[
            MinValueValidator(MIN_APPEAL_MINUTES),
            MaxValueValidator(MAX_APPEAL_MINUTES),
        ],
    )

    #: The appeal fee in whole yuan (0: none), paid to the organising committee with the
    #: appeal and given back when it is upheld (第三十九条一.4, 二.4). An appeal keeps the fee
    #: of the day it was filed.
    appeal_fee = models.PositiveIntegerField(
        _("appeal fee (yuan)"),
        default=0,
        validators=[MaxValueValidator(MAX_APPEAL_FEE)],
    )

    class Meta:
        verbose_name = _("officials of an event")
        verbose_name_plural = _("officials of events")
        constraints = [
            models.CheckConstraint(
                condition=Q(tournament__isnull=False, season__isnull=True)
                | Q(tournament__isnull=True, season__isnull=False),
                name="panel_one_event",
            ),
            models.CheckConstraint(
                condition=Q(appeal_minutes__gte=MIN_APPEAL_MINUTES)
                & Q(appeal_minutes__lte=MAX_APPEAL_MINUTES),
                name="panel_appeal_minutes_bounded",
            ),
            models.CheckConstraint(
                condition=Q(appeal_fee__gte=0) & Q(appeal_fee__lte=MAX_APPEAL_FEE),
                name="panel_appeal_fee_bounded",
            ),
        ]

    def __str__(self) -> str:
        return f"panel {self.pk}"


class OfficialRole(models.TextChoices):
    """What an official does at an event."""

    CHIEF = "chief", _("Chief referee")
    #: 副裁判长 (第三十四条二: "必要时可增设副裁判长"), one or several: referees the event's tables
    #: and reads its appeals; acts for the chief referee when the event has none (第三十五条二).
    DEPUTY = "deputy", _("Deputy chief referee")
    REFEREE = "referee", _("Referee")
    COMMITTEE = "committee", _("Appeals committee member")


class Official(models.Model):
    """A person appointed to an event's officials by its organiser. The role gives powers
    only while they are a member of the event's club (asked at every action)."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="officials")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("person"),
    )
    role = models.CharField(_("role"), max_length=10, choices=OfficialRole.choices)
    appointed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    appointed_at = models.DateTimeField(_("appointed at"), default=timezone.now)

    class Meta:
        verbose_name = _("official")
        verbose_name_plural = _("officials")
        ordering = ["panel", "role", "appointed_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["panel", "user"], name="official_one_role"),
            models.UniqueConstraint(
                fields=["panel"], condition=Q(role="chief"), name="official_one_chief"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role} {self.user_id}"


class AppealSubject(models.TextChoices):
    """What an appeal is about."""

    RESULT = "result", _("The result")
    SANCTION = "sanction", _("A referee's sanction")


class AppealStatus(models.TextChoices):
    """Where an appeal stands; ``upheld`` and ``dismissed`` are final (第三十四条: the
    committee's decision is final); ``ruled``: the chief referee has ruled on it (第三十九条
    二.1) and it goes to the committee only if a player of the game takes it there in time
    (二.2), else the ruling stands."""

    OPEN = "open", _("Waiting for the committee")
    RULED = "ruled", _("Ruled by the chief referee")
    UPHELD = "upheld", _("Upheld")
    DISMISSED = "dismissed", _("Dismissed")


class FeeState(models.TextChoices):
    """Where an appeal's fee stands (第三十九条一.4, 二.4): ``none`` when the event asks no
    fee; ``due`` until the chief referee or the organiser marks it received; then
    ``refunded`` when the appeal is upheld (the organising committee gives it back) or
    ``kept`` when it is dismissed."""

    NONE = "none", _("No appeal fee")
    DUE = "due", _("Fee due")
    RECEIVED = "received", _("Fee received")
    REFUNDED = "refunded", _("Fee refunded")
    KEPT = "kept", _("Fee kept")


class Verdict(models.TextChoices):
    """A committee member's vote, or the chief referee's ruling."""

    UPHOLD = "uphold", _("Uphold: change the result")
    DISMISS = "dismiss", _("Dismiss: the result stands")


#: The states of an appeal that has a fee.
FEE_STATES = ("due", "received", "refunded", "kept")


class Appeal(models.Model):
    """A player's written appeal about a result or a sanction at one table: a tournament's
    ``game`` or a league season's fixture ``table`` (exactly one of them).
    ``before0``/``before1``: the scores when it was filed (a league table: home, away);
    ``after0``/``after1``: the scores the committee's majority set (None when the result
    stayed); ``decided_by``: the member whose vote made the majority."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="appeals")
    game = models.ForeignKey(
        "tournaments.Game",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("game"),
    )
    table = models.ForeignKey(
        "leagues.FixtureTable",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("fixture table"),
    )
    filed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("filed by"),
    )
    subject = models.CharField(_("about"), max_length=10, choices=AppealSubject.choices)
    text = models.TextField(_("appeal"), max_length=TEXT_MAX)
    filed_at = models.DateTimeField(_("filed at"), default=timezone.now)
    status = models.CharField(
        _("status"), max_length=10, choices=AppealStatus.choices, default=AppealStatus.OPEN
    )
    before0 = models.IntegerField(null=True, blank=True)
    before1 = models.IntegerField(null=True, blank=True)
    after0 = models.IntegerField(null=True, blank=True)
    after1 = models.IntegerField(null=True, blank=True)
    # The chief referee's first ruling (第三十九条二.1): its verdict, the result it set when
    # upheld (``ruling0``/``ruling1``), why, by whom and when; ``escalated_at``: when a player
    # took it to the committee against the ruling (二.2), with what they wrote.
    ruling = models.CharField(_("ruling"), max_length=8, choices=Verdict.choices, blank=True)
    ruling0 = models.IntegerField(null=True, blank=True)
    ruling1 = models.IntegerField(null=True, blank=True)
    ruling_reason = models.TextField(_("reason for the ruling"), max_length=TEXT_MAX, blank=True)
    ruled_at = models.DateTimeField(_("ruled at"), null=True, blank=True)
    ruled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("ruled by"),
    )
    escalated_at = models.DateTimeField(_("taken to the committee at"), null=True, blank=True)
    escalation_text = models.TextField(
        _("why the ruling is contested"), max_length=TEXT_MAX, blank=True
    )
    escalated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("taken to the committee by"),
    )
    # The appeal fee (第三十九条一.4): the event's fee when it was filed, in whole yuan, and
    # where it stands (:class:`FeeState`): who marked it received and when, and when it was
    # settled (refunded or kept).
    fee = models.PositiveIntegerField(
        _("appeal fee (yuan)"), default=0, validators=[MaxValueValidator(MAX_APPEAL_FEE)]
    )
    fee_state = models.CharField(
        _("appeal fee"), max_length=10, choices=FeeState.choices, default=FeeState.NONE
    )
    fee_received_at = models.DateTimeField(_("fee received at"), null=True, blank=True)
    fee_received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("fee received by"),
    )
    fee_settled_at = models.DateTimeField(_("fee settled at"), null=True, blank=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )

    class Meta:
        verbose_name = _("appeal")
        verbose_name_plural = _("appeals")
        ordering = ["-filed_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(game__isnull=False, table__isnull=True)
                | Q(game__isnull=True, table__isnull=False),
                name="appeal_one_target",
            ),
            models.UniqueConstraint(
                fields=["game", "filed_by"],
                condition=Q(status="open", game__isnull=False),
                name="appeal_one_open_per_player",
            ),
            models.UniqueConstraint(
                fields=["table", "filed_by"],
                condition=Q(status="open", table__isnull=False),
                name="appeal_one_open_per_player_table",
            ),
            models.CheckConstraint(
                condition=Q(fee__gte=0) & Q(fee__lte=MAX_APPEAL_FEE),
                name="appeal_fee_bounded",
            ),
            models.CheckConstraint(
                condition=Q(fee=0, fee_state="none") | Q(fee__gt=0, fee_state__in=FEE_STATES),
                name="appeal_fee_state_with_fee",
            ),
        ]

    def __str__(self) -> str:
        return f"appeal {self.pk}"

    @property
    def answer_by(self) -> datetime | None:
        """When the committee's answer is due: :data:`ANSWER_HOURS` after filing — after its
        fee was received, when the event asks one (the fee is paid with the appeal, 第三十九条
        一.4: until then nobody decides it) — or after a player took the chief referee's
        ruling to it (第三十九条二.4: "须在2小时内给予答复"); None while the fee is due."""
        if self.fee_state == FeeState.DUE:
            return None
        start = self.escalated_at or self.fee_received_at or self.filed_at
        return start + timedelta(hours=ANSWER_HOURS)

    def overdue(self, now: datetime) -> bool:
        """Whether the appeal is still open after its answer was due."""
        due = self.answer_by
        return self.status == AppealStatus.OPEN and due is not None and now > due


class Vote(models.Model):
    """One committee member's vote on an appeal, with the result they would set and why."""

    appeal = models.ForeignKey(Appeal, on_delete=models.CASCADE, related_name="votes")
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    verdict = models.CharField(_("vote"), max_length=8, choices=Verdict.choices)
    score0 = models.IntegerField(null=True, blank=True)
    score1 = models.IntegerField(null=True, blank=True)
    winner = models.SmallIntegerField(null=True, blank=True)
    reason = models.TextField(_("reason"), max_length=TEXT_MAX)
    cast_at = models.DateTimeField(_("cast at"), default=timezone.now)

    class Meta:
        verbose_name = _("vote")
        verbose_name_plural = _("votes")
        ordering = ["appeal", "cast_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["appeal", "member"], name="vote_once"),
        ]

    def __str__(self) -> str:
        return f"{self.verdict} {self.member_id}"


class Audience(models.TextChoices):
    """Whom an announcement reaches."""

    ALL = "all", _("All entrants")
    DIVISION = "division", _("A division")
    TEAM = "team", _("A team")


class Announcement(models.Model):
    """The organiser's announcement to an event's entrants, a division (seasons) or a team
    (a season's team, a tournament's team label): a notice and an e-mail each."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="announcements")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    audience = models.CharField(_("to"), max_length=10, choices=Audience.choices)
    #: The division or team it went to (a season's division or team id; empty for ``all``
    #: and for a tournament's team label, which is ``team``).
    target = models.PositiveBigIntegerField(null=True, blank=True)
    team = models.CharField(_("team"), max_length=60, blank=True)
    subject = models.CharField(_("subject"), max_length=SUBJECT_MAX)
    text = models.TextField(_("text"), max_length=TEXT_MAX)
    recipients = models.PositiveIntegerField(default=0)
    sent_at = models.DateTimeField(_("sent at"), default=timezone.now)

    class Meta:
        verbose_name = _("announcement")
        verbose_name_plural = _("announcements")
        ordering = ["-sent_at", "-id"]

    def __str__(self) -> str:
        return self.subject
