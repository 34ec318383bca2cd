"""The only place that changes accounts and clubs. Views and the API call these functions.

Every function checks permissions through ``clubs.permissions`` and raises a ``ClubError``
(with a stable ``code`` and a translated message) when the action is refused; a refused action
changes nothing.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone, translation
from django.utils.text import slugify
from django.utils.translation import gettext as _

from clubs import hooks, permissions, selectors
from clubs.models import (
    MAX_INVITATION_DAYS,
    MAX_INVITATION_USES,
    ApiToken,
    Club,
    Invitation,
    JoinPolicy,
    JoinRequest,
    JoinRequestStatus,
    Membership,
    Role,
    User,
    Visibility,
    validate_time_zone,
)
from games import errors
from games.errors import Refused


class ClubError(Refused):
    """A refused club or account action (:class:`games.errors.Refused`)."""


class NotAllowed(ClubError, errors.NotAllowed):
    """The acting user lacks the role the action needs."""


class NotFound(ClubError, errors.NotFound):
    """The object named does not exist (or is not visible to the user)."""


class MembersOnly(NotFound, Http404):
    """A members-only club's things asked for by someone who may not see them: 404 on the web
    (Django's 404 page shows the message) and in the API, ``members_only`` on a websocket."""


logger = logging.getLogger(__name__)


def members_only() -> MembersOnly:
    """The refusal of a members-only club's things to a non-member (code ``members_only``)."""
    return MembersOnly("members_only", _("Only the club's members can see this."))


def require_club_visible(user: User | None, club: Club) -> None:
    """Raise :class:`MembersOnly` unless ``user`` may see ``club``'s things
    (:func:`clubs.permissions.can_see_club`). Every page, API view and consumer showing a
    club's members, tables, matches, replays, ladders, tournaments or leagues calls this."""
    if not permissions.can_see_club(user, club):
        raise members_only()


def _not_allowed() -> NotAllowed:
    return NotAllowed("not_allowed", _("You are not allowed to do this."))


def require_full_account(user: User) -> None:
    """Raise :class:`NotAllowed` ``guest`` when ``user`` is a guest account
    (:mod:`clubs.guests`): a guest plays practice tables only, so it creates, joins and is
    invited into no club (and so reaches no members-only page and no rated table, which are
    the members'), and has no API token. Signing up lifts it."""
    if getattr(user, "is_guest", False):
        raise NotAllowed("guest", _("Sign up first: a guest can only play practice tables."))


# --- Accounts --------------------------------------------------------------------------------


def sign_up(
    *,
    username: str,
    password: str,
    email: str = "",
    display_name: str = "",
    language: str = "zh-hans",
) -> User:
    """Create an active user account after validating the username and password."""
    user = User(username=username, email=email, display_name=display_name, language=language)
    try:
        user.full_clean(exclude=["password"])
        validate_password(password, user)
    except ValidationError as error:
        raise ClubError("invalid", " ".join(error.messages)) from error
    user.set_password(password)
    try:
        user.save()
    except IntegrityError as error:
        raise ClubError("username_taken", _("This username is already taken.")) from error
    return user


def update_profile(
    user: User,
    *,
    display_name: str | None = None,
    language: str | None = None,
    time_zone: str | None = None,
    email: str | None = None,
    current_password: str | None = None,
    text_size: str | None = None,
) -> User:
    """Change the user's display name, language, time zone or email; None keeps a field.

    A new email address needs the user's current password (``current_password``): password
    resets go to that address, so a borrowed session must not be able to redirect them. The
    old address, if any, is told of the change once the change is committed.
    """
    old_email = user.email
    email_changes = email is not None and email != old_email
    if email_changes and not user.check_password(current_password or ""):
        raise ClubError(
            "password_required", _("Enter your current password to change your email address.")
        )
    if display_name is not None:
        user.display_name = display_name.strip()
    if language is not None:
        user.language = language
    if time_zone is not None:
        try:
            validate_time_zone(time_zone)
        except ValidationError as error:
            raise ClubError("invalid_time_zone", " ".join(error.messages)) from error
        user.time_zone = time_zone
    if email is not None:
        user.email = email
    if text_size is not None:
        user.text_size = text_size
    try:
        user.full_clean(exclude=["password"])
    except ValidationError as error:
        user.refresh_from_db()
        raise ClubError("invalid", " ".join(error.messages)) from error
    user.save(update_fields=["display_name", "language", "time_zone", "email", "text_size"])
    if email_changes and old_email:
        transaction.on_commit(lambda: _notify_email_changed(user, old_email))
    return user


def allow_password_reset_request(email: str, address: str | None) -> bool:
    """Count a password-reset request; False once the address or the client is over its limit.

    Limits per hour: ``PASSWORD_RESET_LIMIT_PER_EMAIL`` for one email address (any case) and
    ``PASSWORD_RESET_LIMIT_PER_IP`` for one client address. The counters live in the cache;
    when it does not answer, the request is allowed (a warning is logged).
    """
    window = 3600
    keys = [
        (
            f"password-reset:email:{hashlib.sha256(email.strip().lower().encode()).hexdigest()}",
            settings.PASSWORD_RESET_LIMIT_PER_EMAIL,
        ),
        (f"password-reset:ip:{address or '-'}", settings.PASSWORD_RESET_LIMIT_PER_IP),
    ]
    allowed = True
    try:
        for key, limit in keys:
            cache.add(key, 0, timeout=window)
            if cache.incr(key) > limit:
                allowed = False
    except Exception as error:  # the cache (Redis) is down: do not refuse everyone
        logger.warning("password reset limit not applied, the cache failed: %r", error)
        return True
    return allowed


def _notify_email_changed(user: User, old_email: str) -> None:
    """Tell the old address that the account's email address changed (in the user's language)."""
    with translation.override(user.language or settings.LANGUAGE_CODE):
        subject = _("Your email address was changed")
        body = _(
            "The email address of your account %(username)s was changed to %(email)s.\n\n"
            "If you did not change it, someone else may be using your account: sign in, change "
            "your password and tell the site's administrators."
        ) % {"username": user.username, "email": user.email or "-"}
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [old_email])
    except Exception:  # the change is committed: a lost notice is logged, never a 500
        logger.exception("could not send the email-changed notice to user %s", user.pk)


def create_api_token(user: User, name: str) -> tuple[ApiToken, str]:
    """Create a named API token; return it with the raw key, which is never stored or shown again."""
    require_full_account(user)
    name = (name or "").strip()
    if not name:
        raise ClubError("invalid", _("Give the token a name."))
    if user.api_tokens.count() >= 20:
        raise ClubError("too_many_tokens", _("You already have 20 tokens; revoke one first."))
    key = ApiToken.new_key()
    token = ApiToken.objects.create(
        user=user, name=name[:60], prefix=key[:8], digest=ApiToken.digest_of(key)
    )
    return token, key


def issue_login_token(user: User, name: str = "api") -> tuple[ApiToken, str]:
    """Issue a fresh key for the user's token called ``name`` (``POST /api/v1/auth/token/``):
    a token of that name is replaced, since only digests are stored and an existing key cannot
    be shown again. Return the token with the raw key; raise ``ClubError`` like
    :func:`create_api_token`."""
    with transaction.atomic():
        ApiToken.objects.filter(user=user, name=(name or "").strip()[:60]).delete()
        return create_api_token(user, name)


def revoke_api_token(user: User, token_id: int) -> None:
    """Delete one of the user's own API tokens."""
    deleted, _count = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound("not_found", _("No such token."))


# --- Clubs -----------------------------------------------------------------------------------


RESERVED_SLUGS = {"new"}


def _unique_slug(name: str, wanted: str = "") -> str:
    base = slugify(wanted or name)[:50]
    if len(base) < 3:  # e.g. a Chinese name: slugify keeps only ASCII
        base = f"club-{secrets.token_hex(3)}"
    slug = base
    number = 2
    while slug in RESERVED_SLUGS or Club.objects.filter(slug=slug).exists():
        slug = f"{base}-{number}"
        number += 1
    return slug


@transaction.atomic
def create_club(
    user: User,
    *,
    name: str,
    description: str = "",
    city: str = "",
    join_policy: str = JoinPolicy.REQUEST,
    slug: str = "",
    visibility: str = Visibility.PUBLIC,
    match_reviews: bool = True,
) -> Club:
    """Create a club (public unless ``visibility`` says members only; its matches reviewed by
    the strong bot unless ``match_reviews`` is False); the creator becomes its owner."""
    if not user.is_authenticated:
        raise _not_allowed()
    require_full_account(user)
    name = (name or "").strip()
    if not name:
        raise ClubError("invalid", _("A club needs a name."))
    if slug and (slug in RESERVED_SLUGS or Club.objects.filter(slug=slug).exists()):
        raise ClubError("slug_taken", _("This address name is already taken."))
    club = Club(
        name=name,
        description=description,
        city=city,
        join_policy=join_policy,
        visibility=visibility,
        match_reviews=bool(match_reviews),
        slug=_unique_slug(name, slug),
    )
    try:
        club.full_clean()
    except ValidationError as error:
        raise ClubError("invalid", " ".join(error.messages)) from error
    club.save()
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    return club


def update_club(
    user: User,
    club: Club,
    *,
    name: str | None = None,
    description: str | None = None,
    city: str | None = None,
    join_policy: str | None = None,
    visibility: str | None = None,
    match_reviews: bool | None = None,
) -> Club:
    """Change the club's details, its visibility and whether its matches are reviewed by the
    strong bot (owner and admins); None keeps a field."""
    if not permissions.can_edit_club(user, club):
        raise _not_allowed()
    for field, value in (
        ("name", name),
        ("description", description),
        ("city", city),
        ("join_policy", join_policy),
        ("visibility", visibility),
    ):
        if value is not None:
            setattr(club, field, value.strip() if field == "name" else value)
    if match_reviews is not None:
        club.match_reviews = bool(match_reviews)
    try:
        club.full_clean()
    except ValidationError as error:
        club.refresh_from_db()
        raise ClubError("invalid", " ".join(error.messages)) from error
    club.save()
    return club


def delete_club(user: User, club: Club) -> None:
    """Delete the club with its memberships, requests and invitations (owner only)."""
    if not permissions.can_delete_club(user, club):
        raise _not_allowed()
    club.delete()


def _already_member() -> ClubError:
    return ClubError("already_member", _("You are already a member of this club."))


@transaction.atomic
def join_club(user: User, club: Club, *, message: str = "") -> Membership | JoinRequest:
    """Join an open club at once, or file a join request for a club that takes requests.

    Returns the new ``Membership`` (open club) or the pending ``JoinRequest``. A club that
    admits by invitation only refuses with ``invitation_required``.
    """
    if not user.is_authenticated:
        raise _not_allowed()
    require_full_account(user)
    if selectors.membership_of(user, club) is not None:
        raise _already_member()
    if club.join_policy == JoinPolicy.OPEN:
        return _add_member(user, club)
    if club.join_policy == JoinPolicy.REQUEST:
        if selectors.pending_request_of(user, club) is not None:
            raise ClubError(
                "request_pending", _("You have already asked to join; wait for the answer.")
            )
        try:
            with transaction.atomic():
                join_request = JoinRequest.objects.create(
                    club=club, user=user, message=message[:500]
                )
        except IntegrityError as error:
            raise ClubError(
                "request_pending", _("You have already asked to join; wait for the answer.")
            ) from error
        hooks.join_requested(join_request)  # e.g. the club's admins get an e-mail
        return join_request
    raise ClubError(
        "invitation_required", _("This club admits new members by invitation link only.")
    )


def request_to_join(user: User, club: Club, *, message: str = "") -> JoinRequest:
    """File a join request; only clubs whose policy is *by request* take them."""
    if club.join_policy != JoinPolicy.REQUEST:
        raise ClubError(
            "not_by_request",
            _("This club does not take join requests; use its join action."),
        )
    return join_club(user, club, message=message)


def _add_member(user: User, club: Club, role: str = Role.MEMBER) -> Membership:
    require_full_account(user)  # every way into a club comes through here
    try:
        with transaction.atomic():
            return Membership.objects.create(club=club, user=user, role=role)
    except IntegrityError as error:
        raise _already_member() from error


def _decide(user: User, join_request_id: int, status: str) -> JoinRequest:
    join_request = (
        JoinRequest.objects.select_for_update()
        .select_related("club", "user")
        .filter(pk=join_request_id)
        .first()
    )
    if join_request is None:
        raise NotFound("not_found", _("No such join request."))
    if status == JoinRequestStatus.CANCELLED:
        allowed = permissions.can_cancel_join_request(user, join_request)
    else:
        allowed = permissions.can_decide_join_request(user, join_request)
    if not allowed:
        raise _not_allowed()
    if join_request.status != JoinRequestStatus.PENDING:
        raise ClubError("request_not_pending", _("This request has already been answered."))
    join_request.status = status
    join_request.decided_at = timezone.now()
    join_request.decided_by = user
    join_request.save(update_fields=["status", "decided_at", "decided_by"])
    return join_request


@transaction.atomic
def accept_join_request(user: User, join_request_id: int) -> Membership:
    """Accept a pending join request (club admins); the requester becomes a member and is
    told (:func:`clubs.hooks.join_decided`)."""
    join_request = _decide(user, join_request_id, JoinRequestStatus.ACCEPTED)
    membership = selectors.membership_of(join_request.user, join_request.club)
    if membership is None:
        membership = _add_member(join_request.user, join_request.club)
    hooks.join_decided(join_request)  # the applicant gets a notice and an e-mail
    return membership


@transaction.atomic
def decline_join_request(user: User, join_request_id: int) -> JoinRequest:
    """Decline a pending join request (club admins); the applicant is told."""
    join_request = _decide(user, join_request_id, JoinRequestStatus.DECLINED)
    hooks.join_decided(join_request)
    return join_request


@transaction.atomic
def cancel_join_request(user: User, join_request_id: int) -> JoinRequest:
    """Withdraw one's own pending join request."""
    return _decide(user, join_request_id, JoinRequestStatus.CANCELLED)


def create_invitation(
    user: User,
    club: Club,
    *,
    max_uses: int | None = None,
    expires_in_days: int | None = 14,
) -> Invitation:
    """Create an invitation link (club admins). ``None`` means unlimited uses / never expires."""
    if not permissions.can_manage_invitations(user, club):
        raise _not_allowed()
    if max_uses is not None and max_uses < 1:
        raise ClubError("invalid", _("The number of uses must be at least 1."))
    if max_uses is not None and max_uses > MAX_INVITATION_USES:
        raise ClubError(
            "invalid",
            _("An invitation can be used at most %(count)s times.")
            % {"count": MAX_INVITATION_USES},
        )
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_INVITATION_DAYS:
        raise ClubError("invalid", _("An invitation lasts between 1 and 365 days."))
    expires_at = (
        timezone.now() + timedelta(days=expires_in_days) if expires_in_days is not None else None
    )
    return Invitation.objects.create(
        club=club,
        token=Invitation.new_token(),
        created_by=user,
        max_uses=max_uses,
        expires_at=expires_at,
    )


def revoke_invitation(user: User, invitation: Invitation) -> Invitation:
    """Revoke an invitation link (club admins); it can no longer be used."""
    if not permissions.can_revoke_invitation(user, invitation):
        raise _not_allowed()
    invitation.revoked = True
    invitation.save(update_fields=["revoked"])
    return invitation


@transaction.atomic
def accept_invitation(user: User, token: str) -> Membership:
    """Join the club of a usable invitation link, whatever the club's join policy."""
    if not user.is_authenticated:
        raise _not_allowed()
    require_full_account(user)
    invitation = (
        Invitation.objects.select_for_update().select_related("club").filter(token=token).first()
    )
    if invitation is None or not invitation.is_usable:
        raise ClubError(
            "invitation_unusable",
            _("This invitation link is not valid any more. Ask the club for a new one."),
        )
    if selectors.membership_of(user, invitation.club) is not None:
        raise _already_member()
    membership = _add_member(user, invitation.club)
    Invitation.objects.filter(pk=invitation.pk).update(uses=invitation.uses + 1)
    JoinRequest.objects.filter(
        club=invitation.club, user=user, status=JoinRequestStatus.PENDING
    ).update(status=JoinRequestStatus.ACCEPTED, decided_at=timezone.now())
    return membership


# --- Memberships -----------------------------------------------------------------------------


def leave_club(user: User, club: Club) -> None:
    """Leave a club. The owner must first transfer ownership to another member."""
    membership = selectors.membership_of(user, club)
    if membership is None:
        raise ClubError("not_member", _("You are not a member of this club."))
    if membership.role == Role.OWNER:
        raise ClubError(
            "owner_cannot_leave",
            _("The owner cannot leave; transfer ownership to another member first."),
        )
    membership.delete()
    hooks.standing_changed(club.pk, user.pk)  # e.g. their sockets on members-only tables close


def remove_member(user: User, membership: Membership) -> None:
    """Remove a member from the club (owner: anyone but self; admins: plain members)."""
    if not permissions.can_remove_member(user, membership):
        raise _not_allowed()
    membership.delete()
    hooks.standing_changed(membership.club_id, membership.user_id)


def change_role(user: User, membership: Membership, role: str) -> Membership:
    """Make a member an admin or an admin a member (owner only)."""
    if role not in (Role.ADMIN, Role.MEMBER):
        raise ClubError("invalid_role", _("The role must be admin or member."))
    if not permissions.can_change_role(user, membership, role):
        raise _not_allowed()
    membership.role = role
    membership.save(update_fields=["role"])
    hooks.standing_changed(membership.club_id, membership.user_id)  # e.g. no longer a referee
    return membership


@transaction.atomic
def transfer_ownership(user: User, club: Club, new_owner: User) -> Membership:
    """Hand the club to another member (owner only); the old owner stays on as an admin."""
    if not permissions.can_transfer_ownership(user, club):
        raise _not_allowed()
    target = Membership.objects.select_for_update().filter(club=club, user=new_owner).first()
    if target is None:
        raise ClubError("not_member", _("The new owner must already be a member of the club."))
    if target.user_id == user.pk:
        raise ClubError("invalid", _("You already own this club."))
    Membership.objects.filter(club=club, user=user).update(role=Role.ADMIN)
    target.role = Role.OWNER
    target.save(update_fields=["role"])
    return target
