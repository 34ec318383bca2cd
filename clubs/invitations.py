"""An event one club holds for others, the one rule of who takes part: **the host club plus
the clubs it invited**. Tournaments (``Tournament.invited_clubs``) and leagues
(``League.invited_clubs``, in an inter-club league) keep their own invitations on their own
models; both read them through this module, below both apps, so the rule is written once.
Pure queries: no role is checked here (the callers' services check who may invite, see or
enter)."""

from __future__ import annotations

from django.db.models import QuerySet

from clubs.models import Club


def takes_part(club: Club, host_id: int, invited: QuerySet[Club]) -> bool:
    """Whether ``club`` takes part in an event hosted by the club ``host_id`` that invited
    the clubs ``invited``: the host, or an invited club."""
    return club.pk == host_id or invited.filter(pk=club.pk).exists()


def taking_part(host: Club, invited: QuerySet[Club]) -> list[Club]:
    """The clubs taking part in an event of ``host`` that invited ``invited``: the host
    first, then the invited clubs by name."""
    return [host, *invited.exclude(pk=host.pk).order_by("name")]
