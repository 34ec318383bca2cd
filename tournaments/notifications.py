"""What tournaments tell their players: on-site notices (check-in is open, a round has
started, a no-show forfeit) and the round emails, each in the player's own language."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from clubs.models import User
from tournaments.models import EntryStatus, Round, Tournament, TournamentNotice
from tournaments.windows import checkin_open

log = logging.getLogger(__name__)


def notify_users(tournament: Tournament, user_ids: Sequence[int], text: str, url: str = "") -> None:
    """Leave the same on-site notice (cut to 300 characters) to each user, once each."""
    TournamentNotice.objects.bulk_create(
        TournamentNotice(tournament=tournament, user_id=uid, text=text[:300], url=url)
        for uid in dict.fromkeys(user_ids)
    )


def notify_checkin(tournament: Tournament, now: datetime) -> bool:
    """Once check-in opens, tell each registered player (on the site) that it is open."""
    if not tournament.checkin_required or not checkin_open(tournament, now):
        return False
    url = reverse("ladder:tournament", args=[tournament.pk]) + "#check-in"
    if TournamentNotice.objects.filter(tournament=tournament, url=url).exists():
        return False
    ids = [u for e in tournament.entries.filter(status=EntryStatus.REGISTERED) for u in e.user_ids]
    notices = []
    for person in User.objects.filter(pk__in=ids):
        with translation.override(person.language or settings.LANGUAGE_CODE):
            text = _("%(t)s: check-in is open until round 1 starts.") % {"t": tournament.name}
        notices.append(TournamentNotice(tournament=tournament, user=person, text=text, url=url))
    TournamentNotice.objects.bulk_create(notices)
    return bool(notices)


def site_url(path: str) -> str:
    """An absolute link for emails: the first configured host (``ALLOWED_HOSTS``), https
    unless in DEBUG; the bare path when no host is configured."""
    hosts = [h.lstrip(".") for h in settings.ALLOWED_HOSTS if h not in ("*", "")]
    if not hosts:
        return path
    scheme = "http" if settings.DEBUG else "https"
    return f"{scheme}://{hosts[0]}{path}"


def notify_round(round_id: int) -> int:
    """Tell every player of a started round where they play: an on-site notice and an email
    in their own language. Returns the number of emails sent (safe to run twice: it sends
    nothing for a round whose notices exist)."""
    rnd = Round.objects.select_related("tournament").filter(pk=round_id).first()
    if rnd is None:
        return 0
    tournament = rnd.tournament
    url = reverse("ladder:tournament", args=[tournament.pk])
    marker = f"#round-{rnd.number}"
    if TournamentNotice.objects.filter(tournament=tournament, url=url + marker).exists():
        return 0
    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    sent = 0
    notices = []
    for game in rnd.games.order_by("number"):
        people = [entries[e].player1 for side in game.sides for e in side] + [
            entries[e].player2 for side in game.sides for e in side if entries[e].player2_id
        ]
        for person in people:
            with translation.override(person.language or settings.LANGUAGE_CODE):
                if game.is_bye:
                    text = _("%(t)s, round %(n)d: you have a bye.") % {
                        "t": tournament.name,
                        "n": rnd.number,
                    }
                else:
                    text = _("%(t)s, round %(n)d has started: table %(table)d.") % {
                        "t": tournament.name,
                        "n": rnd.number,
                        "table": game.number,
                    }
            notices.append(
                TournamentNotice(tournament=tournament, user=person, text=text, url=url + marker)
            )
            if person.email:
                try:
                    body = f"{text}\n\n{site_url(url + marker)}\n"
                    send_mail(text, body, settings.DEFAULT_FROM_EMAIL, [person.email])
                    sent += 1
                except Exception:  # an unreachable mail server must not stop the round
                    log.exception("round email to %s failed", person.pk)
    TournamentNotice.objects.bulk_create(notices)
    return sent
