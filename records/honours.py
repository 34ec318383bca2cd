"""A club's honours for a month or a season: a small named set, each with what earns it.

Computed from the club's tallies of the period (:class:`~records.models.Tally`, club tables
of people only: no bot seat, no practice table ever reaches them) and, for the most improved
rating, from the club's ladders. Recomputed for a club's month and season each time one of
its matches is recorded (:func:`compute`), in the same transaction.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Sum
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ladder.models import RatingChange
from records import periods
from records.models import Honour, Tally, TallyKind

#: Matches together a partnership needs before it can be the best one.
MIN_PARTNER_MATCHES = 5
#: Rated matches a player needs in the period before their rating's rise counts.
MIN_RATED_MATCHES = 3


@dataclass(frozen=True)
class HonourKind:
    """One honour: its ``code``, ``title`` and what earns it (``explanation``), and how its
    figure is written (``unit``: ``count``, ``share`` or ``rating``)."""

    code: str
    title: Promise
    explanation: Promise
    unit: str


HONOURS: tuple[HonourKind, ...] = (
    HonourKind(
        "bao2_made",
        _("保2 king"),
        _("Most 保2 made in the club's matches of the period (Bao 2)."),
        "count",
    ),
    HonourKind(
        "double_up",
        _("双上 master"),
        _("Most deals won with 1st and 2nd place for the team (Bao 2 and Guandan)."),
        "count",
    ),
    HonourKind(
        "best_partnership",
        _("Best partnership"),
        _("The highest share of matches won together, among partners with at least 5 matches."),
        "share",
    ),
    HonourKind(
        "most_improved",
        _("Most improved"),
        _("The biggest rise of rating in the club's ladders, with at least 3 rated matches."),
        "rating",
    ),
    HonourKind(
        "most_matches",
        _("Most matches"),
        _("Most matches played at the club's tables."),
        "count",
    ),
)
BY_CODE = {h.code: h for h in HONOURS}


def _best(scores: dict[int, tuple[float, int]]) -> tuple[int, float, int] | None:
    """The user with the highest positive figure (ties: more matches, then the lower id)."""
    ranked = sorted(
        ((value, matches, -user) for user, (value, matches) in scores.items() if value > 0),
        reverse=True,
    )
    if not ranked:
        return None
    value, matches, user = ranked[0]
    return -user, value, matches


def compute(club_id: int, period: str) -> list[Honour]:
    """Compute the honours of club ``club_id`` for ``period`` (a month or season key) again
    and store them in place of the old ones. Returns the new rows."""
    totals = Tally.objects.filter(club_key=club_id, period=period, kind=TallyKind.TOTAL)
    sums: dict[str, dict[int, tuple[float, int]]] = defaultdict(dict)
    matches: dict[int, int] = defaultdict(int)
    per_fact: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for user_id, counters in totals.values_list("user_id", "counters"):
        matches[user_id] += counters.get("matches", 0)
        for fact in ("bao2_made", "double_up"):
            per_fact[fact][user_id] += counters.get(fact, 0)
    for fact in ("bao2_made", "double_up"):
        sums[fact] = {u: (float(v), matches[u]) for u, v in per_fact[fact].items()}
    sums["most_matches"] = {u: (float(n), n) for u, n in matches.items()}
    rows: list[Honour] = []
    for code in ("bao2_made", "double_up", "most_matches"):
        best = _best(sums[code])
        if best is not None:
            rows.append(
                Honour(
                    club_id=club_id,
                    period=period,
                    code=code,
                    user_id=best[0],
                    value=best[1],
                    matches=best[2],
                )
            )
    pair = _best_partnership(club_id, period)
    if pair is not None:
        rows.append(pair)
    improved = _most_improved(club_id, period)
    if improved is not None:
        rows.append(improved)
    Honour.objects.filter(club_id=club_id, period=period).delete()
    Honour.objects.bulk_create(rows)
    return rows


def _best_partnership(club_id: int, period: str) -> Honour | None:
    together: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    rows = Tally.objects.filter(
        club_key=club_id, period=period, kind=TallyKind.PARTNER, other_key__gt=0
    ).values_list("user_id", "other_key", "counters")
    for user_id, other, counters in rows:
        if user_id < other:  # each pair once (both hold the same counts of their matches)
            pair = together[(user_id, other)]
            pair[0] += counters.get("matches", 0)
            pair[1] += counters.get("won", 0)
    ranked = sorted(
        ((won / n, n, -a, -b) for (a, b), (n, won) in together.items() if n >= MIN_PARTNER_MATCHES),
        reverse=True,
    )
    if not ranked or ranked[0][0] <= 0:
        return None
    share, n, a, b = ranked[0]
    return Honour(
        club_id=club_id,
        period=period,
        code="best_partnership",
        user_id=-a,
        partner_id=-b,
        value=round(share * 100, 1),
        matches=n,
    )


def _most_improved(club_id: int, period: str) -> Honour | None:
    start, end = periods.bounds(period)
    changes = (
        RatingChange.objects.filter(ladder__club_id=club_id, ended_at__gte=start, ended_at__lt=end)
        .values("user_id")
        .annotate(rise=Sum(F("after") - F("before")), n=Count("id"))
    )
    scores = {
        c["user_id"]: (round(float(c["rise"]), 1), int(c["n"]))
        for c in changes
        if c["n"] >= MIN_RATED_MATCHES
    }
    best = _best(scores)
    if best is None:
        return None
    return Honour(
        club_id=club_id,
        period=period,
        code="most_improved",
        user_id=best[0],
        value=best[1],
        matches=best[2],
    )


def explained(code: str) -> HonourKind | None:
    """The honour named ``code``, or None for a code no longer given."""
    return BY_CODE.get(code)


def period_start(period: str) -> datetime:
    """When ``period`` begins (for ordering a player's honours)."""
    return periods.bounds(period)[0]


def match_honour_lines(match: Any) -> list[str]:
    """The result card's lines of finished live ``match`` (registered with
    :func:`reviews.card.register_card_lines`): the honours its players hold in its club for
    the month and the season it ended in, in the active language ("保2王 · 2026年12月：老王")."""
    if match.table.club_id is None or match.finished_at is None:
        return []
    names = {s.get("user"): s.get("name") for s in match.seats or [] if s.get("user")}
    if not names:
        return []
    keys = periods.keys_for(match.finished_at)[1:]
    found = Honour.objects.filter(
        club_id=match.table.club_id, period__in=keys, user_id__in=list(names)
    ).order_by("period", "code", "user_id")
    lines = []
    for honour in found:
        kind = explained(honour.code)
        if kind is None:
            continue
        who = [names.get(honour.user_id) or str(honour.user_id)]
        if honour.partner_id is not None:
            who.append(names.get(honour.partner_id) or str(honour.partner_id))
        lines.append(
            gettext("%(title)s · %(period)s: %(names)s")
            % {
                "title": kind.title,
                "period": periods.label(honour.period),
                "names": " · ".join(who),
            }
        )
    return lines
