"""A club's admins tune their ladder on the web: how many rated matches a rating stays
provisional (shown with "?", moved with the larger K) and the established K. A change
rebuilds the ladder, so every rating is as if the new settings had always applied."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from ladder import services
from ladder.errors import LadderError
from ladder.models import Ladder

#: The bounds the web form and this service accept.
PROVISIONAL_RANGE = (1, 200)
K_RANGE = (1.0, 64.0)


@transaction.atomic
def update_ladder_settings(
    user: object, ladder: Ladder, *, provisional_matches: int, k_established: float
) -> Ladder:
    """Set ``ladder``'s provisional match count and established K, then queue its rebuild
    (after the commit). Refused (``forbidden``) unless the user may rebuild the ladder
    (its club's owner and admins, or staff); out-of-range values are refused
    (``bad_settings``) and change nothing."""
    if not services.can_rebuild(user, ladder):
        raise LadderError("forbidden", _("Only the club's owner and admins may change its ladder."))
    low, high = PROVISIONAL_RANGE
    k_low, k_high = K_RANGE
    if not (isinstance(provisional_matches, int) and low <= provisional_matches <= high):
        raise LadderError(
            "bad_settings",
            _("The provisional match count must be between %(low)d and %(high)d.")
            % {"low": low, "high": high},
        )
    if not (k_low <= float(k_established) <= k_high):
        raise LadderError(
            "bad_settings",
            _("K must be between %(low)d and %(high)d.") % {"low": k_low, "high": k_high},
        )
    ladder = Ladder.objects.select_for_update().get(pk=ladder.pk)
    changed = (ladder.provisional_matches, ladder.k_established) != (
        provisional_matches,
        float(k_established),
    )
    ladder.provisional_matches = provisional_matches
    ladder.k_established = float(k_established)
    ladder.save(update_fields=["provisional_matches", "k_established"])
    if changed:
        services.request_rebuild(user, ladder)
    return ladder
