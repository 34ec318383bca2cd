"""Accounts, clubs, memberships, join requests, invitations and API tokens.

State changes go through ``clubs.services``; reads shared by callers live in ``clubs.selectors``.
"""

from __future__ import annotations

import hashlib
import secrets
import zoneinfo

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# An invitation link is for a club's players: more uses than this is a typo (and a number
# beyond the database's integer would be an error, not a refusal).
MAX_INVITATION_USES = 10_000
MAX_INVITATION_DAYS = 365


def validate_time_zone(value: str) -> None:
    """Refuse a time zone name that the IANA database does not know."""
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("Unknown time zone: %(value)s"), params={"value": value})


class Language(models.TextChoices):
    """Interface languages: Simplified Chinese first, English second."""

    ZH_HANS = "zh-hans", "简体中文"
    EN = "en", "English"


class TextSize(models.TextChoices):
    """The size of the text on every page (issue 43): 标准 / 大 / 特大."""

    STANDARD = "standard", _("Standard")
    LARGE = "large", _("Large")
    XLARGE = "xlarge", _("Extra large")


class User(AbstractUser):
    """A person with an account; the profile fields live here (display name, language, zone)."""

    display_name = models.CharField(_("display name"), max_length=60, blank=True)
    language = models.CharField(
        _("language"), max_length=10, choices=Language.choices, default=Language.ZH_HANS
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="Asia/Shanghai", validators=[validate_time_zone]
    )
    #: A guest account made for a visitor who tried practice without signing up
    #: (:mod:`clubs.guests`): practice tables only, no clubs, no rated play, no API writes.
    #: Signing up turns the same row into a full account (the flag cleared), keeping its games
    #: and settings; an unused guest is removed after ``GUESTS_EXPIRE_DAYS``.
    #: (also a database default: rows written by code that predates the column, such as a
    #: migration's historical models, stay full accounts)
    is_guest = models.BooleanField(_("guest"), default=False, db_default=False)
    #: Every page's text size for this person (a guest too: the same row); visitors without an
    #: account keep theirs in a cookie (:mod:`clubs.textsize`).
    text_size = models.CharField(
        _("text size"),
        max_length=10,
        choices=TextSize.choices,
        default=TextSize.STANDARD,
        db_default=TextSize.STANDARD,
    )

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        indexes = [
            # the expiry sweep's query (guests unused since a day), over the guests only
            models.Index(
                fields=["last_login"], condition=Q(is_guest=True), name="user_guest_last_login"
            ),
        ]

    def save(self, *args: object, **kwargs: object) -> None:
        """Save; when the password was set anew, revoke every API token of the user.

        ``set_password`` (password change, reset, admin, ``changepassword``) leaves the raw
        password in ``_password`` until the save; a login's hash upgrade clears it first, so it
        revokes nothing. Web sessions end by themselves: their hash no longer matches.
        """
        password_changed = self._password is not None and self.pk is not None
        super().save(*args, **kwargs)
        if password_changed:
            ApiToken.objects.filter(user=self).delete()

    @property
    def name(self) -> str:
        """The name shown to other players: the display name, else the username."""
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.name


class ApiToken(models.Model):
    """A named API key of a user. Only a SHA-256 digest is stored; the key is shown once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    name = models.CharField(_("name"), max_length=60)
    prefix = models.CharField(_("prefix"), max_length=8, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]

    @staticmethod
    def digest_of(key: str) -> str:
        """Return the stored digest of a raw key."""
        return hashlib.sha256(key.encode()).hexdigest()

    @staticmethod
    def new_key() -> str:
        """Return a fresh random raw key (40 URL-safe characters)."""
        return secrets.token_urlsafe(30)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class JoinPolicy(models.TextChoices):
    """How a player becomes a member of a club."""

    OPEN = "open", _("Open: anyone may join")
    REQUEST = "request", _("By request: admins accept or decline")
    INVITATION = "invitation", _("By invitation link only")


class Visibility(models.TextChoices):
    """Who sees a club's members, tables, matches, replays, ladders, tournaments and leagues
    (its name, description and how to join are public either way)."""

    PUBLIC = "public", _("Public: anyone sees the club's members, tables and results")
    MEMBERS = "members", _("Members only: only members see the club's members, tables and results")


class Role(models.TextChoices):
    """A member's role in a club: one owner, any number of admins and members."""

    OWNER = "owner", _("Owner")
    ADMIN = "admin", _("Admin")
    MEMBER = "member", _("Member")


class Club(models.Model):
    """A card club. Its owner is the member whose role is ``owner``."""

    name = models.CharField(_("name"), max_length=80)
    slug = models.SlugField(_("address name"), max_length=60, unique=True, allow_unicode=False)
    description = models.TextField(_("description"), blank=True, max_length=4000)
    city = models.CharField(_("city"), max_length=60, blank=True)
    join_policy = models.CharField(
        _("join policy"), max_length=12, choices=JoinPolicy.choices, default=JoinPolicy.REQUEST
    )
    # db_default too: a club row written by code that predates the column (a rolling deploy,
    # a migration test's historical model) is public.
    visibility = models.CharField(
        _("visibility"),
        max_length=8,
        choices=Visibility.choices,
        default=Visibility.PUBLIC,
        db_default=Visibility.PUBLIC,
    )
    # reviews: the strong bot reviews the club's finished matches (docs/review.md); db_default
    # as for visibility
    match_reviews = models.BooleanField(_("match reviews"), default=True, db_default=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's membership of a club with a role."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("club")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(_("joined at"), default=timezone.now)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        ordering = ["club_id", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="membership_unique_user"),
            models.UniqueConstraint(
                fields=["club"], condition=Q(role="owner"), name="membership_one_owner"
            ),
        ]

    @property
    def is_admin(self) -> bool:
        """True for the owner and admins (they manage the club)."""
        return self.role in (Role.OWNER, Role.ADMIN)

    def __str__(self) -> str:
        return f"{self.user} @ {self.club} ({self.role})"


class JoinRequestStatus(models.TextChoices):
    """Where a join request stands."""

    PENDING = "pending", _("Pending")
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")
    CANCELLED = "cancelled", _("Cancelled")


class JoinRequest(models.Model):
    """A player's request to join a club whose policy is *by request*."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="join_requests", verbose_name=_("club")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="join_requests",
        verbose_name=_("user"),
    )
    message = models.CharField(_("message"), max_length=500, blank=True)
    status = models.CharField(
        _("status"),
        max_length=10,
        choices=JoinRequestStatus.choices,
        default=JoinRequestStatus.PENDING,
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
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
        verbose_name = _("join request")
        verbose_name_plural = _("join requests")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=Q(status="pending"),
                name="joinrequest_one_pending",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} → {self.club} ({self.status})"


class Invitation(models.Model):
    """An invitation link to a club; usable until revoked, expired or used up."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("club")
    )
    token = models.CharField(max_length=43, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    max_uses = models.PositiveIntegerField(
        _("maximum uses"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_INVITATION_USES)],
    )
    uses = models.PositiveIntegerField(_("uses"), default=0)
    revoked = models.BooleanField(_("revoked"), default=False)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at", "-id"]

    @staticmethod
    def new_token() -> str:
        """Return a fresh unguessable link token."""
        return secrets.token_urlsafe(24)

    @property
    def is_usable(self) -> bool:
        """True if the link is not revoked, not expired and not used up."""
        if self.revoked:
            return False
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return False
        return self.max_uses is None or self.uses < self.max_uses

    def __str__(self) -> str:
        return f"{self.club} invitation {self.token[:6]}…"
