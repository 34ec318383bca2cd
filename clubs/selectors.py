"""Reads of accounts and clubs shared by views, the API and other apps (no state changes)."""

from __future__ import annotations

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from clubs.models import (
    ApiToken,
    Club,
    Invitation,
    JoinRequest,
    JoinRequestStatus,
    Membership,
    Role,
    User,
)


def membership_of(user: User | None, club: Club) -> Membership | None:
    """Return the user's membership of the club, or None (also for anonymous users)."""
    if user is None or not user.is_authenticated:
        return None
    return Membership.objects.filter(club=club, user=user).first()


def role_of(user: User, club: Club) -> str | None:
    """Return the user's role in the club (``owner``/``admin``/``member``) or None."""
    return Membership.objects.filter(club=club, user=user).values_list("role", flat=True).first()


def clubs_with_counts(viewer: User | None = None) -> QuerySet[Club]:
    """All clubs annotated with ``member_count`` and, for a signed-in ``viewer``, ``viewer_role``
    (their role in each club, or None), in one query."""
    clubs = Club.objects.annotate(member_count=Count("memberships", distinct=True))
    if viewer is not None and viewer.is_authenticated:
        clubs = clubs.annotate(
            viewer_role=Subquery(
                Membership.objects.filter(club=OuterRef("pk"), user=viewer).values("role")[:1]
            )
        )
    return clubs.order_by("name", "id")


def search_clubs(query: str = "") -> QuerySet[Club]:
    """Clubs whose name, city or description contains ``query`` (all clubs when empty)."""
    clubs = clubs_with_counts()
    if query:
        clubs = clubs.filter(
            Q(name__icontains=query) | Q(city__icontains=query) | Q(description__icontains=query)
        )
    return clubs


def clubs_of_user(user: User) -> QuerySet[Club]:
    """The clubs the user belongs to, annotated with ``member_count``."""
    return clubs_with_counts().filter(memberships__user=user)


def club_owner(club: Club) -> User | None:
    """The club's owner."""
    membership = club.memberships.filter(role=Role.OWNER).select_related("user").first()
    return membership.user if membership else None


def members_of(club: Club) -> QuerySet[Membership]:
    """The club's memberships: owner first, then admins, then members by joining date."""
    order = {Role.OWNER: 0, Role.ADMIN: 1, Role.MEMBER: 2}
    from django.db.models import Case, IntegerField, Value, When

    return (
        club.memberships.select_related("user")
        .annotate(
            role_order=Case(
                *[When(role=role, then=Value(rank)) for role, rank in order.items()],
                output_field=IntegerField(),
            )
        )
        .order_by("role_order", "joined_at", "id")
    )


def pending_requests(club: Club) -> QuerySet[JoinRequest]:
    """The club's join requests waiting for a decision, oldest first."""
    return (
        club.join_requests.filter(status=JoinRequestStatus.PENDING)
        .select_related("user")
        .order_by("created_at", "id")
    )


def pending_request_of(user: User | None, club: Club) -> JoinRequest | None:
    """The user's pending join request to the club, or None."""
    if user is None or not user.is_authenticated:
        return None
    return club.join_requests.filter(user=user, status=JoinRequestStatus.PENDING).first()


def join_requests_visible_to(user: User) -> QuerySet[JoinRequest]:
    """Join requests the user may see: their own and those of clubs they administer."""
    admin_clubs = Membership.objects.filter(user=user, role__in=[Role.OWNER, Role.ADMIN]).values(
        "club_id"
    )
    return JoinRequest.objects.filter(Q(user=user) | Q(club_id__in=admin_clubs)).select_related(
        "club", "user", "decided_by"
    )


def invitations_of(club: Club) -> QuerySet[Invitation]:
    """The club's invitation links, newest first."""
    return club.invitations.select_related("created_by")


def invitations_visible_to(user: User) -> QuerySet[Invitation]:
    """Invitation links of the clubs the user administers."""
    admin_clubs = Membership.objects.filter(user=user, role__in=[Role.OWNER, Role.ADMIN]).values(
        "club_id"
    )
    return Invitation.objects.filter(club_id__in=admin_clubs).select_related("club", "created_by")


def invitation_by_token(token: str) -> Invitation | None:
    """The invitation with this link token, or None."""
    return Invitation.objects.select_related("club").filter(token=token).first()


def tokens_of(user: User) -> QuerySet[ApiToken]:
    """The user's API tokens, newest first."""
    return user.api_tokens.all()
