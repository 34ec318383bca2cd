"""Template tags of the officials app for pages of the apps below it, which may not import
it: the league fixture page includes ``officials/_fixture_section.html`` (see
``leagues.views.FIXTURE_PAGE_SECTIONS``), which asks :func:`fixture_appeals` here."""

from __future__ import annotations

from dataclasses import dataclass

from django import template
from django.urls import reverse
from django.utils import timezone

from clubs.models import User
from leagues.models import Fixture, FixtureTable
from officials import selectors
from officials.models import Appeal

register = template.Library()


@dataclass(frozen=True)
class FixtureAppeals:
    """What a fixture's page shows of appeals: the tables the viewer may still appeal (with
    the appeal form's address and the time it closes), and the appeals about the fixture's
    tables that the viewer reads."""

    tables: list[tuple[FixtureTable, str, str]]
    appeals: list[Appeal]


@register.simple_tag
def fixture_appeals(user: object, fixture: Fixture) -> FixtureAppeals:
    """The appeals box of ``fixture``'s page for ``user`` (empty for a visitor)."""
    viewer = user if isinstance(user, User) else None
    season = fixture.round.season
    panel = selectors.panel_of(season)
    now = timezone.now()
    tables: list[tuple[FixtureTable, str, str]] = []
    form = reverse("officials:season_appeal", args=[season.pk])
    for table in fixture.tables.select_related("fixture__round__season"):
        if selectors.may_appeal_table(viewer, table, now):
            deadline = selectors.table_deadline(panel, table)
            until = timezone.localtime(deadline).strftime("%H:%M") if deadline else ""
            tables.append((table, f"{form}?table={table.pk}", until))
    appeals = [
        a
        for a in selectors.appeals_for(viewer, panel)
        if a.table_id is not None and a.table is not None and a.table.fixture_id == fixture.pk
    ]
    return FixtureAppeals(tables, appeals)
