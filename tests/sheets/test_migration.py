"""Score sheets moved from ``matches`` to ``sheets`` without touching their tables: a sheet
stored before the move is found through the new model after it, with its players, entries,
verdicts and content type."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from clubs.models import Club, User
from sheets.models import ScoreSheet

#: The leaf migrations before the move (and no sheets app yet).
BEFORE = [
    ("matches", "0003_match_revision"),
    ("ladder", "0004_red_two_tournaments"),
    ("sheets", None),
]


def _migrate(targets):
    """Migrate the test database to ``targets``; the models as they were there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


@pytest.mark.django_db(transaction=True)
def test_a_sheet_stored_before_the_move_is_found_after_it():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    old = _migrate(BEFORE)
    try:
        OldSheet = old.get_model("matches", "ScoreSheet")
        OldPlayer = old.get_model("matches", "SheetPlayer")
        OldEntry = old.get_model("matches", "SheetEntry")
        OldGame = old.get_model("ladder", "Game")
        assert OldGame._meta.get_field("sheet").related_model is OldSheet
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
        OldPlayer.objects.create(sheet_id=sheet.pk, seat=0, user_id=user.pk)
        OldPlayer.objects.create(sheet_id=sheet.pk, seat=1, guest_name="客人")
        OldEntry.objects.create(sheet_id=sheet.pk, seq=1, entry={"deal": {"finish": [0, 2]}})
    finally:
        new = _migrate(latest)

    moved = ScoreSheet.objects.get(pk=sheet.pk)
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
