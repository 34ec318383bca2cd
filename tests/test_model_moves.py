"""Models moved between apps without touching their data: rows written before the moves are
found through the new models after them.

- The tournament models moved from ``ladder`` to ``tournaments``: a tournament and its entry.
- Score sheets moved from ``matches`` to ``sheets`` without touching their tables: a sheet with
  its players, entries, verdicts and content type.

Both moves are crossed by one round trip of migrations (back to before them, the rows written
through the models as they were there, then every migration applied again): a round trip costs
15-20 CPU-seconds of Django computing migration states, and both moves start from the same
state. Each test then asserts what its move must keep.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from clubs.models import Club, User
from sheets.models import ScoreSheet
from tournaments.models import Entry, Tournament

#: The leaf migrations before the moves (score sheets still in matches, no sheets app yet; the
#: tournaments still ladder's; the apps that build on later migrations of the moved ones —
#: friends, reviews, officials — not yet either).
BEFORE = [
    ("ladder", "0004_red_two_tournaments"),
    ("matches", "0003_match_revision"),
    ("sheets", None),
    ("friends", None),
    ("reviews", None),
    ("officials", None),
]
MOVED = ("ladder", "tournaments", "matches", "sheets", "friends", "reviews", "officials")


def _migrate(targets: list[tuple[str, str | None]]) -> MigrationExecutor:
    """Migrate the test database to ``targets``; an executor that knows the result."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


@dataclass
class Moves:
    """What the round trip left: the models as they were before the moves (``old``) and as
    they are after them (``new``), and the ids of the rows written before."""

    old: Any
    new: Any
    ids: dict[str, int]


def _write_tournament(old: Any, ids: dict[str, int]) -> None:
    """A club, a person, a tournament and its entry, through ladder's models."""
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
    ids.update(mover=user.pk, movers=club.pk, tournament=tournament.pk, entry=entry.pk)


def _write_sheet(old: Any, ids: dict[str, int]) -> None:
    """A score sheet with two players and an entry, and its content type, through matches'
    models."""
    OldSheet = old.get_model("matches", "ScoreSheet")
    ContentType = old.get_model("contenttypes", "ContentType")
    ContentType.objects.get_or_create(app_label="matches", model="scoresheet")
    club = old.get_model("clubs", "Club").objects.create(name="迁移俱乐部", slug="moved")
    user = old.get_model("clubs", "User").objects.create(username="scorer")
    sheet = OldSheet.objects.create(
        club_id=club.pk,
        scorer_id=user.pk,
        variant="bao2",
        options={"colour_twos": True},
        state={"levels": [3, 0]},
        version=1,
    )
    old.get_model("matches", "SheetPlayer").objects.create(
        sheet_id=sheet.pk, seat=0, user_id=user.pk
    )
    old.get_model("matches", "SheetPlayer").objects.create(
        sheet_id=sheet.pk, seat=1, guest_name="客人"
    )
    old.get_model("matches", "SheetEntry").objects.create(
        sheet_id=sheet.pk, seq=1, entry={"deal": {"finish": [0, 2]}}
    )
    ids.update(sheet=sheet.pk)


@pytest.fixture(scope="module")
def moves(django_db_setup, django_db_blocker):
    """The round trip, once for the module, committed (the tests read it inside their own
    rolled-back transactions); its rows deleted afterwards."""
    from django.contrib.contenttypes.models import ContentType

    with django_db_blocker.unblock():
        executor = MigrationExecutor(connection)
        latest = executor.loader.graph.leaf_nodes()
        before = BEFORE + [node for node in latest if node[0] not in MOVED]
        ids: dict[str, int] = {}
        try:
            executor = _migrate(before)
            old = executor.loader.project_state([t for t in before if t[1] is not None]).apps
            _write_tournament(old, ids)
            _write_sheet(old, ids)
        finally:
            executor = _migrate(latest)
        ContentType.objects.clear_cache()  # the ids it kept may have changed
        yield Moves(old, executor.loader.project_state(latest).apps, ids)
        ScoreSheet.objects.filter(pk=ids.get("sheet")).delete()
        Tournament.objects.filter(pk=ids.get("tournament")).delete()
        Club.objects.filter(slug__in=["movers", "moved"]).delete()
        User.objects.filter(username__in=["mover", "scorer"]).delete()
        ContentType.objects.clear_cache()


@pytest.mark.django_db
def test_tournaments_and_entries_survive_the_move(moves):
    with pytest.raises(LookupError):  # before the move the models are ladder's
        moves.old.get_model("tournaments", "Tournament")
    moved = Tournament.objects.get(pk=moves.ids["tournament"])
    assert (moved.name, moved.club_id, moved.variant) == ("春季赛", moves.ids["movers"], "bao2")
    assert list(Entry.objects.filter(tournament=moved).values_list("pk", "player1_id")) == [
        (moves.ids["entry"], moves.ids["mover"])
    ]
    assert Tournament._meta.db_table == "ladder_tournament"
    assert Tournament._meta.app_label == "tournaments"


@pytest.mark.django_db
def test_a_sheet_stored_before_the_move_is_found_after_it(moves):
    old, new = moves.old, moves.new
    OldGame = old.get_model("ladder", "Game")
    assert OldGame._meta.get_field("sheet").related_model is old.get_model("matches", "ScoreSheet")
    moved = ScoreSheet.objects.get(pk=moves.ids["sheet"])
    assert moved.club == Club.objects.get(slug="moved")
    assert moved.scorer == User.objects.get(username="scorer")
    assert (moved.variant, moved.options, moved.state, moved.version) == (
        "bao2",
        {"colour_twos": True},
        {"levels": [3, 0]},
        1,
    )
    assert [(p.seat, p.name) for p in moved.players.order_by("seat")] == [
        (0, "scorer"),
        (1, "客人"),
    ]
    assert list(moved.entries.values_list("seq", flat=True)) == [1]
    assert ScoreSheet._meta.db_table == "matches_scoresheet"
    NewGame = new.get_model("tournaments", "Game")  # moved there from ladder since
    assert NewGame._meta.get_field("sheet").related_model._meta.app_label == "sheets"
    ContentType = new.get_model("contenttypes", "ContentType")
    assert ContentType.objects.filter(app_label="sheets", model="scoresheet").exists()
    assert not ContentType.objects.filter(app_label="matches", model="scoresheet").exists()
