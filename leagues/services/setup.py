"""Setting up a league and its seasons: create, invite clubs, divisions, start, close."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, User
from games.variants import game, is_game
from leagues import bridge, schedule, selectors
from leagues.models import (
    MAX_DIVISIONS,
    Division,
    Entry,
    EntryKind,
    Fixture,
    FixtureStatus,
    League,
    Round,
    RoundStatus,
    ScheduleFormat,
    Season,
    SeasonStatus,
    Team,
    TeamMember,
)
from leagues.permissions import can_manage
from leagues.services import standings
from leagues.services.errors import not_allowed, refuse

#: Settings a season's form and the API may set.
SEASON_FIELDS = (
    "name",
    "variant",
    "entry_kind",
    "format",
    "swiss_rounds",
    "online",
    "rated",
    "time_limit_minutes",
    "colour_twos",
    "deals",
    "team_tables",
    "points_win",
    "points_draw",
    "points_loss",
    "tiebreak1",
    "tiebreak2",
    "tiebreak3",
    "starts_on",
    "window_days",
)


def season_problems(season: Season) -> dict[str, list[str]]:
    """What the model's check constraints would refuse in ``season``, said per field in
    the organiser's words (a constraint's own message names only the constraint)."""
    problems: dict[str, list[str]] = {}
    win, draw, loss = season.points_win, season.points_draw, season.points_loss
    if None not in (win, draw, loss) and not (win >= draw >= loss):
        problems["points_draw"] = [
            _(
                "Points run from a win down to a loss: a win at least a draw, a draw at least a loss."
            )
        ]
    return problems


def field_name(instance: Any, field: str) -> str:
    """The field's verbose name (what the form's label says), or the name itself."""
    try:
        return str(instance._meta.get_field(field).verbose_name)
    except Exception:  # not a model field (e.g. ``__all__``)
        return ""


def _clean(instance: Any, found: dict[str, list[str]] | None = None) -> None:
    """Run the model's validators; every bad value is refused at once, each message led by
    the field's verbose name; the refusal's ``fields`` keeps them per field for forms."""
    problems = season_problems(instance) if isinstance(instance, Season) else {}
    for field, messages in (found or {}).items():
        problems.setdefault(field, []).extend(messages)
    try:
        instance.full_clean(exclude=["league", "host", "season", "created_by", *problems])
    except ValidationError as error:
        for field, messages in error.message_dict.items():
            problems.setdefault(field, []).extend(messages)
    if problems:
        lines = []
        for field, messages in problems.items():
            label = field_name(instance, field)
            text = " ".join(messages)
            lines.append(
                _("%(field)s: %(message)s") % {"field": label, "message": text} if label else text
            )
        refusal = refuse(f"bad_{next(iter(problems))}", " ".join(lines))
        refusal.fields = problems  # type: ignore[attr-defined]
        raise refusal


@transaction.atomic
def create_league(
    user: User,
    host: Club,
    *,
    name: str,
    description: str = "",
    inter_club: bool = False,
    promote: int = 1,
    relegate: int = 1,
) -> League:
    """Create a league of ``host`` (its owner and admins only)."""
    league = League(
        host=host,
        name=str(name).strip(),
        description=str(description),
        inter_club=bool(inter_club),
        promote=promote,
        relegate=relegate,
        created_by=user if user.is_authenticated else None,
    )
    if not can_manage(user, league):
        raise not_allowed()
    _clean(league)
    league.save()
    return league


@transaction.atomic
def invite_club(user: User, league: League, club: Club) -> None:
    """Invite ``club`` to an inter-club league; its admins may then enter teams."""
    if not can_manage(user, league):
        raise not_allowed()
    if not league.inter_club:
        raise refuse("not_inter_club", _("Only an inter-club league invites other clubs."))
    if club.pk == league.host_id:
        raise refuse("host_club", _("The host club takes part without an invitation."))
    league.invited_clubs.add(club)


def _check_game(season: Season) -> None:
    """The season's entries and options must fit its game (:func:`games.variants.game`)."""
    if not is_game(season.variant):
        raise refuse("bad_variant", _("Unknown game."))
    facts = game(season.variant)
    if season.entry_kind in (EntryKind.TEAM, EntryKind.PAIR) and not facts.pairs:
        raise refuse("bad_entry_kind", _("Teams and pairs need a game played by two fixed pairs."))
    if season.entry_kind == EntryKind.SINGLE and facts.seats != 2:
        raise refuse("bad_entry_kind", _("Single players need a two-player game."))
    if season.colour_twos and "colour_twos" not in facts.sheet_options:
        raise refuse("bad_colour_twos", _("This game has no coloured twos."))
    if (
        season.deals and "deals" not in facts.sheet_options and not (facts.levels and season.online)
    ):  # a level game's deal limit (计副制) is kept by the live table, not by a score sheet
        raise refuse("bad_deals", _("This game is not played over a number of deals."))


def past_start(season: Season, today: date | None) -> dict[str, list[str]]:
    """A first day already past: its first rounds' windows would be over before anyone
    could play them."""
    today = today or timezone.localdate()
    if isinstance(season.starts_on, date) and season.starts_on < today:
        return {
            "starts_on": [
                _("%(day)s has passed: the first day is today or later.")
                % {"day": season.starts_on.isoformat()}
            ]
        }
    return {}


@transaction.atomic
def create_season(user: User, league: League, today: date | None = None, **fields: Any) -> Season:
    """Create a draft season of ``league`` with the settings in ``fields``
    (:data:`SEASON_FIELDS`) and one first division; a first day before ``today`` (the
    platform's today by default) is refused."""
    if not can_manage(user, league):
        raise not_allowed()
    unknown = set(fields) - set(SEASON_FIELDS)
    if unknown:
        raise refuse("bad_field", _("Unknown setting: %(name)s") % {"name": sorted(unknown)[0]})
    season = Season(league=league, **fields)
    _clean(season, past_start(season, today))
    _check_game(season)
    season.save()
    Division.objects.create(season=season, name=_("Division 1"), level=1)
    return season


@transaction.atomic
def add_division(user: User, season: Season, name: str) -> Division:
    """Add the next lower division to a draft season."""
    if not can_manage(user, season.league):
        raise not_allowed()
    if season.status != SeasonStatus.DRAFT:
        raise refuse("season_started", _("The season has started."))
    level = season.divisions.count() + 1
    if level > MAX_DIVISIONS:
        raise refuse(
            "too_many_divisions", _("A season has at most %(n)d divisions.") % {"n": MAX_DIVISIONS}
        )
    division = Division(season=season, name=str(name).strip()[:60] or str(level), level=level)
    _clean(division)
    division.save()
    standings.changed(season.pk)
    return division


@transaction.atomic
def remove_division(user: User, season: Season, division: Division) -> None:
    """Remove an empty division of a draft season (one added by mistake); the divisions
    below it move up a level, so the levels stay 1, 2, 3… A season keeps at least one
    division, and a division with entries is refused (move them first)."""
    season = _locked(season)
    if not can_manage(user, season.league):
        raise not_allowed()
    if season.status != SeasonStatus.DRAFT:
        raise refuse("season_started", _("The season has started."))
    if division.season_id != season.pk:
        raise refuse("bad_division", _("This division is not in this season."))
    if season.divisions.count() <= 1:
        raise refuse("last_division", _("A season keeps at least one division."))
    if division.entries.exists():
        raise refuse(
            "division_not_empty",
            _("%(division)s has entries: move them to another division first.")
            % {"division": division.name},
        )
    level = division.level
    division.delete()
    # one at a time, top down, so the unique (season, level) never sees two rows at a level
    for below in season.divisions.filter(level__gt=level).order_by("level"):
        below.level -= 1
        below.save(update_fields=["level"])
    standings.changed(season.pk)


@transaction.atomic
def move_entry(user: User, entry: Entry, division: Division) -> Entry:
    """Move an entry of a draft season to another of its divisions (last seed there)."""
    season = _locked(entry.season)
    if not can_manage(user, season.league):
        raise not_allowed()
    if season.status != SeasonStatus.DRAFT:
        raise refuse("season_started", _("The season has started."))
    if division.season_id != season.pk:
        raise refuse("bad_division", _("This division is not in this season."))
    if entry.division_id != division.pk:
        entry.division = division
        entry.seed = division.entries.count() + 1
        entry.save(update_fields=["division", "seed"])
        standings.changed(season.pk)
    return entry


def match_options(season: Season) -> dict[str, Any]:
    """The engine options of every table of the season (only those its game has)."""
    options: dict[str, Any] = {}
    if season.colour_twos:
        options["colour_twos"] = True
    if season.deals:
        options["deals"] = season.deals
    return options


def round_window(season: Season, number: int) -> tuple[date, date]:
    """The play-by window (first and last day) of round ``number``."""
    opens = season.starts_on + timedelta(days=(number - 1) * season.window_days)
    return opens, opens + timedelta(days=season.window_days - 1)


def window_end(day: date) -> datetime:
    """The end of the last day of a window, in the platform's time zone."""
    return timezone.make_aware(datetime.combine(day + timedelta(days=1), datetime.min.time()))


def window_start(day: date) -> datetime:
    """The start of the first day of a window."""
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


def _locked(season: Season) -> Season:
    return Season.objects.select_for_update().select_related("league").get(pk=season.pk)


def make_fixture(rnd: Round, division: Division, home: int, away: int | None) -> Fixture:
    """An unsaved fixture (a bye when ``away`` is None)."""
    return Fixture(
        round=rnd,
        division=division,
        home_id=home,
        away_id=away,
        status=FixtureStatus.BYE if away is None else FixtureStatus.PENDING,
    )


def _swiss_draw(rnd: Round) -> list[tuple[Division, int, int | None]]:
    """Swiss round ``rnd``'s games in every division, ``(division, home, away)`` (away None:
    a bye), from the standings so far (entries that withdrew and pending pairs are left out;
    a late entry joins here)."""
    games: list[tuple[Division, int, int | None]] = []
    for division in rnd.season.divisions.all():
        active = list(
            division.entries.filter(withdrawn_at__isnull=True, answer_by__isnull=True).values_list(
                "pk", flat=True
            )
        )
        rows = selectors.standings(division)
        scores = {row.unit: row.values.get("match_points", 0) for row in rows}
        earlier = Fixture.objects.filter(division=division, round__number__lt=rnd.number)
        met = [(f.home_id, f.away_id) for f in earlier if f.away_id]
        byes = [f.home_id for f in earlier if f.away_id is None]
        for home, away in bridge.swiss_round(active, scores, met, byes):
            games.append((division, home, away))
    return games


def draw_swiss(rnd: Round) -> list[Fixture]:
    """Draw Swiss round ``rnd`` in every division from the standings so far
    (:func:`_swiss_draw`)."""
    fixtures = [
        make_fixture(rnd, division, home, away) for division, home, away in _swiss_draw(rnd)
    ]
    Fixture.objects.bulk_create(fixtures)
    standings.changed(rnd.season_id)  # its byes count at once
    return fixtures


def draw_swiss_again(after: Round) -> bool:
    """A result of Swiss round ``after`` changed: the next round, when it is drawn and not yet
    open (nobody has been told of it: a round's players are told as it opens), is drawn again
    from the corrected standings if they give another draw (later pairings that have not
    started follow a correction); a draw they still give is kept. Returns whether it was
    drawn again."""
    season = after.season
    if season.format != ScheduleFormat.SWISS:
        return False
    nxt = season.rounds.filter(number=after.number + 1, status=RoundStatus.DRAWN).first()
    if nxt is None or not nxt.fixtures.exists():
        return False
    drawn = sorted((f.division_id, f.home_id, f.away_id or 0) for f in nxt.fixtures.all())
    wanted = _swiss_draw(nxt)
    if sorted((d.pk, home, away or 0) for d, home, away in wanted) == drawn:
        return False
    nxt.fixtures.all().delete()
    Fixture.objects.bulk_create([make_fixture(nxt, d, home, away) for d, home, away in wanted])
    standings.changed(season.pk)
    return True


@transaction.atomic
def start_season(user: User, season: Season) -> Season:
    """Start a draft season: every division needs two entries (pending pairs do not count);
    its rounds and their windows
    are created, and the round robin drawn at once (a Swiss season draws its first round
    now and each next one when the round before closes)."""
    season = _locked(season)
    if not can_manage(user, season.league):
        raise not_allowed()
    if season.status != SeasonStatus.DRAFT:
        raise refuse("season_started", _("The season has started."))
    divisions = list(season.divisions.all())
    # a pending pair is not drawn: accepted later, it joins as a late entry
    entries = {
        d.pk: list(
            d.entries.filter(answer_by__isnull=True)
            .order_by("seed", "id")
            .values_list("pk", flat=True)
        )
        for d in divisions
    }
    short = [d.name for d in divisions if len(entries[d.pk]) < 2]
    if short:
        # name the divisions and the way out: an organiser must never be stuck here
        raise refuse(
            "too_few_entries",
            _(
                "Every division needs at least two entries; %(divisions)s: move entries "
                "there or remove the division."
            )
            % {"divisions": ", ".join(short)},
        )
    if any(len(ids) > schedule.MAX_ENTRIES for ids in entries.values()):
        raise refuse("too_many_entries", _("A division has too many entries."))
    if season.format == ScheduleFormat.SWISS:
        count = season.swiss_rounds
        drawn: dict[int, list[list[schedule.Pairing]]] = {}
    else:
        cycles = 2 if season.format == ScheduleFormat.DOUBLE_ROUND_ROBIN else 1
        drawn = {pk: schedule.round_robin(ids, cycles) for pk, ids in entries.items()}
        count = max(len(r) for r in drawn.values())
    rounds = []
    for number in range(1, count + 1):
        opens, closes = round_window(season, number)
        rounds.append(Round(season=season, number=number, opens_on=opens, closes_on=closes))
    Round.objects.bulk_create(rounds)
    rounds = list(season.rounds.order_by("number"))
    if season.format == ScheduleFormat.SWISS:
        draw_swiss(rounds[0])
    else:
        by_pk = {d.pk: d for d in divisions}
        Fixture.objects.bulk_create(
            make_fixture(rounds[i], by_pk[pk], p.home, p.away)
            for pk, division_rounds in drawn.items()
            for i, games in enumerate(division_rounds)
            for p in games
        )
    season.status = SeasonStatus.RUNNING
    season.save(update_fields=["status"])
    standings.changed(season.pk)  # the byes count at once
    return season


@transaction.atomic
def close_season(user: User, season: Season, now: datetime | None = None) -> Season:
    """Close a running season once every fixture has a result."""
    season = _locked(season)
    if not can_manage(user, season.league):
        raise not_allowed()
    if season.status != SeasonStatus.RUNNING:
        raise refuse("not_running", _("This season is not running."))
    if (
        Fixture.objects.filter(round__season=season)
        .exclude(status__in=[FixtureStatus.DONE, FixtureStatus.BYE])
        .exists()
    ):
        raise refuse("fixtures_open", _("Some fixtures have no result yet."))
    season.status = SeasonStatus.CLOSED
    season.closed_at = now or timezone.now()
    season.save(update_fields=["status", "closed_at"])
    season.rounds.update(status="closed")
    return season


@transaction.atomic
def next_season(
    user: User, season: Season, *, name: str, starts_on: date, today: date | None = None
) -> Season:
    """A draft next season with the closed season's settings and its entries moved by
    promotion and relegation (:func:`leagues.schedule.promote_relegate`); teams keep their
    rosters. The organiser may still change everything before starting it."""
    season = _locked(season)
    if not can_manage(user, season.league):
        raise not_allowed()
    if season.status != SeasonStatus.CLOSED:
        raise refuse("not_closed", _("Close the season first."))
    standings = selectors.season_standings(season)  # divisions by level, top first
    divisions = [division for division, _rows in standings]
    ranked = [[e.pk for _row, e in rows if e.withdrawn_at is None] for _d, rows in standings]
    moved = schedule.promote_relegate(ranked, season.league.promote, season.league.relegate)
    fields = {f: getattr(season, f) for f in SEASON_FIELDS}
    fields.update(name=str(name).strip()[:120], starts_on=starts_on)
    new = Season(league=season.league, **fields)
    _clean(new, past_start(new, today))
    new.save()
    old_entries = {e.pk: e for e in Entry.objects.filter(season=season).select_related("team")}
    for level, ids in enumerate(moved, start=1):
        division = Division.objects.create(season=new, name=divisions[level - 1].name, level=level)
        for seed, pk in enumerate(ids, start=1):
            _copy_entry(old_entries[pk], new, division, seed)
    return new


def _copy_entry(entry: Entry, season: Season, division: Division, seed: int) -> Entry:
    team = None
    if entry.team_id:
        old = entry.team
        team = Team.objects.create(season=season, club=old.club, name=old.name, captain=old.captain)
        TeamMember.objects.bulk_create(
            TeamMember(team=team, season=season, user_id=uid)
            for uid in old.members.values_list("user_id", flat=True)
        )
    return Entry.objects.create(
        season=season,
        division=division,
        club=entry.club,
        name=entry.name,
        team=team,
        player1_id=entry.player1_id,
        player2_id=entry.player2_id,
        seed=seed,
    )
