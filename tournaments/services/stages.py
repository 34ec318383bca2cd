"""Multi-stage events: the next stage made from a stage's ranking (第二十六条 "以前一阶段比赛的
名次", 第二十七条一 分组循环赛 + 决赛).

A stage is a tournament; the next one is a new tournament of the same club and game that
records its earlier stage (``Tournament.previous_stage``), with the qualifiers' entries (the
same pairs or players) already registered and seeded from the ranking. One next stage per
tournament: asking again returns the one made (a unique constraint holds it under a race).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.models import User
from tournaments import forms as settings_form
from tournaments import notifications, pairing, selectors
from tournaments.models import (
    KNOCKOUT_FORMATS,
    Entry,
    EntryStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from tournaments.services.errors import TournamentError
from tournaments.services.setup import managed

#: The most qualifiers a next stage takes (a double elimination's bound, and a round robin's
#: rounds stay within a day's play).
MAX_QUALIFIERS = 64

#: The settings a next stage keeps from its earlier stage (the organiser may change them
#: before it starts, as any tournament's).
KEPT = (
    "description",
    "variant",
    "unit_kind",
    "rated",
    "online",
    "match_options",
    "time_limit_minutes",
    "tiebreaks",
    "points_win",
    "points_draw",
    "round_minutes",
    "start_when_ready",
    "no_show_minutes",
)

#: The labels of the request's own fields (the settings' come from :mod:`tournaments.forms`).
LABELS = {
    "stage": gettext_lazy("Earlier stage"),
    "qualifiers": gettext_lazy("Qualifiers"),
}


@dataclass(frozen=True)
class Qualifier:
    """An entry that goes through, and where it came from (its group's name and its place
    there; the group is empty without groups)."""

    entry: Entry
    group: str
    place: int


def qualifiers(tournament: Tournament, count: int) -> list[Qualifier]:
    """The top ``count`` of ``tournament``'s ranking in the next stage's seeding order: the
    standings' order (ties at the line broken by it: the tie-breaks, then the seeding order);
    in a group round robin the top ``count`` of each group, the group winners first (A1, B1,
    …, then A2, B2, …: :func:`tournaments.pairing.group_seeds`). An entry that withdrew does not
    go through; the next one does."""
    grouped = selectors.group_standings(tournament)
    if grouped:
        ranked = [
            [line.entry for line in group.lines if line.entry.status != EntryStatus.WITHDRAWN]
            for group in grouped
        ]
        origin = {
            entry.pk: (group.name, place + 1)
            for group, entries in zip(grouped, ranked, strict=True)
            for place, entry in enumerate(entries)
        }
        by_id = {entry.pk: entry for entries in ranked for entry in entries}
        order = pairing.group_seeds([[e.pk for e in entries] for entries in ranked], count)
        return [Qualifier(by_id[pk], *origin[pk]) for pk in order]
    lines = [
        line
        for line in selectors.standings(tournament)
        if line.entry.status != EntryStatus.WITHDRAWN
    ]
    return [Qualifier(line.entry, "", place + 1) for place, line in enumerate(lines[:count])]


def _available(tournament: Tournament) -> int:
    """How many qualifiers ``tournament`` can give: its ranked entries still in, or in a group
    round robin the fewest of any group (the same number goes through from each)."""
    grouped = selectors.group_standings(tournament)
    if grouped:
        return min(
            sum(1 for line in g.lines if line.entry.status != EntryStatus.WITHDRAWN)
            for g in grouped
        )
    return sum(
        1 for line in selectors.standings(tournament) if line.entry.status != EntryStatus.WITHDRAWN
    )


def _default_name(earlier: Tournament) -> str:
    """ "<name> · stage n", n counted along the earlier stages (at most 120 characters)."""
    number, stage = 2, earlier
    while stage.previous_stage_id is not None and number < 50:
        stage = Tournament.objects.only("previous_stage_id").get(pk=stage.previous_stage_id)
        number += 1
    template = _("%(name)s · stage %(n)d")
    room = 120 - len(template % {"name": "", "n": number})
    return template % {"name": earlier.name[:room], "n": number}


def _refusal(problems: dict[str, list[str]]) -> TournamentError:
    """Every problem of the request as one refusal, each line naming its field (as the
    settings' refusal does)."""
    lines = [
        _("%(field)s: %(message)s")
        % {"field": str(LABELS.get(field) or settings_form.label(field)), "message": message}
        for field, messages in problems.items()
        for message in messages
    ]
    refusal = TournamentError("bad_stage", " ".join(lines))
    refusal.fields = problems  # type: ignore[attr-defined]
    return refusal


@transaction.atomic
def create_next_stage(
    user: User,
    earlier: Tournament,
    *,
    format: str,
    qualifiers_count: object,
    rounds: object = None,
    name: str = "",
    series: object = "",
    cycles: object = None,
    now: datetime | None = None,
) -> Tournament:
    """Make the next stage of ``earlier`` (its organisers; its ranking final:
    :func:`tournaments.selectors.ranking_final`): a tournament of the same club and game in ``format`` (knockout, Swiss,
    round robin), scheduled to start one round's time from ``now`` with registration closed,
    whose entries are the top ``qualifiers_count`` of the ranking (:func:`qualifiers`: in a
    group round robin, of each group), registered and seeded in that order — a knockout
    places the seeds serpentine (:func:`tournaments.pairing.bracket_order`). ``rounds``: a
    Swiss stage's rounds (by default enough to leave one unbeaten, ⌈log2 n⌉); ``series``: a
    single elimination's games per tie (多局制淘汰赛, 第三十条: :mod:`tournaments.series`);
    ``cycles``: a round-robin stage played twice (2, 双循环赛, 第二十七条三; by default once). The
    settings not chosen are the earlier stage's, checked as any tournament's
    (:func:`tournaments.forms.check_settings`). Every problem is refused at once, having
    changed nothing. Asked again, it returns the next stage already made when its format is
    the one asked, and refuses otherwise. Each qualifier's players are told that they go
    through and their seed, once (:func:`tournaments.notifications.notify_qualified`: a notice
    and an e-mail under their preferences, through the outbox)."""
    earlier = managed(user, earlier)
    now = now or timezone.now()
    made = earlier.next_stages.first()
    if made is not None:
        if made.format == format:
            return made
        raise TournamentError(
            "has_next_stage",
            _("This tournament already has its next stage: %(name)s.") % {"name": made.name},
        )
    problems: dict[str, list[str]] = {}
    if not selectors.ranking_final(earlier):
        problems["stage"] = [_("The next stage is made once every round has been played.")]
    count = qualifiers_count if isinstance(qualifiers_count, int) else None
    if isinstance(qualifiers_count, str) and qualifiers_count.strip().isdigit():
        count = int(qualifiers_count.strip())
    available = _available(earlier)
    grouped = earlier.format == TournamentFormat.ROUND_ROBIN and earlier.groups > 1
    per = len(selectors.groups_of(earlier)) if grouped else 1  # going through: count each
    if count is None or not 1 <= count or not 2 <= count * per <= MAX_QUALIFIERS:
        problems["qualifiers"] = [
            _("Enter a whole number of qualifiers from 2 to %(n)d.") % {"n": MAX_QUALIFIERS}
            if not grouped
            else _("Enter how many go through from each group: in all from 2 to %(n)d.")
            % {"n": MAX_QUALIFIERS}
        ]
    elif count > available:
        problems["qualifiers"] = [
            (
                _("Only %(n)d entries of each group can go through.")
                if grouped
                else _("Only %(n)d entries can go through.")
            )
            % {"n": available}
        ]
    settings = {field: getattr(earlier, field) for field in KEPT}
    settings.update(
        name=(name or "").strip() or _default_name(earlier),
        format=format,
        starts_at=now + timedelta(minutes=earlier.round_minutes),
        checkin_required=False,
        late_until_round=0,
        cuts=[],
        duplicate=earlier.duplicate and format not in KNOCKOUT_FORMATS,
        third_place=False,
    )
    if cycles not in (None, ""):
        settings["cycles"] = cycles  # checked with the others: a round robin's, 1 or 2
    if series not in (None, ""):
        # checked with the others: a single elimination's; added 级分 need the scoring
        settings.update(series=series, scoring=earlier.scoring)
    if format == TournamentFormat.SWISS:
        settings["rounds_planned"] = (
            rounds if rounds not in (None, "") else max(1, math.ceil(math.log2(max(count or 2, 2))))
        )
    clean: dict[str, object] = {}
    try:
        clean = settings_form.check_settings(settings, None, now)
    except TournamentError as error:
        found = getattr(error, "fields", None) or {"format": [error.message]}
        for field, messages in found.items():
            problems.setdefault(field, []).extend(messages)
    if problems:
        raise _refusal(problems)
    chosen = qualifiers(earlier, count)  # type: ignore[arg-type]
    stage = Tournament.objects.create(
        **{
            **clean,
            "club": earlier.club,
            "created_by": user,
            "previous_stage": earlier,
            "scoring": earlier.scoring,  # 场分/级分 carried on: one ranking rule per event
            "status": TournamentStatus.SCHEDULED,
            # the entries are the qualifiers: nobody else registers
            "registration_opens": now,
            "registration_closes": now,
        }
    )
    Entry.objects.bulk_create(
        Entry(
            tournament=stage,
            name=q.entry.name,
            player1_id=q.entry.player1_id,
            player2_id=q.entry.player2_id,
            team=q.entry.team,
            seed=seed,
            status=EntryStatus.REGISTERED,
            registered_at=now,
        )
        for seed, q in enumerate(chosen, start=1)
    )
    # each qualifier's players are told, once (the stage is made once: the unique constraint)
    notifications.notify_qualified(
        stage, earlier, list(stage.entries.select_related("player1", "player2").order_by("seed"))
    )
    return stage


#: The formats a next stage may take, with the words the form shows.
STAGE_FORMATS = (
    (TournamentFormat.ELIMINATION, TournamentFormat.ELIMINATION.label),
    (TournamentFormat.DOUBLE_ELIMINATION, TournamentFormat.DOUBLE_ELIMINATION.label),
    (TournamentFormat.SWISS, TournamentFormat.SWISS.label),
    (TournamentFormat.ROUND_ROBIN, TournamentFormat.ROUND_ROBIN.label),
)
