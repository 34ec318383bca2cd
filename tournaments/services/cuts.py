"""Low-position elimination (积分编排赛 + 低位淘汰赛, 第二十九条): :func:`make_cut` puts out the
entries placed below the plan's ``keep`` once the round before the cut has finished. The plan
is checked in :mod:`tournaments.forms` (through :func:`tournaments.cuts.check_plan`); who is
kept is read by :func:`tournaments.selectors.cut_before`."""

from __future__ import annotations

from tournaments import notifications, selectors
from tournaments.models import Entry, Tournament


def make_cut(tournament: Tournament, number: int) -> list[int]:
    """Make the cut due before round ``number`` (the plan's cut after round ``number - 1``):
    every entry still playing ranked below its ``keep`` gets ``eliminated_after_round``. The
    caller holds the tournament's lock and knows that round ``number - 1`` has finished.
    Exactly once: a cut already made, or none planned there, changes nothing. The players of
    the entries put out are told (:func:`tournaments.notifications.notify_cut`, once). Returns
    the entries put out now."""
    outcome = selectors.cut_before(tournament, number)
    if outcome is None or not outcome.out:
        return []
    Entry.objects.filter(
        tournament=tournament, pk__in=outcome.out, eliminated_after_round__isnull=True
    ).update(eliminated_after_round=outcome.cut.after_round)
    out = Entry.objects.filter(pk__in=outcome.out).select_related("player1", "player2")
    notifications.notify_cut(tournament, outcome.cut.after_round, outcome.cut.keep, list(out))
    return outcome.out
