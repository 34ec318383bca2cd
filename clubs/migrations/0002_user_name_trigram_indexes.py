"""Trigram indexes for name searches (PostgreSQL only).

Player searches (leaderboards, member lists) filter with ``username__icontains`` /
``display_name__icontains``, which PostgreSQL runs as ``UPPER(col::text) LIKE UPPER('%q%')``:
a substring match no B-tree index can serve. A ``pg_trgm`` GIN index on exactly that expression
lets PostgreSQL answer it from the index. SQLite has no such index type; there the migration
does nothing (searches stay correct, only slower on very large tables). The indexes are not in
the model state, so ``makemigrations`` never sees them.
"""

from django.db import migrations

INDEXES = {
    "clubs_user_username_trgm": "username",
    "clubs_user_display_name_trgm": "display_name",
}


def create_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")
        if cursor.fetchone() is None:
            return  # PostgreSQL built without contrib: searches work, without the index
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, column in INDEXES.items():
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS "{name}" ON "clubs_user" '
            f'USING gin ((UPPER(("{column}")::text)) gin_trgm_ops)'
        )


def drop_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')


class Migration(migrations.Migration):
    dependencies = [("clubs", "0001_initial")]

    operations = [migrations.RunPython(create_indexes, drop_indexes, elidable=False)]
