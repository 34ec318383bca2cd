"""Who may do what with a score sheet: used by the services, the web pages and the API alike."""

from __future__ import annotations

from clubs import permissions as club_permissions
from clubs import selectors as club_selectors
from clubs.models import Club, User
from sheets.models import ScoreSheet


def side_of_seat(variant: str, seat: int) -> int:
    """The side of a seat: partners sit opposite (seat % 2); in two-player Shuangkou each seat
    is its own side (0 or 1). Red Two's sides change every deal: there seat % 2 only labels
    a verdict, and every player confirms (:func:`sheets.services.confirm`)."""
    return seat % 2


def is_member(user: User | None, club: Club) -> bool:
    """Whether the user belongs to the club (any role)."""
    return club_selectors.membership_of(user, club) is not None


def can_start(user: User | None, club: Club) -> bool:
    """Any club member starts a score sheet for the club; they become its scorer."""
    return is_member(user, club)


def can_view(user: User | None, sheet: ScoreSheet) -> bool:
    """Club members and the sheet's players see a sheet."""
    if user is None or not user.is_authenticated:
        return False
    return is_member(user, sheet.club) or sheet.players.filter(user=user).exists()


def can_score(user: User | None, sheet: ScoreSheet) -> bool:
    """The scorer and the club's admins enter and undo deals."""
    if user is None or not user.is_authenticated:
        return False
    return sheet.scorer_id == user.pk or club_permissions.is_club_admin(user, sheet.club)


def user_side(user: User | None, sheet: ScoreSheet) -> int | None:
    """The side the user plays on in this sheet, or None."""
    if user is None or not user.is_authenticated:
        return None
    seat = sheet.players.filter(user=user).values_list("seat", flat=True).first()
    return None if seat is None else side_of_seat(sheet.variant, seat)


def is_admin(user: User | None, sheet: ScoreSheet) -> bool:
    """Whether the user is an owner or admin of the sheet's club."""
    return club_permissions.is_club_admin(user, sheet.club)


def can_confirm(user: User | None, sheet: ScoreSheet) -> bool:
    """A player of either side, or a club admin, confirms a finished sheet."""
    return user_side(user, sheet) is not None or is_admin(user, sheet)


def can_dispute(user: User | None, sheet: ScoreSheet) -> bool:
    """A player of either side, or a club admin, disputes a finished sheet."""
    return can_confirm(user, sheet)


def can_void(user: User | None, sheet: ScoreSheet) -> bool:
    """Only the club's admins void a sheet (e.g. after a dispute)."""
    return is_admin(user, sheet)
