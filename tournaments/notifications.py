"""What tournaments tell their players: on-site notices (check-in is open, a round has
started, a no-show forfeit, an entry withdrawn or reinstated) and the e-mails, each in the
player's own language. E-mails go through the outbox (:mod:`outbox.services`), written in the
caller's transaction, one per recipient and cause."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from clubs.models import User
from outbox import services as outbox
from tournaments.models import Entry, EntryStatus, Game, Round, Tournament, TournamentNotice
from tournaments.windows import checkin_open


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
    """An absolute link for e-mails: ``settings.SITE_URL`` (scheme, host and port) + ``path``."""
    return settings.SITE_URL.rstrip("/") + path


def game_link(tournament: Tournament, game: Game) -> str:
    """Where a player plays ``game``: its live table, else the round's pairings page."""
    if game.table_id:
        return reverse("matches:table", args=[game.table_id])
    return reverse("ladder:tournament_round", args=[tournament.pk, game.round.number])


def _tablemates(
    tournament: Tournament, game: Game, entries: dict[int, Entry]
) -> list[tuple[User, list[User], list[User]]]:
    """Each player of the game with their partners and opponents (a per-seat game, where
    partners change every deal: everyone else at the table, as opponents)."""
    if tournament.per_seat and not game.is_bye:
        players = [u for e in game.seat_entries for u in _users(entries[e])]
        return [(p, [], [o for o in players if o.pk != p.pk]) for p in players]
    sides = [[u for e in side for u in _users(entries[e])] for side in game.sides]
    return [
        (p, [q for q in side if q.pk != p.pk], sides[1 - i])
        for i, side in enumerate(sides)
        for p in side
    ]


def _users(entry: Entry) -> list[User]:
    return [entry.player1] + ([entry.player2] if entry.player2_id else [])


def notify_round(rnd: Round) -> int:
    """Tell every player of a started round where they play, in the caller's transaction: an
    on-site notice and an e-mail (through the outbox, key ``round:<round>:user:<user>``) naming
    the table, partner, opponents and time, with a link to the table on ``SITE_URL``. Returns the
    number of e-mails queued; a round whose notices exist is not notified again."""
    tournament = rnd.tournament
    marker = reverse("ladder:tournament", args=[tournament.pk]) + f"#round-{rnd.number}"
    if TournamentNotice.objects.filter(tournament=tournament, url=marker).exists():
        return 0
    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    queued = 0
    notices = []
    for game in rnd.games.select_related("round").order_by("number"):
        for person, partners, opponents in _tablemates(tournament, game, entries):
            context = {
                "user": person,
                "tournament": tournament,
                "round": rnd,
                "game": game,
                "bye": game.is_bye,
                "partners": ", ".join(p.name for p in partners),
                "opponents": ", ".join(p.name for p in opponents),
                "when": rnd.started_at or rnd.scheduled_at,
                "link": site_url(game_link(tournament, game)),
            }
            with translation.override(person.language or settings.LANGUAGE_CODE):
                text = _round_text(context)
            notices.append(
                TournamentNotice(tournament=tournament, user=person, text=text[:300], url=marker)
            )
            message = outbox.email_user(
                key=f"round:{rnd.pk}:user:{person.pk}",
                user=person,
                template="tournaments/email/round",
                context=context,
            )
            queued += message is not None
    TournamentNotice.objects.bulk_create(notices)
    return queued


def _round_text(context: dict) -> str:
    values = {"t": context["tournament"].name, "n": context["round"].number}
    if context["bye"]:
        return _("%(t)s, round %(n)d: you have a bye.") % values
    text = _("%(t)s, round %(n)d has started: table %(table)d.") % {
        **values,
        "table": context["game"].number,
    }
    if context["partners"]:
        text += " " + _("Partner: %(names)s.") % {"names": context["partners"]}
    if context["opponents"]:
        text += " " + _("Opponents: %(names)s.") % {"names": context["opponents"]}
    return text


def notify_withdrawn(tournament: Tournament, entries: Sequence[Entry]) -> int:
    """Tell the players of entries withdrawn for not checking in (a notice and an e-mail, key
    ``checkin:<tournament>:entry:<entry>:user:<user>``), with how to ask for reinstatement.
    Returns the number of e-mails queued."""
    url = reverse("ladder:tournament", args=[tournament.pk])
    queued = 0
    for entry in entries:
        for person in _users(entry):
            with translation.override(person.language or settings.LANGUAGE_CODE):
                text = _(
                    "%(t)s: you did not check in before round 1 and are withdrawn. "
                    "An organiser can reinstate you."
                ) % {"t": tournament.name}
            notify_users(tournament, [person.pk], text, url)
            message = outbox.email_user(
                key=f"checkin:{tournament.pk}:entry:{entry.pk}:user:{person.pk}",
                user=person,
                template="tournaments/email/notice",
                context={"user": person, "text": text, "link": site_url(url)},
            )
            queued += message is not None
    return queued
