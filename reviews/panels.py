"""The review's section of the replay page (registered with ``matches.hooks`` by the app)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from reviews import services
from reviews.models import MatchReview, ReviewStatus
from reviews.words import decision_words, highlights


def seat_summaries(match: Any, review: MatchReview, user_id: int | None) -> list[dict[str, Any]]:
    """Per reviewed seat: its player's ``name``, whether it is the viewer's (``mine``; the
    viewer's seat comes first), decisions ``reviewed`` and ``agreed`` with the bot, and its
    three costliest moments (:func:`reviews.words.highlights`)."""
    out = []
    for seat_review in review.seats:
        seat = int(seat_review["seat"])
        info = match.seats[seat] if seat < len(match.seats) else {}
        decisions = seat_review.get("decisions") or []
        out.append(
            {
                "seat": seat,
                "name": info.get("name") or _("Seat %(n)s") % {"n": seat + 1},
                "mine": user_id is not None and info.get("user") == user_id,
                "reviewed": len(decisions),
                "agreed": sum(1 for d in decisions if d.get("same")),
                "highlights": highlights(seat_review),
            }
        )
    out.sort(key=lambda s: (not s["mine"], s["seat"]))
    return out


def review_summary(match: Any, user_id: int | None) -> dict[str, Any]:
    """What the replay page and the API say of ``match``'s review (the caller checked that the
    viewer may see the replay): ``status`` (``done``, ``running``, ``failed``, or ``off`` for
    a match that is not reviewed); when done, ``complete``, ``cpu_ms`` and every reviewed
    seat's summary (:func:`seat_summaries`), with the whole list of ``decisions`` only on the
    viewer's own seat (``mine``): the other seats' summaries and moments are public as the
    replay is, each player's full review their own."""
    review = MatchReview.objects.filter(match=match).first()
    if review is None:
        return {"status": "running" if services.wants_review(match) else "off"}
    if review.status != ReviewStatus.DONE:
        return {"status": str(review.status)}
    seats = seat_summaries(match, review, user_id)
    by_seat = {int(s["seat"]): s for s in review.seats}
    for seat in seats:
        decisions = by_seat[seat["seat"]].get("decisions") or []
        seat["decisions"] = [decision_words(d) for d in decisions] if seat["mine"] else None
    return {
        "status": "done",
        "complete": review.complete,
        "cpu_ms": review.cpu_ms,
        "seats": seats,
    }


def replay_panel(request: Any, table: Any, match: Any) -> dict[str, Any] | None:
    """The panel of ``match``'s replay (the replay view asks only once the viewer may see it):
    the review when done, a note while it runs; nothing for a match that is not reviewed.
    Always the share link."""
    if match is None:
        return None
    user = getattr(request, "user", None)
    user_id = user.pk if user is not None and user.is_authenticated else None
    summary = review_summary(match, user_id)
    panel: dict[str, Any] = {"template": "reviews/_replay_panel.html", "table": table}
    if summary["status"] == "done":
        panel["seats"] = summary["seats"]
        panel["complete"] = summary["complete"]
    elif summary["status"] == "failed":
        panel["failed"] = True
    elif summary["status"] == "running":
        panel["pending"] = True
    return panel
