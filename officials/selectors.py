"""Reads of the officials app that the services, views and API share: an event's panel and
officials, its appeals as a person may read them, the games and league tables a player may
appeal, and the people an announcement reaches."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _

from clubs.models import Club, User
from leagues.models import Division, FixtureStatus, FixtureTable, Season, SeasonStatus
from leagues.models import Entry as LeagueEntry
from officials.models import (
    Appeal,
    AppealStatus,
    FeeState,
    Official,
    OfficialRole,
    Panel,
    Verdict,
)
from officials.permissions import appellants, event_of, is_member, reads_every_appeal, seated_at
from tournaments.models import ACCEPTED_STATUSES, Game, GameStatus, Tournament


def panel_of(event: Tournament | Season) -> Panel | None:
    """The panel of ``event`` (None before anyone was appointed or anything filed)."""
    if isinstance(event, Tournament):
        return Panel.objects.filter(tournament=event).first()
    return Panel.objects.filter(season=event).first()


def event_name(panel: Panel) -> str:
    """The event's name as its pages show it (a season: league · season)."""
    event = event_of(panel)
    if isinstance(event, Tournament):
        return event.name
    return f"{event.league.name} · {event.name}"


def event_club(panel: Panel) -> Club:
    """The club that runs the event."""
    event = event_of(panel)
    return event.club if isinstance(event, Tournament) else event.league.host


def event_url(panel: Panel) -> str:
    """The event's own page."""
    event = event_of(panel)
    if isinstance(event, Tournament):
        return reverse("tournaments:detail", args=[event.pk])
    return reverse("leagues:season", args=[event.pk])


def officials_url(panel: Panel) -> str:
    """The event's officials page."""
    event = event_of(panel)
    if isinstance(event, Tournament):
        return reverse("officials:tournament", args=[event.pk])
    return reverse("officials:season", args=[event.pk])


@dataclass(frozen=True)
class Line:
    """An official as the page lists them: ``current`` False once they left the club."""

    official: Official
    current: bool


def officials_of(panel: Panel | None) -> list[Line]:
    """The appointed officials of ``panel``: the chief referee, the referees, the committee."""
    if panel is None:
        return []
    rows = Official.objects.filter(panel=panel).select_related("user")
    return [Line(row, is_member(row.user, panel)) for row in rows]


def committee(panel: Panel) -> list[User]:
    """The appeals committee as it stands now: appointed members still in the club."""
    rows = Official.objects.filter(panel=panel, role=OfficialRole.COMMITTEE).select_related("user")
    return [row.user for row in rows if is_member(row.user, panel)]


def referees(panel: Panel) -> list[User]:
    """The chief referee, deputies and referees who referee now (still in the club)."""
    rows = Official.objects.filter(
        panel=panel, role__in=(OfficialRole.CHIEF, OfficialRole.DEPUTY, OfficialRole.REFEREE)
    ).select_related("user")
    return [row.user for row in rows if is_member(row.user, panel)]


def deciders(panel: Panel) -> list[User]:
    """Who is told of a new appeal: the committee, the chief referee and deputies (第三十九条
    二.1: the chief referee — or a deputy, 第三十五条二 — may rule on the rules' questions),
    as they stand now."""
    rows = Official.objects.filter(
        panel=panel,
        role__in=(OfficialRole.CHIEF, OfficialRole.DEPUTY, OfficialRole.COMMITTEE),
    ).select_related("user")
    return [row.user for row in rows if is_member(row.user, panel)]


def appeal_url(appeal: Appeal) -> str:
    """The appeal's page."""
    return reverse("officials:appeal", args=[appeal.pk])


def appeals_for(user: User | None, panel: Panel | None) -> QuerySet[Appeal]:
    """The appeals of ``panel`` that ``user`` reads: every one for the organiser, the chief
    referee and the committee; those of their own games for a player."""
    if panel is None or user is None or not user.is_authenticated:
        return Appeal.objects.none()
    appeals = Appeal.objects.filter(panel=panel).select_related(
        "filed_by", "game__round", "table__fixture__round", "table__fixture__home"
    )
    if reads_every_appeal(user, panel):
        return appeals
    mine = [a.pk for a in appeals if user.pk in appellants(a)]
    return appeals.filter(pk__in=mine)


def appeal_deadline(panel: Panel | None, game: Game) -> datetime | None:
    """When the time to appeal ``game`` ends: the event's appeal minutes after its round
    finished (第三十九条 一.2: 30 minutes by default); None while the round plays."""
    finished = game.round.finished_at
    if finished is None:
        return None
    minutes = panel.appeal_minutes if panel is not None else Panel().appeal_minutes
    return finished + timedelta(minutes=minutes)


def escalation_deadline(appeal: Appeal) -> datetime:
    """Until when a player may take the chief referee's ruling on ``appeal`` to the committee:
    the event's appeal minutes after the ruling (第三十九条二.2)."""
    assert appeal.ruled_at is not None
    return appeal.ruled_at + timedelta(minutes=appeal.panel.appeal_minutes)


def appealable_games(user: User | None, tournament: Tournament, now: datetime) -> list[Game]:
    """The finished games of ``tournament`` that ``user`` played and may still appeal."""
    if user is None or not user.is_authenticated:
        return []
    mine = set(
        tournament.entries.filter(Q(player1_id=user.pk) | Q(player2_id=user.pk)).values_list(
            "pk", flat=True
        )
    )
    panel = panel_of(tournament)
    games = Game.objects.filter(round__tournament=tournament, status=GameStatus.FINISHED)
    found = []
    for game in games.select_related("round").order_by("round__number", "number"):
        if not mine & {*game.side0, *game.side1}:
            continue
        deadline = appeal_deadline(panel, game)
        if deadline is None or now <= deadline:
            found.append(game)
    return found


def table_deadline(panel: Panel | None, table: FixtureTable) -> datetime | None:
    """When the time to appeal a league ``table`` ends: the season's appeal minutes after its
    fixture finished (a league round has no common end: each fixture is played at its own
    agreed time); None while the fixture plays. A correction moves the fixture's end, so a
    corrected result may be appealed in its turn."""
    fixture = table.fixture
    if fixture.status != FixtureStatus.DONE or fixture.finished_at is None:
        return None
    minutes = panel.appeal_minutes if panel is not None else Panel().appeal_minutes
    return fixture.finished_at + timedelta(minutes=minutes)


def may_appeal_table(user: User | None, table: FixtureTable, now: datetime) -> bool:
    """Whether ``user`` sits at ``table``, whose result is in, and may still appeal it."""
    if user is None or not user.is_authenticated or user.pk not in seated_at(table):
        return False
    if not table.done:
        return False
    deadline = table_deadline(panel_of(table.fixture.round.season), table)
    return deadline is not None and now <= deadline


def appealable_tables(user: User | None, season: Season, now: datetime) -> list[FixtureTable]:
    """The tables of ``season``'s finished fixtures that ``user`` sat at and may still appeal."""
    if user is None or not user.is_authenticated:
        return []
    panel = panel_of(season)
    rows = FixtureTable.objects.filter(
        fixture__round__season=season, fixture__status=FixtureStatus.DONE, done=True
    ).select_related("fixture__round", "fixture__home", "fixture__away")
    found = []
    for table in rows.order_by("fixture__round__number", "fixture_id", "number"):
        if user.pk not in seated_at(table):
            continue
        deadline = table_deadline(panel, table)
        if deadline is not None and now <= deadline:
            found.append(table)
    return found


def table_label(table: FixtureTable) -> str:
    """``R2 · 南通一队 – 如皋一队 · T1`` for lists and e-mails."""
    fixture = table.fixture
    away = fixture.away.name if fixture.away is not None else "–"
    return f"R{fixture.round.number} · {fixture.home.name} – {away} · T{table.number}"


def entry_names(tournament: Tournament) -> dict[int, str]:
    """Each entry's name by id."""
    return {e.pk: e.name or str(e) for e in tournament.entries.all()}


def game_label(game: Game, names: dict[int, str]) -> str:
    """``R2 #3 · A + B : C + D`` for lists and e-mails."""
    sides = [" + ".join(names.get(e, "?") for e in side) for side in game.sides]
    return f"R{game.round.number} #{game.number} · {sides[0]} : {sides[1]}"


def divisions(panel: Panel) -> list[Division]:
    """A season's divisions (a tournament has none)."""
    event = event_of(panel)
    return list(event.divisions.all()) if isinstance(event, Season) else []


def teams(panel: Panel) -> list[tuple[str, str]]:
    """The teams an announcement may go to, as (value, label): a season's teams by id, a
    tournament's team labels."""
    event = event_of(panel)
    if isinstance(event, Season):
        return [(str(t.pk), t.name) for t in event.teams.all()]
    labels = (
        event.entries.exclude(team="").values_list("team", flat=True).distinct().order_by("team")
    )
    return [(label, label) for label in labels]


def recipients(panel: Panel, audience: str, target: str) -> list[User]:
    """The people an announcement to ``audience`` (``all``, ``division`` with a division id,
    ``team`` with a team id or label) reaches: the entrants' players (a season's team: its
    captain and roster), each once, in id order."""
    event = event_of(panel)
    ids: set[int] = set()
    if isinstance(event, Tournament):
        entries = event.entries.filter(status__in=ACCEPTED_STATUSES)
        if audience == "team":
            entries = entries.filter(team=target)
        for entry in entries:
            ids.update(entry.user_ids)
    else:
        league_entries = LeagueEntry.objects.filter(season=event, withdrawn_at__isnull=True)
        if audience == "division":
            league_entries = league_entries.filter(division_id=int(target))
        if audience == "team":
            league_entries = league_entries.filter(team_id=int(target))
        for row in league_entries.select_related("team"):
            ids.update(pk for pk in (row.player1_id, row.player2_id) if pk)
            if row.team is not None:
                ids.add(row.team.captain_id)
                ids.update(row.team.members.values_list("user_id", flat=True))
    return list(User.objects.filter(pk__in=ids).order_by("pk"))


def club_events(club: Club) -> tuple[list[Tournament], list[Season]]:
    """A club's events that officials may serve: its tournaments that are published and not
    cancelled, and its leagues' seasons that are not closed."""
    tournaments = list(
        Tournament.objects.filter(club=club).exclude(status__in=("draft", "cancelled"))[:50]
    )
    seasons = list(
        Season.objects.filter(league__host=club)
        .exclude(status=SeasonStatus.CLOSED)
        .select_related("league")[:50]
    )
    return tournaments, seasons


def team_named(panel: Panel, target: str) -> bool:
    """Whether ``target`` names a team of the event."""
    return any(value == target for value, _label in teams(panel))


def division_of(panel: Panel, target: str) -> bool:
    """Whether ``target`` is the id of a division of the event."""
    return target.isdigit() and any(str(d.pk) == target for d in divisions(panel))


@dataclass(frozen=True)
class Step:
    """One step of an appeal's history: when, what (``filed``, ``fee_received``, ``ruled``,
    ``escalated``, ``vote``, ``decided``, ``fee_refunded``, ``fee_kept``), by whom (None for
    a settlement that follows a decision), and the sentence the page shows (in the active
    language)."""

    at: datetime
    what: str
    by: User | None
    text: str


def _fee_step(appeal: Appeal, state: str, at: datetime) -> Step:
    if state == FeeState.REFUNDED:
        text = _("Appeal fee of %(fee)d yuan refunded: the appellant prevailed.")
    else:
        text = _("Appeal fee of %(fee)d yuan kept: the appellant did not prevail.")
    return Step(at, f"fee_{state}", None, text % {"fee": appeal.fee})


def appeal_history(appeal: Appeal) -> list[Step]:
    """What happened to ``appeal``, in order: filed (with the fee due), the fee received, the
    chief referee's ruling, the ruling taken to the committee, each vote, the committee's
    decision, and each settlement of the fee (the ruling's, then the committee's when it
    changed it). Read from the appeal's own record."""
    fee = appeal.fee
    steps = [
        Step(
            appeal.filed_at,
            "filed",
            appeal.filed_by,
            _("Appeal filed; appeal fee of %(fee)d yuan due.") % {"fee": fee}
            if fee
            else _("Appeal filed."),
        )
    ]
    if appeal.fee_received_at is not None:
        steps.append(
            Step(
                appeal.fee_received_at,
                "fee_received",
                appeal.fee_received_by,
                _("Appeal fee of %(fee)d yuan received.") % {"fee": fee},
            )
        )
    ruled_fee = None
    if appeal.ruled_at is not None and appeal.ruling:
        steps.append(
            Step(
                appeal.ruled_at,
                "ruled",
                appeal.ruled_by,
                _("Chief referee's ruling: %(verdict)s")
                % {"verdict": Verdict(appeal.ruling).label},
            )
        )
        if fee and appeal.fee_received_at is not None:
            ruled_fee = FeeState.REFUNDED if appeal.ruling == Verdict.UPHOLD else FeeState.KEPT
            steps.append(_fee_step(appeal, ruled_fee, appeal.ruled_at))
    if appeal.escalated_at is not None:
        steps.append(
            Step(
                appeal.escalated_at,
                "escalated",
                appeal.escalated_by,
                _("The ruling was taken to the appeals committee."),
            )
        )
    for vote in appeal.votes.select_related("member"):
        steps.append(
            Step(
                vote.cast_at,
                "vote",
                vote.member,
                _("Vote: %(verdict)s") % {"verdict": Verdict(vote.verdict).label},
            )
        )
    if appeal.decided_at is not None:
        steps.append(
            Step(
                appeal.decided_at,
                "decided",
                appeal.decided_by,
                _("The appeals committee decided: %(status)s")
                % {"status": AppealStatus(appeal.status).label},
            )
        )
        settled = appeal.fee_state in (FeeState.REFUNDED, FeeState.KEPT)
        if settled and appeal.fee_state != ruled_fee:
            steps.append(_fee_step(appeal, appeal.fee_state, appeal.decided_at))
    ranked = sorted(enumerate(steps), key=lambda pair: (pair[1].at, pair[0]))
    return [step for _index, step in ranked]
