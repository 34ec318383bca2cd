"""What the officials add to the pages of apps below them (live play cannot ask this app:
it offers hooks, registered in :meth:`officials.apps.OfficialsConfig.ready`)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone

from leagues.models import FixtureTable
from matches.models import Table
from officials import selectors
from tournaments.models import Game


def appeal_panel(request: Any, table: Table, match: Any) -> dict[str, Any] | None:
    """On a live table's page, the way to a written appeal (第三十九条) for a player who may
    still appeal its result: the tournament game or league table it played, and until when
    (None for anyone else, and once the time to appeal is over)."""
    user = request.user
    if not user.is_authenticated:
        return None
    now = timezone.now()
    game = Game.objects.select_related("round__tournament").filter(table=table).first()
    if game is not None:
        tournament = game.round.tournament
        if game not in selectors.appealable_games(user, tournament, now):
            return None
        url = reverse("officials:appeal_new", args=[tournament.pk])
        deadline = selectors.appeal_deadline(selectors.panel_of(tournament), game)
        target: Game | FixtureTable = game
    else:
        row = (
            FixtureTable.objects.select_related("fixture__round__season")
            .filter(table_ref=table.pk)
            .first()
        )
        if row is None:
            return None
        season = row.fixture.round.season
        if row not in selectors.appealable_tables(user, season, now):
            return None
        url = reverse("officials:season_appeal", args=[season.pk])
        deadline = selectors.table_deadline(selectors.panel_of(season), row)
        target = row
    return {
        "template": "officials/_table_appeal.html",
        "url": f"{url}?table={target.pk}",
        "deadline": deadline,
    }
