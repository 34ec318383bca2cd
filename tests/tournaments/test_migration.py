"""The tournament models moved from ``ladder`` to ``tournaments`` without touching the data:
rows written before the move are found through the new models after it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tournaments.models import Entry, Tournament

#: The leaf migrations before the move (score sheets still in matches, no sheets app yet; the
#: apps that build on later migrations of the moved ones — friends, reviews, officials — not
#: yet either).
BEFORE = [
    ("ladder", "0004_red_two_tournaments"),
    ("matches", "0003_match_revision"),
    ("sheets", None),
    ("friends", None),
    ("reviews", None),
    ("officials", None),
]
MOVED = ("ladder", "tournaments", "matches", "sheets", "friends", "reviews", "officials")


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


@pytest.mark.django_db(transaction=True)
def test_tournaments_and_entries_survive_the_move():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    before = BEFORE + [node for node in latest if node[0] not in MOVED]
    try:
        executor = _migrate(before)
        old = executor.loader.project_state([t for t in before if t[1] is not None]).apps
        with pytest.raises(LookupError):  # before the move the models are ladder's
            old.get_model("tournaments", "Tournament")
        user = old.get_model("clubs", "User").objects.create(username="mover")
        club = old.get_model("clubs", "Club").objects.create(name="搬家俱乐部", slug="movers")
        tournament = old.get_model("ladder", "Tournament").objects.create(
            club_id=club.pk,
            name="春季赛",
            variant="bao2",
            starts_at=datetime(2026, 3, 1, 9, tzinfo=UTC),
        )
        entry = old.get_model("ladder", "Entry").objects.create(
            tournament_id=tournament.pk, player1_id=user.pk, name="Mover", seed=1
        )
    finally:
        _migrate(latest)

    moved = Tournament.objects.get(pk=tournament.pk)
    assert (moved.name, moved.club_id, moved.variant) == ("春季赛", club.pk, "bao2")
    assert list(Entry.objects.filter(tournament=moved).values_list("pk", "player1_id")) == [
        (entry.pk, user.pk)
    ]
    assert Tournament._meta.db_table == "ladder_tournament"
    assert Tournament._meta.app_label == "tournaments"
