"""Reads of ladder data shared by the pages, the API and the emails.

Every function here runs a fixed number of queries, whatever the page size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from clubs.models import User
from clubs.permissions import visible_clubs_filter
from games.variants import level_names
from ladder.models import Ladder, Rating, RatingChange, ResultPlayer

#: Leaderboard scopes: ``ranked`` lists non-provisional players active within the ladder's
#: activity window, with their rank; ``all`` lists every rated player (provisional ratings
#: shown with "?"), without ranks.
SCOPES = ("ranked", "all")
MAX_PER_PAGE = 200
COUNT_CACHE_SECONDS = 60


def leaderboard_count_key(ladder_id: int, scope: str) -> str:
    """The cache key of a leaderboard's cached row count."""
    return f"ladder:{ladder_id}:count:{scope}"


def _visible(viewer: User | None, field: str) -> Q:
    """The ladders (reached by ``field``) ``viewer`` may see: the platform's, and those of the
    clubs whose things they may see (:func:`clubs.permissions.can_see_club`)."""
    return Q(**{f"{field}__isnull": True}) | visible_clubs_filter(viewer, field)


def ladders(
    viewer: User | None, *, club_id: int | None = None, variant: str | None = None
) -> QuerySet[Ladder]:
    """The ladders ``viewer`` may see (platform ladders first, a members-only club's only to
    its members), optionally of one club or one variant."""
    result = (
        Ladder.objects.filter(_visible(viewer, "club"))
        .select_related("club")
        .order_by(F("club_id").asc(nulls_first=True), "variant", "id")
    )
    if club_id is not None:
        result = result.filter(club_id=club_id)
    if variant:
        result = result.filter(variant=variant)
    return result


def activity_cutoff(ladder: Ladder, now: datetime | None = None) -> datetime:
    """The earliest last-played time that still counts as active in ``ladder``."""
    return (now or timezone.now()) - timedelta(weeks=ladder.activity_weeks)


def ranked_ratings(ladder: Ladder, now: datetime | None = None) -> QuerySet[Rating]:
    """The ratings that appear on the ranked leaderboard, best first (ties by user id)."""
    return Rating.objects.filter(
        ladder=ladder, provisional=False, last_played__gte=activity_cutoff(ladder, now)
    ).order_by("-rating", "user_id")


@dataclass
class LeaderboardPage:
    """One page of a leaderboard: ``rows`` are :class:`Rating` objects with ``rank`` set (None
    in the ``all`` scope) and ``user`` loaded."""

    rows: list[Rating]
    page: int
    per_page: int
    total: int
    scope: str
    query: str

    @property
    def num_pages(self) -> int:
        """How many pages the leaderboard has (at least 1)."""
        return max(1, -(-self.total // self.per_page))

    @property
    def has_next(self) -> bool:
        """True if a later page exists."""
        return self.page < self.num_pages

    @property
    def has_previous(self) -> bool:
        """True if an earlier page exists."""
        return self.page > 1


def leaderboard(
    ladder: Ladder,
    *,
    scope: str = "ranked",
    query: str = "",
    page: int = 1,
    per_page: int = 50,
    now: datetime | None = None,
) -> LeaderboardPage:
    """A page of the leaderboard in at most two queries, whatever ``per_page``.

    ``query`` filters by player name (username or display name, case-insensitive substring);
    in the ``ranked`` scope the rank stays the player's rank in the whole leaderboard. An
    unknown scope is treated as ``ranked``; ``page`` is clamped into range.
    """
    scope = scope if scope in SCOPES else "ranked"
    per_page = min(max(1, per_page), MAX_PER_PAGE)
    # Only printable characters: PostgreSQL refuses NUL bytes, and nothing else is a name.
    query = "".join(ch for ch in query if ch.isprintable()).strip()[:60]
    if scope == "ranked" and query:
        return _ranked_search(ladder, query, page, per_page, now)
    if scope == "ranked":
        rows = ranked_ratings(ladder, now)
    else:
        rows = Rating.objects.filter(ladder=ladder).order_by("-rating", "user_id")
    if query:
        rows = rows.filter(user_id__in=_matching_users(query))
    if query or now is not None:
        total = rows.count()
    else:
        # Counting ~100,000 rows costs more than the page itself; the total (and the number
        # of pages) may lag by up to COUNT_CACHE_SECONDS, the rows and ranks never do.
        key = leaderboard_count_key(ladder.pk, scope)
        total = cache.get(key)
        if total is None:
            total = rows.count()
            cache.set(key, total, COUNT_CACHE_SECONDS)
    num_pages = max(1, -(-total // per_page))
    page = min(max(1, page), num_pages)
    offset = (page - 1) * per_page
    # Deferred join: find the page's ids first (for the ranked leaderboard an index-only scan
    # over the covering index, cheap even at a deep OFFSET), then load only those rows.
    page_ids = rows.values("pk")[offset : offset + per_page]
    items = list(
        Rating.objects.filter(pk__in=page_ids).select_related("user").order_by("-rating", "user_id")
    )
    for position, rating in enumerate(items):
        rating.rank = offset + position + 1 if scope == "ranked" else None
    return LeaderboardPage(items, page, per_page, total, scope, query)


def _matching_users(query: str) -> QuerySet:
    return (
        get_user_model()
        .objects.filter(Q(username__icontains=query) | Q(display_name__icontains=query))
        .values("pk")
    )


#: Sentinel above every rating: the upper bound of the first hit's segment in _RANKED_SEARCH.
_ABOVE_EVERY_RATING = 1e300

#: Ranked-search SQL (``{ranked}``: the ranked rows, ``{users}``: the matching users).
#: ``matched`` is every matching ranked row, planned on its own (``MATERIALIZED``: otherwise
#: PostgreSQL walks the whole leaderboard in order looking each user up, to save a sort of a
#: few rows — 4x slower for a broad search); for a narrow search the users come from the
#: trigram index and each rating row from the ``user`` index. ``hits`` is the page of them
#: with the number of hits; each hit's
#: rank is 1 + the ranked rows ahead of it, counted segment by segment between consecutive hits
#: (each segment an index range scan of the covering leaderboard index) and summed, so one
#: query reads the ranked list only down to the page's last hit, and only once.
_RANKED_SEARCH = """
WITH matched AS MATERIALIZED (
    SELECT r.id, r.rating, r.user_id FROM ({ranked}) r WHERE r.user_id IN ({users})
), hits AS (
    SELECT m.id, m.rating, m.user_id, COUNT(*) OVER () AS total
    FROM matched m
    ORDER BY m.rating DESC, m.user_id
    LIMIT %s OFFSET %s
), paired AS (
    SELECT h.id, h.rating, h.user_id, h.total,
        LAG(h.rating) OVER (ORDER BY h.rating DESC, h.user_id) AS prev_rating,
        LAG(h.user_id) OVER (ORDER BY h.rating DESC, h.user_id) AS prev_user
    FROM hits h
), segments AS (
    SELECT p.id, p.rating, p.user_id, p.total, (
        SELECT COUNT(*) FROM ({ranked}) x
        WHERE x.rating >= p.rating AND x.rating <= COALESCE(p.prev_rating, %s)
            AND (x.rating > p.rating OR x.user_id < p.user_id)
            AND (p.prev_rating IS NULL OR x.rating < p.prev_rating OR x.user_id >= p.prev_user)
    ) AS ahead
    FROM paired p
)
SELECT s.id, 1 + SUM(s.ahead) OVER (ORDER BY s.rating DESC, s.user_id), s.total
FROM segments s
ORDER BY s.rating DESC, s.user_id
"""


def _ranked_search(
    ladder: Ladder, query: str, page: int, per_page: int, now: datetime | None
) -> LeaderboardPage:
    """Search the ranked leaderboard keeping each hit's rank in the whole leaderboard: one
    query finds the page of matching ranked players, counts them and ranks each by counting
    the ranked rows ahead (see :data:`_RANKED_SEARCH`); a second loads the page's rows and
    users. The rank is the position in :func:`ranked_ratings` (rating, then user id)."""
    ranked = ranked_ratings(ladder, now).order_by().values("id", "rating", "user_id")
    ranked_sql, ranked_params = ranked.query.sql_with_params()
    users_sql, users_params = _matching_users(query).query.sql_with_params()
    sql = _RANKED_SEARCH.format(ranked=ranked_sql, users=users_sql)
    page = max(1, page)
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [
                *ranked_params,
                *users_params,
                per_page,
                (page - 1) * per_page,
                *ranked_params,
                _ABOVE_EVERY_RATING,
            ],
        )
        found = cursor.fetchall()
        if not found and page > 1:  # past the end: show the last page instead
            cursor.execute(
                f"SELECT COUNT(*) FROM ({ranked_sql}) t WHERE t.user_id IN ({users_sql})",
                [*ranked_params, *users_params],
            )
            total = cursor.fetchone()[0]
            return (
                _ranked_search(ladder, query, max(1, -(-total // per_page)), per_page, now)
                if total
                else LeaderboardPage([], 1, per_page, 0, "ranked", query)
            )
    total = found[0][2] if found else 0
    ranks = {row_id: int(position) for row_id, position, _ in found}
    items = list(
        Rating.objects.filter(pk__in=list(ranks))
        .select_related("user")
        .order_by("-rating", "user_id")
    )
    for rating in items:
        rating.rank = ranks[rating.pk]
    return LeaderboardPage(items, page, per_page, total, "ranked", query)


def player_rating(ladder: Ladder, user_id: int) -> Rating | None:
    """The player's rating in the ladder, or None if they have no rated match in it."""
    return Rating.objects.filter(ladder=ladder, user_id=user_id).select_related("user").first()


def player_ratings(user_id: int, viewer: User | None) -> QuerySet[Rating]:
    """A player's ratings in the ladders ``viewer`` may see, platform ladders first."""
    return (
        Rating.objects.filter(_visible(viewer, "ladder__club"), user_id=user_id)
        .select_related("ladder", "ladder__club")
        .order_by(F("ladder__club_id").asc(nulls_first=True), "ladder__variant")
    )


def rating_history(ladder: Ladder, user_id: int) -> QuerySet[RatingChange]:
    """The player's rating changes in the ladder, oldest first (for the chart)."""
    return RatingChange.objects.filter(ladder=ladder, user_id=user_id).order_by(
        "ended_at", "result_id"
    )


def recent_matches(ladder: Ladder, user_id: int, limit: int = 20) -> list[RatingChange]:
    """The player's latest rating changes, newest first, each with its result and the
    result's players (``change.result.players.all()`` with users) loaded: three queries.
    Each carries ``score_text``: the player's side first, in the game's own terms (level
    names for a level game, "10:A（第2轮）", as the table shows them; points otherwise)."""
    changes = list(
        RatingChange.objects.filter(ladder=ladder, user_id=user_id)
        .select_related("result")
        .prefetch_related("result__players__user")
        .order_by("-ended_at", "-result_id")[:limit]
    )
    names = level_names(ladder.variant)
    for change in changes:
        scores = change.result.scores or []
        if len(scores) == 2 and change.side in (0, 1):
            own, other = scores[change.side], scores[1 - change.side]
            change.score_text = f"{_level(names, own)}:{_level(names, other)}"
    return changes


def _level(names: list[str], value: object) -> str:
    """A level index by its name (a value outside the names, or a point score, as it is)."""
    if names and isinstance(value, int) and 0 <= value < len(names):
        return names[value]
    return str(value)


@dataclass
class Partner:
    """A partner of a player in a ladder: how often they played on the same side, and won."""

    user: object
    matches: int
    wins: int


def partners(ladder: Ladder, user_id: int, limit: int = 10) -> list[Partner]:
    """The player's most frequent partners in the ladder (same side of a rated result)."""
    rows = (
        ResultPlayer.objects.filter(
            result__rating_changes__ladder=ladder,
            result__rating_changes__user_id=user_id,
            side=F("result__rating_changes__side"),
        )
        .exclude(user_id=user_id)
        .values("user_id")
        .annotate(
            matches=Count("id"),
            wins=Count("id", filter=Q(result__rating_changes__score=1.0)),
        )
        .order_by("-matches", "user_id")[:limit]
    )
    rows = list(rows)
    users = get_user_model().objects.in_bulk([row["user_id"] for row in rows])
    return [Partner(users[row["user_id"]], row["matches"], row["wins"]) for row in rows]
