"""What clubs (a layer below the outbox) have told by e-mail, through :mod:`clubs.hooks`."""

from __future__ import annotations

from django.urls import reverse

from clubs.models import JoinRequest, Role, User
from outbox.models import Kind
from outbox.services import email_user, site_url


def notify_join_request(join_request: JoinRequest) -> int:
    """Tell each owner and admin of the club of a new join request (a notice and an e-mail,
    key ``join-request:<request>:user:<admin>``) with a link to the club's manage page on
    ``SITE_URL``. Returns the number of e-mails queued."""
    club = join_request.club
    path = reverse("club_manage", args=[club.slug])
    admins = User.objects.filter(
        memberships__club=club, memberships__role__in=[Role.OWNER, Role.ADMIN]
    ).distinct()
    context = {"club": club, "join": join_request, "link": site_url(path)}
    return sum(
        email_user(
            key=f"join-request:{join_request.pk}:user:{admin.pk}",
            user=admin,
            template="outbox/email/join_request",
            context={**context, "user": admin},
            kind=Kind.CLUB,
            url=path,
        )
        is not None
        for admin in admins
    )
