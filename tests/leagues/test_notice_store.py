"""League notices are kept once per key by the outbox's notices (issue 42, point 3): the
league's own store (``leagues.Notice``) is gone, and its keys live on as outbox notices."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.apps import apps as django_apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from leagues.notifications import notify
from outbox.models import Notification, OutboxMessage

BEFORE = [("leagues", "0003_tiebreak_wins_standings_key")]
AFTER = [("leagues", "0004_notices_kept_by_the_outbox")]


def test_the_league_keeps_no_store_of_its_own():
    assert "notice" not in {
        m._meta.model_name for m in django_apps.get_app_config("leagues").get_models()
    }


@pytest.mark.django_db
def test_a_key_told_once_is_not_told_again_not_even_by_email_later(world):
    user = world.user()
    email, user.email = user.email, ""
    user.save(update_fields=["email"])
    assert (
        notify(f"league:test:1:user:{user.pk}", user, "Round open", "Play.", "/leagues/") is False
    )
    assert Notification.objects.filter(key=f"league:test:1:user:{user.pk}").count() == 1
    user.email = email  # an address added since: the old cause is still not e-mailed
    user.save(update_fields=["email"])
    assert (
        notify(f"league:test:1:user:{user.pk}", user, "Round open", "Play.", "/leagues/") is False
    )
    assert not OutboxMessage.objects.filter(key__startswith="league:test:1:").exists()
    assert notify(f"league:test:2:user:{user.pk}", user, "Next", "Play.", "/leagues/") is True


@pytest.mark.django_db(transaction=True)
def test_the_old_stores_keys_become_read_outbox_notices(world):
    user = world.user()
    sent = datetime(2026, 12, 1, 12, tzinfo=UTC)
    try:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(BEFORE)
        old = MigrationExecutor(connection).loader.project_state(BEFORE).apps
        Notice = old.get_model("leagues", "Notice")
        told = f"league:round-open:9:user:{user.pk}"  # told before the outbox kept notices
        both = f"league:agreed:3:user:{user.pk}"  # already an outbox notice too
        Notice.objects.create(key=told, sent_at=sent)
        Notice.objects.create(key=both, sent_at=sent)
        Notice.objects.create(key="league:round-open:9:user:999999", sent_at=sent)  # user gone
        Notification.objects.create(key=both, user=user, kind="leagues", text="kept")
        OutboxMessage.objects.create(key=told, to=user.email, subject="Round 9 is open", body="b")
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    kept = Notification.objects.get(key=told)
    assert (kept.user, kept.kind, kept.text) == (user, "leagues", "Round 9 is open")
    assert kept.read_at == sent == kept.created_at
    assert Notification.objects.get(key=both).text == "kept"
    assert not Notification.objects.filter(key__endswith=":user:999999").exists()
    assert notify(told, user, "Round 9 is open", "Play.", "/leagues/") is False
    assert OutboxMessage.objects.filter(key=told).count() == 1
