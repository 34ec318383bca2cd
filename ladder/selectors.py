"""Reads of ladder data shared by the pages, the API and the emails.

Every function here runs a fixed number of queries, whatever the page size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

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


def ladders(*, club_id: int | None = None, variant: str | None = None) -> QuerySet[Ladder]:
    """All ladders (platform ladders first), optionally of one club or one variant."""
    result = Ladder.objects.select_related("club").order_by(
        F("club_id").asc(nulls_first=True), "variant", "id"
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
    """A page of the leaderboard in two queries (count, rows), whatever ``per_page``.

    ``query`` filters by player name (username or display name, case-insensitive substring);
    in the ``ranked`` scope the rank stays the player's rank in the whole leaderboard. An
    unknown scope is treated as ``ranked``; ``page`` is clamped into range.
    """
    scope = scope if scope in SCOPES else "ranked"
    per_page = min(max(1, per_page), MAX_PER_PAGE)
    query = query.strip()[:60]
    if scope == "ranked":
        base = ranked_ratings(ladder, now)
    else:
        base = Rating.objects.filter(ladder=ladder).order_by("-rating", "user_id")
    rows = base
    if query:
        rows = rows.filter(
            Q(user__username__icontains=query) | Q(user__display_name__icontains=query)
        )
        if scope == "ranked":
            better = ranked_ratings(ladder, now).filter(
                Q(rating__gt=OuterRef("rating"))
                | Q(rating=OuterRef("rating"), user_id__lt=OuterRef("user_id"))
            )
            rows = rows.annotate(
                search_rank=Coalesce(
                    Subquery(
                        better.order_by()
                        .values("ladder_id")
                        .annotate(n=Count("id"))
                        .values("n")[:1]
                    ),
                    Value(0),
                )
                + 1
            )
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
    if query:
        items = list(rows.select_related("user")[offset : offset + per_page])
    else:
        # Deferred join: find the page's ids with an index-only scan over the covering
        # leaderboard index (cheap even at a deep OFFSET), then load only those rows.
        page_ids = rows.values("pk")[offset : offset + per_page]
        items = list(
            Rating.objects.filter(pk__in=page_ids)
            .select_related("user")
            .order_by("-rating", "user_id")
        )
    for position, rating in enumerate(items):
        if scope != "ranked":
            rating.rank = None
        elif query:
            rating.rank = rating.search_rank
        else:
            rating.rank = offset + position + 1
    return LeaderboardPage(items, page, per_page, total, scope, query)


def player_rating(ladder: Ladder, user_id: int) -> Rating | None:
    """The player's rating in the ladder, or None if they have no rated match in it."""
    return Rating.objects.filter(ladder=ladder, user_id=user_id).select_related("user").first()


def player_ratings(user_id: int) -> QuerySet[Rating]:
    """All of a player's ratings, platform ladders first."""
    return (
        Rating.objects.filter(user_id=user_id)
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
    result's players (``change.result.players.all()`` with users) loaded: three queries."""
    return list(
        RatingChange.objects.filter(ladder=ladder, user_id=user_id)
        .select_related("result")
        .prefetch_related("result__players__user")
        .order_by("-ended_at", "-result_id")[:limit]
    )


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
