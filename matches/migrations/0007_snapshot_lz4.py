"""The match snapshot compressed with LZ4 on PostgreSQL (14 and later, when built with it).

Every action rewrites the whole snapshot; once it passes about 2 KB PostgreSQL compresses it,
and its default compression (pglz) took a third of the write's CPU for a long match's
snapshot (bench/snapshot_compression.py). Only new values are affected. Other
databases, and a server without LZ4, keep what they have.
"""

from django.db import migrations


def _set_compression(method: str):
    def run(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql" or connection.pg_version < 140000:
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT %s = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'",
                [method],
            )
            if not cursor.fetchone()[0]:  # a server built without it
                return
            table = connection.ops.quote_name(apps.get_model("matches", "Match")._meta.db_table)
            cursor.execute(f"ALTER TABLE {table} ALTER COLUMN snapshot SET COMPRESSION {method}")

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0006_bot_kinds"),
    ]

    operations = [
        migrations.RunPython(_set_compression("lz4"), _set_compression("pglz")),
    ]
