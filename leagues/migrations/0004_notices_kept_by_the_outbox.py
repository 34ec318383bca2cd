"""The league's own store of notices sent (``leagues.Notice``) goes: the outbox's notices
(``outbox.Notification``, one per key) keep the once-per-key rule for leagues as for every
other app. A key of the old store with no notice of the outbox (written before the outbox kept
notices, on 1 December 2026) becomes a notice, marked read at the time it was sent (its text is
its e-mail's subject, or the key), so that a repeated tick does not tell the cause again."""

import re

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

USER = re.compile(r":user:(\d+)$")


def keep_keys(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    """Write an outbox notice for each old key that has none (see the module's docstring)."""
    Notice = apps.get_model("leagues", "Notice")
    Notification = apps.get_model("outbox", "Notification")
    OutboxMessage = apps.get_model("outbox", "OutboxMessage")
    User = apps.get_model("clubs", "User")
    kept = set(Notification.objects.values_list("key", flat=True))
    missing = []
    for notice in Notice.objects.exclude(key__in=kept).iterator():
        found = USER.search(notice.key)
        if found is None:
            continue
        user = User.objects.filter(pk=int(found.group(1))).first()
        if user is None:  # nobody left to tell again
            continue
        mail = OutboxMessage.objects.filter(key=notice.key).first()
        missing.append(
            Notification(
                key=notice.key,
                user=user,
                kind="leagues",
                text=(mail.subject if mail else notice.key)[:300],
                created_at=notice.sent_at,
                read_at=notice.sent_at,
            )
        )
    Notification.objects.bulk_create(missing, ignore_conflicts=True)


class Migration(migrations.Migration):
    """Keep the old keys as outbox notices, then drop ``leagues.Notice``."""

    dependencies = [
        ("leagues", "0003_tiebreak_wins_standings_key"),
        ("outbox", "0002_notifications"),
    ]

    operations = [
        migrations.RunPython(keep_keys, migrations.RunPython.noop),
        migrations.DeleteModel(name="Notice"),
    ]
