"""The trigram indexes of migration clubs 0002: on PostgreSQL a name search uses them; on
SQLite the migration creates nothing."""

import pytest
from django.db import connection

from clubs.models import User
from ladder import selectors


@pytest.mark.django_db
def test_name_search_uses_the_trigram_indexes_on_postgresql():
    User.objects.create_user(username="qishou012345", display_name="棋手012345")
    queryset = selectors._matching_users("棋手012345")
    assert list(queryset) == [{"pk": User.objects.get().pk}]
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%trgm%'"
            )
            assert cursor.fetchall() == []
            return
        sql, params = queryset.query.sql_with_params()
        cursor.execute("SET LOCAL enable_seqscan = off")  # a tiny table: make the choice visible
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "clubs_user_username_trgm" in plan
    assert "clubs_user_display_name_trgm" in plan
