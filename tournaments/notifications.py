"""What tournaments tell their players: on-site notices (check-in is open, a round has
started, a no-show forfeit, an entry withdrawn or reinstated, a partner invitation and its
answer, a registration, the final standings) and the e-mails, each in the player's own
language. E-mails go through the outbox (:mod:`outbox.services`), written in the caller's
transaction, one per recipient and cause; each notice is also in the player's notification
list (:mod:`outbox.notices`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _

from clubs.models import User
from outbox import notices
from outbox import services as outbox
from outbox.models import Kind
from tournaments.models import (
    ClubTeam,
    Entry,
    EntryStatus,
    Game,
    Round,
    Tournament,
    TournamentNotice,
)
from tournaments.windows import checkin_open


def notify_users(
    tournament: Tournament,
    user_ids: Sequence[int],
    text: Callable[[], str],
    url: str = "",
    key: str = "",
) -> None:
    """Leave the same on-site notice (cut to 300 characters) to each user, once each, as
    ``text()`` says it in that user's language; with a cause ``key``, also in each user's
    notification list (key ``<key>:user:<user>``)."""
    people = list(User.objects.filter(pk__in=set(user_ids)))
    said = {}
    for person in people:
        with translation.override(person.language or settings.LANGUAGE_CODE):
            said[person.pk] = text()
    TournamentNotice.objects.bulk_create(
        TournamentNotice(tournament=tournament, user=person, text=said[person.pk][:300], url=url)
        for person in people
    )
    if key:
        for person in people:
            notices.record(
                user=person,
                key=f"{key}:user:{person.pk}",
                kind=Kind.TOURNAMENTS,
                text=said[person.pk],
                url=url,
            )


def notify_checkin(tournament: Tournament, now: datetime) -> bool:
    """Once check-in opens, tell each registered player (on the site) that it is open."""
    if not tournament.checkin_required or not checkin_open(tournament, now):
        return False
    url = reverse("tournaments:detail", args=[tournament.pk]) + "#check-in"
    if TournamentNotice.objects.filter(tournament=tournament, url=url).exists():
        return False
    ids = [u for e in tournament.entries.filter(status=EntryStatus.REGISTERED) for u in e.user_ids]
    said = []
    for person in User.objects.filter(pk__in=ids):
        with translation.override(person.language or settings.LANGUAGE_CODE):
            text = _("%(t)s: check-in is open until round 1 starts.") % {"t": tournament.name}
        said.append(TournamentNotice(tournament=tournament, user=person, text=text, url=url))
        notices.record(
            user=person,
            key=f"checkin-open:{tournament.pk}:user:{person.pk}",
            kind=Kind.TOURNAMENTS,
            text=text,
            url=url,
        )
    TournamentNotice.objects.bulk_create(said)
    return bool(said)


def game_link(tournament: Tournament, game: Game) -> str:
    """Where a player plays ``game``: its live table, else the round's pairings page."""
    if game.table_id:
        return reverse("matches:table", args=[game.table_id])
    return reverse("tournaments:round", args=[tournament.pk, game.round.number])


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
    marker = reverse("tournaments:detail", args=[tournament.pk]) + f"#round-{rnd.number}"
    if TournamentNotice.objects.filter(tournament=tournament, url=marker).exists():
        return 0
    entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
    queued = 0
    said = []
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
                "link": outbox.site_url(game_link(tournament, game)),
            }
            with translation.override(person.language or settings.LANGUAGE_CODE):
                text = _round_text(context)
            said.append(
                TournamentNotice(tournament=tournament, user=person, text=text[:300], url=marker)
            )
            message = outbox.email_user(
                key=f"round:{rnd.pk}:user:{person.pk}",
                user=person,
                template="tournaments/email/round",
                context=context,
                kind=Kind.TOURNAMENTS,
                url=game_link(tournament, game),
                notice=text,
            )
            queued += message is not None
    TournamentNotice.objects.bulk_create(said)
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


def _tell(
    tournament: Tournament, person: User, key: str, text: Callable[[], str], url: str
) -> bool:
    """One notice and one e-mail (outbox key ``key``) to ``person``, the text written in
    their language (hence the callable), linking ``url`` (on ``SITE_URL`` in the e-mail).
    Returns whether an e-mail was queued."""
    with translation.override(person.language or settings.LANGUAGE_CODE):
        said = text()
    TournamentNotice.objects.create(tournament=tournament, user=person, text=said[:300], url=url)
    message = outbox.email_user(
        key=key,
        user=person,
        template="tournaments/email/notice",
        context={"user": person, "text": said, "link": outbox.site_url(url)},
        kind=Kind.TOURNAMENTS,
        url=url,
        notice=said,
    )
    return message is not None


def notify_withdrawn(tournament: Tournament, entries: Sequence[Entry]) -> int:
    """Tell the players of entries withdrawn for not checking in (a notice and an e-mail, key
    ``checkin:<tournament>:entry:<entry>:user:<user>``), with how to ask for reinstatement.
    Returns the number of e-mails queued."""
    url = reverse("tournaments:detail", args=[tournament.pk])
    queued = 0
    for entry in entries:
        for person in _users(entry):
            queued += _tell(
                tournament,
                person,
                f"checkin:{tournament.pk}:entry:{entry.pk}:user:{person.pk}",
                lambda: (
                    _(
                        "%(t)s: you did not check in before round 1 and are withdrawn. "
                        "An organiser can reinstate you."
                    )
                    % {"t": tournament.name}
                ),
                url,
            )
    return queued


def _tell_once(
    tournament: Tournament, person: User, key: str, text: Callable[[], str], url: str
) -> bool:
    """Like :func:`_tell`, but only the first time ``key`` is used
    (:func:`outbox.services.tell_user_once`): a cause told before writes nothing, neither the
    on-site notice nor the e-mail. Returns whether this call told ``person``."""
    with translation.override(person.language or settings.LANGUAGE_CODE):
        said = text()
    rendered = outbox.render(
        "tournaments/email/notice",
        {"user": person, "text": said, "link": outbox.site_url(url)},
        language=person.language,
    )
    if not notices.record_first(user=person, key=key, kind=Kind.TOURNAMENTS, text=said, url=url):
        return False
    TournamentNotice.objects.create(tournament=tournament, user=person, text=said[:300], url=url)
    outbox.tell_user(key=key, user=person, kind=Kind.TOURNAMENTS, rendered=rendered, url=url)
    return True


def _tell_entries(
    tournament: Tournament,
    entries: Sequence[Entry],
    key: Callable[[Entry, User], str],
    text: Callable[[Entry], str],
    url: str,
) -> int:
    """:func:`_tell_once` each player of each of ``entries`` (``key`` and ``text`` per entry
    and player); returns how many were told now."""
    told = 0
    for entry in entries:
        for person in _users(entry):
            told += _tell_once(tournament, person, key(entry, person), partial(text, entry), url)
    return told


def notify_qualified(stage: Tournament, earlier: Tournament, entries: Sequence[Entry]) -> int:
    """Tell each player of the ``entries`` of a next stage just made from ``earlier``'s
    ranking that they go through, with their seed (a notice and an e-mail under their
    preferences, key ``qualified:<stage>:entry:<entry>:user:<user>``: exactly once, however
    often it is asked). Returns how many players were told now."""
    return _tell_entries(
        stage,
        entries,
        lambda entry, person: f"qualified:{stage.pk}:entry:{entry.pk}:user:{person.pk}",
        lambda entry: (
            _(
                "%(entry)s goes through from %(t)s to the next stage, %(stage)s, "
                "seeded %(seed)d. It starts at %(when)s."
            )
            % {
                "entry": entry.name,
                "t": earlier.name,
                "stage": stage.name,
                "seed": entry.seed,
                "when": date_format(localtime(stage.starts_at), "SHORT_DATETIME_FORMAT"),
            }
        ),
        reverse("tournaments:detail", args=[stage.pk]),
    )


def notify_series_game(tournament: Tournament, game: Game) -> int:
    """Tell the players of a knockout tie of several games (第三十条) that its next game
    ``game`` is ready, where (a notice and an e-mail under their preferences, key
    ``series-game:<game>:user:<user>``: exactly once). In a knockout of one game a tie, the
    same for a game of a round being played that a corrected result gave its entries
    (:func:`tournaments.services.results.rebracket`). Returns how many players were told."""
    entries = {
        e.pk: e
        for e in Entry.objects.filter(pk__in=game.side0 + game.side1).select_related(
            "player1", "player2"
        )
    }
    url = game_link(tournament, game)
    number = (
        1
        + Game.objects.filter(
            round_id=game.round_id,
            slot=game.slot,
            third_place=game.third_place,
            number__lt=game.number,
        ).count()
    )
    told = 0
    for side in (game.side0, game.side1):
        for entry_id in side:
            for person in _users(entries[entry_id]):
                told += _tell_once(
                    tournament,
                    person,
                    f"series-game:{game.pk}:user:{person.pk}",
                    lambda: (
                        _("%(t)s, round %(n)d: game %(g)d of your tie is ready at table %(table)d.")
                        % {
                            "t": tournament.name,
                            "n": game.round.number,
                            "g": number,
                            "table": game.number,
                        }
                        if tournament.series
                        else _("%(t)s, round %(n)d: your game is ready at table %(table)d.")
                        % {"t": tournament.name, "n": game.round.number, "table": game.number}
                    ),
                    url,
                )
    return told


def notify_cut(
    tournament: Tournament, after_round: int, keep: int, entries: Sequence[Entry]
) -> int:
    """Tell each player of the ``entries`` put out by the low-position cut after round
    ``after_round`` (第二十九条) that they no longer play, and that they keep their place
    below those who play on (a notice and an e-mail under their preferences, key
    ``cut:<tournament>:<round>:entry:<entry>:user:<user>``: exactly once). Returns how many
    players were told now."""
    return _tell_entries(
        tournament,
        entries,
        lambda entry, person: (
            f"cut:{tournament.pk}:{after_round}:entry:{entry.pk}:user:{person.pk}"
        ),
        lambda entry: (
            _(
                "%(t)s: after round %(n)d only the best %(keep)d play on "
                "(low-position elimination). %(entry)s is out and keeps its place in "
                "the standings."
            )
            % {"t": tournament.name, "n": after_round, "keep": keep, "entry": entry.name}
        ),
        reverse("tournaments:standings", args=[tournament.pk]),
    )


def entry_url(tournament: Tournament) -> str:
    """The tournament page's section where a player answers an invitation or checks in."""
    return reverse("tournaments:detail", args=[tournament.pk]) + "#my-entry"


def notify_invited(entry: Entry) -> bool:
    """Ask the named partner of a pending entry to accept or decline by ``entry.answer_by``
    (a notice and an e-mail, key ``partner:<entry>:invited:user:<partner>``)."""
    tournament, partner = entry.tournament, entry.player2
    return _tell(
        tournament,
        partner,
        f"partner:{entry.pk}:invited:user:{partner.pk}",
        lambda: (
            _(
                "%(name)s has registered you as their partner for %(t)s. "
                "Accept or decline by %(when)s."
            )
            % {
                "name": entry.player1.name,
                "t": tournament.name,
                "when": date_format(localtime(entry.answer_by), "SHORT_DATETIME_FORMAT"),
            }
        ),
        entry_url(tournament),
    )


def notify_accepted(entry: Entry) -> bool:
    """Tell the player who registered a pair that the partner accepted (key
    ``partner:<entry>:accepted:user:<player>``)."""
    tournament, player = entry.tournament, entry.player1
    return _tell(
        tournament,
        player,
        f"partner:{entry.pk}:accepted:user:{player.pk}",
        lambda: (
            _("%(name)s has accepted: you are registered for %(t)s as a pair.")
            % {"name": entry.player2.name, "t": tournament.name}
        ),
        entry_url(tournament),
    )


def notify_invitation_closed(entry: Entry, why: str, actor: User | None = None) -> int:
    """Tell the players of a pending entry, but ``actor``, that its invitation is over:
    ``declined`` by the partner, ``withdrawn`` (by a player or an organiser) or ``lapsed``;
    each may register again, with anyone. Keys ``partner:<entry>:<why>:user:<user>``."""
    tournament = entry.tournament
    texts = {
        "declined": lambda: (
            _("%(name)s has declined to play %(t)s with you. You can register again.")
            % {"name": entry.player2.name, "t": tournament.name}
        ),
        "withdrawn": lambda: (
            _("The partner invitation of %(pair)s for %(t)s is withdrawn. You can register again.")
            % {"pair": entry.name, "t": tournament.name}
        ),
        "lapsed": lambda: (
            _("%(t)s: the partner invitation lapsed without an answer. You can register again.")
            % {"t": tournament.name}
        ),
    }
    url = reverse("tournaments:detail", args=[tournament.pk])
    return sum(
        _tell(tournament, person, f"partner:{entry.pk}:{why}:user:{person.pk}", texts[why], url)
        for person in _users(entry)
        if actor is None or person.pk != actor.pk
    )


def notify_registered(entry: Entry, people: Sequence[User] | None = None) -> int:
    """Confirm a registration to each player of ``entry`` (or to ``people`` of it: e.g. the
    partner who accepted), as a notice and an e-mail (key ``registered:<entry>:user:<user>``).
    Returns the number of e-mails queued."""
    tournament = entry.tournament
    when = date_format(localtime(tournament.starts_at), "SHORT_DATETIME_FORMAT")
    return sum(
        _tell(
            tournament,
            person,
            f"registered:{entry.pk}:user:{person.pk}",
            lambda: (
                _("You are registered for %(t)s as %(entry)s. It starts at %(when)s.")
                % {"t": tournament.name, "entry": entry.name, "when": when}
            ),
            entry_url(tournament),
        )
        for person in (people if people is not None else _users(entry))
    )


#: How many places of the final standings an e-mail lists (each player also sees their own).
FINAL_PLACES = 10


def notify_final_standings(tournament: Tournament, lines: Sequence[Any]) -> int:
    """Send every entrant of a finished tournament the final standings ``lines`` (the
    ``StandingLine`` list of :func:`tournaments.selectors.standings`): the first places and
    each player's own, as a notice and an e-mail (key ``final:<tournament>:user:<user>``) with
    a link to the standings on ``SITE_URL``. An entry withdrawn before its first game is told
    nothing; a tournament reopened by a correction and finished again is not told again.
    Returns the number of e-mails queued."""
    if notices.has_notices(f"final:{tournament.pk}:"):
        return 0
    path = reverse("tournaments:standings", args=[tournament.pk])
    # withdrawn before playing (e.g. not checked in): not an entrant
    entrants = [
        line for line in lines if line.entry.status != EntryStatus.WITHDRAWN or line.row.played
    ]
    queued = 0
    for line in entrants:
        place = line.row.place
        for person in _users(line.entry):
            with translation.override(person.language or settings.LANGUAGE_CODE):
                text = _("%(t)s has ended: you placed %(place)d of %(n)d.") % {
                    "t": tournament.name,
                    "place": place,
                    "n": len(entrants),
                }
            TournamentNotice.objects.create(
                tournament=tournament, user=person, text=text[:300], url=path
            )
            message = outbox.email_user(
                key=f"final:{tournament.pk}:user:{person.pk}",
                user=person,
                template="tournaments/email/final",
                context={
                    "user": person,
                    "tournament": tournament,
                    "text": text,
                    "top": entrants[:FINAL_PLACES],
                    "link": outbox.site_url(path),
                },
                kind=Kind.TOURNAMENTS,
                url=path,
                notice=text,
            )
            queued += message is not None
    return queued


def notify_waiting(entry: Entry) -> int:
    """Tell each player of an entry over the cap that it is on the waiting list (a notice and
    an e-mail, key ``waiting:<entry>:user:<user>``). Returns the number of e-mails queued."""
    tournament = entry.tournament
    return sum(
        _tell(
            tournament,
            person,
            f"waiting:{entry.pk}:user:{person.pk}",
            lambda: (
                _(
                    "%(t)s is full: %(entry)s is on the waiting list and moves up if a place "
                    "is freed before the start."
                )
                % {"t": tournament.name, "entry": entry.name}
            ),
            entry_url(tournament),
        )
        for person in _users(entry)
    )


def notify_moved_up(entry: Entry) -> int:
    """Tell each player of a waiting entry that moved up that it now takes part (a notice and
    an e-mail, key ``moved-up:<entry>:user:<user>``: the outbox writes it once). Returns the
    number of e-mails queued."""
    tournament = entry.tournament
    when = date_format(localtime(tournament.starts_at), "SHORT_DATETIME_FORMAT")
    return sum(
        _tell(
            tournament,
            person,
            f"moved-up:{entry.pk}:user:{person.pk}",
            lambda: (
                _(
                    "A place was freed in %(t)s: %(entry)s moves up from the waiting list and "
                    "takes part. It starts at %(when)s."
                )
                % {"t": tournament.name, "entry": entry.name, "when": when}
            ),
            entry_url(tournament),
        )
        for person in _users(entry)
    )


def team_url(team: ClubTeam) -> str:
    """A team's line on its tournament's clubs and teams page."""
    return reverse("tournaments:teams", args=[team.tournament_id]) + f"#team-{team.pk}"


def notify_captain(team: ClubTeam, by: User) -> bool:
    """Tell a team's captain who does not play in it that an organiser (``by``) entered the
    team with them as its captain (a notice and an e-mail, key
    ``captain:<team>:user:<captain>``)."""
    captain = team.captain
    return _tell(
        team.tournament,
        captain,
        f"captain:{team.pk}:user:{captain.pk}",
        lambda: (
            _("%(name)s entered the team %(team)s in %(t)s with you as its captain.")
            % {"name": by.name, "team": team.name, "t": team.tournament.name}
        ),
        team_url(team),
    )


def notify_roster_change(
    team: ClubTeam, number: int, left: Sequence[User], joined: Sequence[User]
) -> int:
    """Tell the members who left ``team`` and those who joined it in its roster change
    ``number`` (a notice and an e-mail each under their preferences, keys
    ``roster:<team>:<number>:left|joined:user:<user>``: exactly once). Returns how many were
    told now."""
    tournament = team.tournament
    url = team_url(team)
    when = date_format(localtime(tournament.starts_at), "SHORT_DATETIME_FORMAT")
    told = 0
    for person in left:
        told += _tell_once(
            tournament,
            person,
            f"roster:{team.pk}:{number}:left:user:{person.pk}",
            lambda: (
                _("%(t)s: you are no longer in the team %(team)s (its roster was changed).")
                % {"t": tournament.name, "team": team.name}
            ),
            url,
        )
    for person in joined:
        told += _tell_once(
            tournament,
            person,
            f"roster:{team.pk}:{number}:joined:user:{person.pk}",
            lambda: (
                _("%(t)s: you are now in the team %(team)s. It starts at %(when)s.")
                % {"t": tournament.name, "team": team.name, "when": when}
            ),
            url,
        )
    return told
