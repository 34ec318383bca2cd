"""Who may do what in a club: the one permissions module used by the web views and the API.

Every function takes the acting user and the objects involved and returns a bool; services
call them before changing anything and raise ``NotAllowed`` when they say no.
"""

from __future__ import annotations

from django.db.models import Q

from clubs import selectors
from clubs.models import Club, Invitation, JoinRequest, Membership, Role, User, Visibility


def _role(user: User | None, club: Club) -> str | None:
    if user is None or not user.is_authenticated:
        return None
    return selectors.role_of(user, club)


def can_see_club(user: User | None, club: Club) -> bool:
    """Whether ``user`` may see ``club``'s things: its members, tables, live and finished
    matches, replays, ladders, tournaments and leagues. Everyone may in a public club; in a
    members-only club its members (any role) may, nobody else (the club's name, description
    and how to join stay public). The one rule of every page, API endpoint and websocket;
    lists ask its query form, :func:`visible_clubs_filter`."""
    return club.visibility == Visibility.PUBLIC or _role(user, club) is not None


def visible_clubs_filter(user: User | None, field: str = "") -> Q:
    """:func:`can_see_club` as a query: a ``Q`` keeping the rows whose club ``user`` may see.
    ``field`` is the path from the rows to their club (``"club"``, ``"league__host"``);
    empty for a query of clubs themselves."""
    prefix = f"{field}__" if field else ""
    public = Q(**{f"{prefix}visibility": Visibility.PUBLIC})
    if user is None or not user.is_authenticated:
        return public
    mine = Membership.objects.filter(user=user).values("club_id")
    return public | Q(**{f"{field}__in" if field else "pk__in": mine})


def is_club_admin(user: User | None, club: Club) -> bool:
    """True for the club's owner and admins."""
    return _role(user, club) in (Role.OWNER, Role.ADMIN)


def is_owner(user: User | None, club: Club) -> bool:
    """True for the club's owner."""
    return _role(user, club) == Role.OWNER


def can_edit_club(user: User | None, club: Club) -> bool:
    """Owner and admins edit the club's name, description, city, join policy and visibility."""
    return is_club_admin(user, club)


def can_delete_club(user: User | None, club: Club) -> bool:
    """Only the owner deletes the club."""
    return is_owner(user, club)


def can_decide_join_request(user: User | None, join_request: JoinRequest) -> bool:
    """The club's owner and admins accept or decline join requests."""
    return is_club_admin(user, join_request.club)


def can_cancel_join_request(user: User | None, join_request: JoinRequest) -> bool:
    """Only the requester cancels their own request."""
    return user is not None and user.is_authenticated and join_request.user_id == user.pk


def can_manage_invitations(user: User | None, club: Club) -> bool:
    """The club's owner and admins create, list and revoke invitation links."""
    return is_club_admin(user, club)


def can_revoke_invitation(user: User | None, invitation: Invitation) -> bool:
    """The club's owner and admins revoke an invitation link."""
    return is_club_admin(user, invitation.club)


def can_remove_member(user: User | None, membership: Membership) -> bool:
    """The owner removes admins and members; admins remove plain members; nobody the owner.

    Leaving one's own club is ``leave_club``, not removal.
    """
    if user is None or membership.user_id == user.pk or membership.role == Role.OWNER:
        return False
    actor_role = _role(user, membership.club)
    if actor_role == Role.OWNER:
        return True
    return actor_role == Role.ADMIN and membership.role == Role.MEMBER


def can_change_role(user: User | None, membership: Membership, new_role: str) -> bool:
    """Only the owner promotes members to admin or demotes admins (ownership is transferred)."""
    if user is None or membership.role == Role.OWNER or new_role == Role.OWNER:
        return False
    return is_owner(user, membership.club)


def can_transfer_ownership(user: User | None, club: Club) -> bool:
    """Only the owner hands the club to another member."""
    return is_owner(user, club)
