"""Who is connected to a match, and auto-play (托管): a seat whose person has no live
connection left, or whose clock ran out twice in a row, is played by the heuristic bot until
the person is back."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from matches import broadcast, schedule, store
from matches.models import Match, MatchStatus, Presence
from matches.services.play import plan_deadline


def set_autoplay(match_id: int, seat: int, reason: str) -> bool:
    """Put ``seat`` on auto-play (``reason`` "timeout"/"disconnect") or take it off (""),
    re-planning the deadline if it is that seat's turn. Returns True if anything changed."""
    with store.writing():
        match = (
            Match.objects.select_for_update().select_related("table").filter(pk=match_id).first()
        )
        if match is None or match.status != MatchStatus.PLAYING:
            return False
        if not 0 <= seat < len(match.seats) or match.seats[seat].get("bot"):
            return False
        if match.autoplay[seat] == reason:
            return False
        if reason == "" and match.autoplay[seat] == "timeout":
            pass  # a person takes back their seat explicitly
        autoplay = list(match.autoplay)
        autoplay[seat] = reason
        match.autoplay = autoplay
        fields: dict[str, Any] = {"autoplay": autoplay, "revision": match.revision + 1}
        if reason == "":
            timeouts = list(match.timeouts)
            timeouts[seat] = 0
            fields["timeouts"] = timeouts
        if match.to_move == seat:
            engine = store.engine_of(match)
            plan_deadline(match, engine, match.table, timezone.now())
            store.keep_engine(match.pk, match.version, engine)
            fields.update(deadline=match.deadline, deadline_version=match.deadline_version)
        Match.objects.filter(pk=match.pk).update(**fields)
        version = match.version

        def notify() -> None:
            broadcast.seats_changed(match_id)
            fresh = Match.objects.filter(pk=match_id).first()
            if fresh and fresh.deadline is not None and fresh.deadline_version == version:
                delay = max(0.0, (fresh.deadline - timezone.now()).total_seconds())
                schedule.schedule_deadline(match_id, version, delay)

        transaction.on_commit(notify)
    return True


#: A live connection confirms itself (:func:`heartbeat`) this often (seconds)...
PRESENCE_HEARTBEAT = 60.0
#: ...and a presence row not confirmed for this long is a leftover of a crashed server.
PRESENCE_TTL = timedelta(seconds=3 * PRESENCE_HEARTBEAT)


def connected(
    match_id: int, seat: int | None, channel_name: str, autoplay: list[str] | None = None
) -> None:
    """Record a live connection (one statement: an insert, or the update of the channel's row);
    a seat back from a disconnect leaves auto-play. ``autoplay``: the match's, if the caller
    just read it."""
    Presence.objects.bulk_create(
        [Presence(match_id=match_id, seat=seat, channel_name=channel_name)],
        update_conflicts=True,
        unique_fields=["channel_name"],
        update_fields=["match", "seat", "connected_at"],
    )
    if seat is not None:
        if autoplay is None:
            autoplay = Match.objects.filter(pk=match_id).values_list("autoplay", flat=True).first()
        if autoplay and 0 <= seat < len(autoplay) and autoplay[seat] == "disconnect":
            set_autoplay(match_id, seat, "")


def heartbeat(channel_name: str) -> None:
    """Confirm that a connection is alive (its presence row's ``connected_at`` is now)."""
    Presence.objects.filter(channel_name=channel_name).update(connected_at=timezone.now())


def disconnected(channel_name: str) -> None:
    """Forget a connection; a seat with no live connection left goes on auto-play (托管).

    Rows not confirmed by a :func:`heartbeat` within :data:`PRESENCE_TTL` (left behind by a
    server that crashed) do not count as live and are removed."""
    presence = Presence.objects.filter(channel_name=channel_name).first()
    if presence is None:
        return
    presence.delete()
    seat = presence.seat
    if seat is None:
        return
    alive_since = timezone.now() - PRESENCE_TTL
    Presence.objects.filter(match_id=presence.match_id, connected_at__lt=alive_since).delete()
    if Presence.objects.filter(match_id=presence.match_id, seat=seat).exists():
        return
    autoplay = Match.objects.filter(pk=presence.match_id).values_list("autoplay", flat=True).first()
    if autoplay and 0 <= seat < len(autoplay) and not autoplay[seat]:
        set_autoplay(presence.match_id, seat, "disconnect")
