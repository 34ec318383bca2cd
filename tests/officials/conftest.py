"""The officials tests use the ladder tests' fixtures (users, a club and its members, an
eager Celery)."""

from tests.ladder.conftest import (  # noqa: F401  (fixtures)
    club,
    club_admin,
    make_users,
    members,
    record,
)
