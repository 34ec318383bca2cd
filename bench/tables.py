"""Setting up bot tables for the load test and the end-to-end tests (``python -m bench.loadtest``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import transaction

from clubs.models import Club, Membership, Role, User
from games.variants import DEFAULT_GAME, game
from matches.models import Match
from matches.services import tables


def session_cookie(user: User) -> str:
    """A ``Cookie`` header value that logs ``user`` in (a new database session)."""
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return f"sessionid={store.session_key}"


def _user(name: str) -> User:
    user, created = User.objects.get_or_create(username=name, defaults={"display_name": name})
    if created:
        user.set_unusable_password()
        user.save()
    return user


def make_tables(
    count: int,
    *,
    variant: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
    clocks: bool = True,
    time_limit_seconds: int = 0,
    spectators: int = 0,
    prefix: str = "bench",
    bots: int = 0,
) -> list[dict[str, Any]]:
    """Open ``count`` tables of people (users ``<prefix>-<table>-<seat>``) in the club
    ``<prefix>``, the last ``bots`` seats of each table heuristic bots that the
    worker plays; each starts its match at once. Returns per table its id, match id, the
    people's seats and one session cookie per person (plus ``spectators`` spectator
    cookies)."""
    with transaction.atomic():
        owner = _user(f"{prefix}-owner")
        club = Club.objects.filter(slug=prefix).first()
        if club is None:
            club = Club.objects.create(name=prefix, slug=prefix)
            Membership.objects.create(club=club, user=owner, role=Role.OWNER)
    out = []
    base = Match.objects.count()
    for t in range(count):
        seats = game(variant).seats
        people = max(1, seats - bots)
        users = [_user(f"{prefix}-{base + t}-{s}") for s in range(people)]
        for user in users:
            Membership.objects.get_or_create(club=club, user=user)
        table = tables.open_table(
            users[0],
            club,
            variant=variant,
            options=options or {},
            clocks=clocks,
            time_limit_seconds=time_limit_seconds,
        )
        for s, user in enumerate(users[1:], start=1):
            tables.take_seat(user, table, s)
        for s in range(people, seats):
            tables.add_bot(users[0], table, s, "heuristic")
        watchers = [_user(f"{prefix}-{base + t}-w{k}") for k in range(spectators)]
        out.append(
            {
                "table": table.pk,
                "match": Match.objects.get(table=table).pk,
                "seats": list(range(people)),
                "cookies": [session_cookie(u) for u in users],
                "spectators": [session_cookie(u) for u in watchers],
            }
        )
    return out


def person_against_bots(
    *,
    variant: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
    time_limit_seconds: int = 0,
    bot: str = "heuristic",
    prefix: str = "solo",
) -> dict[str, Any]:
    """One person (seat 0) against bots at a new table (the browser test uses it): returns the
    table id and the person's session cookie value."""
    with transaction.atomic():
        person = _user(f"{prefix}-{Match.objects.count()}-person")
        club = Club.objects.filter(slug=prefix).first()
        if club is None:
            club = Club.objects.create(name=prefix, slug=prefix)
        Membership.objects.get_or_create(club=club, user=person)
    table = tables.open_table(
        person, club, variant=variant, options=options or {}, time_limit_seconds=time_limit_seconds
    )
    for seat in range(1, table.seat_count):
        tables.add_bot(person, table, seat, bot)
    return {"table": table.pk, "session": session_cookie(person).split("=", 1)[1]}


def last_deal(table_id: int) -> bool:
    """Run the match's time out now (the engine's ``time_up``): the deal in progress becomes
    its last, or the match ends at once if no one has acted yet. The browser tests use it to
    play exactly one deal however slowly the page loads. True if it was applied."""
    from django.utils import timezone

    from matches.services import clock

    match = Match.objects.get(table_id=table_id)
    Match.objects.filter(pk=match.pk).update(ends_at=timezone.now())
    return clock.apply_time_limit(match.pk)


def wind_up(table_ids: list[int]) -> int:
    """Run out the time of every match still playing at these tables (:func:`last_deal`), so
    that the deal in progress is its last. A browser test that closes its page leaves its
    seat on auto-play: on the run's shared stack such a table would otherwise be played on by
    the worker, deal after deal, to the end of the match, at the bots' pace and beside the
    tests that follow. Returns how many matches were wound up."""
    from matches.models import MatchStatus

    playing = Match.objects.filter(table_id__in=table_ids, status=MatchStatus.PLAYING)
    return sum(last_deal(table_id) for table_id in playing.values_list("table_id", flat=True))


def wind_up_all() -> int:
    """:func:`wind_up` every match still playing on this database (the browser tests call it
    on their stack when a module is over, nothing else running on it). Returns how many."""
    from matches.models import MatchStatus

    playing = Match.objects.filter(status=MatchStatus.PLAYING)
    return wind_up(list(playing.values_list("table_id", flat=True)))
