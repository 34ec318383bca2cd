"""schemathesis over the whole API: no generated request, valid or not, gets a server error.

The API's own OpenAPI schema (``/api/schema/``) drives schemathesis (configuration:
``schemathesis.toml`` at the repository's root: checks, examples per operation), each
operation called as a signed-in club member (an API token) and as an anonymous visitor,
through the real Django application on the test database. It runs in the PostgreSQL pass of
``./test`` only (marker ``postgresql``): PostgreSQL's integer and text limits are stricter
than SQLite's, and once is enough for CI's time. The requests found to fail so far are pinned in test_api_fuzz_regressions.py.
"""

from pathlib import Path

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, settings

from clubs import services as club_services
from clubs.models import Membership, Role
from config.throttling import AnonRateThrottle, UserRateThrottle
from config.wsgi import application
from ladder.models import Ladder, Rating
from tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.postgresql  # once, on the stricter database: about a minute

CONFIG = Path(__file__).resolve().parent.parent / "schemathesis.toml"


@pytest.fixture(autouse=True)
def connection_kept():
    """Keep the test's database connection across requests, as Django's test client does:
    the WSGI handler closes it after each request, which would end the test's transaction
    (PostgreSQL: "the connection is closed")."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def generous_throttles(monkeypatch):
    """The throttles allow the run's few thousand requests a minute (their own tests are
    elsewhere): a 429 would hide what the request would have got."""
    rates = {"anon": "100000/min", "user": "100000/min"}
    for throttle in (AnonRateThrottle, UserRateThrottle):
        monkeypatch.setattr(throttle, "THROTTLE_RATES", rates)


@pytest.fixture
def callers(db):
    """The headers of a club member (an API token) and of an anonymous visitor; with a club that
    has a member, an admin, a ladder with a rating and a published tournament, so that
    generated ids and slugs sometimes name real rows."""
    owner = club_services.sign_up(username="st-owner", password="Owner-pass-2026")
    member = club_services.sign_up(username="st-member", password="Member-pass-2026")
    club = club_services.create_club(owner, name="Schemathesis club", slug="st")
    Membership.objects.create(club=club, user=member, role=Role.MEMBER)
    ladder = Ladder.objects.create(club=club, variant="bao2")
    Rating.objects.create(ladder=ladder, user=member, rating=1500)
    Tournament.objects.create(
        club=club,
        name="Open",
        variant="bao2",
        starts_at=timezone.now(),
        status=TournamentStatus.SCHEDULED,
        created_by=owner,
    )
    _token, key = club_services.create_api_token(member, "schemathesis")
    return {"member": {"Authorization": f"Token {key}"}, "anonymous": {}}


# Read when the tests are collected: the schema is built from the code, not the database.
schema = schemathesis.openapi.from_wsgi(
    "/api/schema/", application, config=schemathesis.Config.from_path(CONFIG)
)


@schema.parametrize()
# The callers' rows are made once per operation and shared by its examples, on purpose.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_request_gets_a_server_error(case, callers):
    for headers in callers.values():
        case.call_and_validate(headers=headers)
