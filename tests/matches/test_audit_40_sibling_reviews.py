"""Audit of issue 40, item 1 (``/work/notes/audit-40-41.md``): "no sibling's replay, history
or cards are shown to anyone ... until every sibling has finished", through every way out.

Since the reviews app (2c87e54) a finished match is also reachable by the review API
(``/api/v1/tables/<id>/review/``: the strong bot's review of each seat's decisions), the share
page and the result card. The sibling tests cover the socket, the table and replay pages and
an API without table paths; this covers the new ways: while the second table of a league team
fixture plays, the first (forfeited) table's review, share page and card answer 404 to its
own players, the other table's players, the organiser, a spectator, an outsider and the
anonymous visitor; once the second ends they open. The schema's only table path is the review.
"""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from matches.services import play
from tests.matches.test_siblings import Fixture

pytestmark = pytest.mark.integration


@pytest.fixture
def fx(transactional_db, scheduled):
    return Fixture()


def answers(table_id, viewers):
    """Each viewer's statuses of the review API, the share page and the card (zh and en)."""
    out = {}
    for name, user in viewers.items():
        api, web = APIClient(), Client()
        if user is not None:
            api.force_authenticate(user)
            web.force_login(user)
        review = api.get(f"/api/v1/tables/{table_id}/review/")
        out[name] = (
            review.status_code,
            web.get(f"/reviews/share/{table_id}/").status_code,
            web.get(f"/reviews/card/{table_id}/zh-hans.png").status_code,
            web.get(f"/reviews/card/{table_id}/en.png").status_code,
        )
        if review.status_code == 404:
            assert "seats" not in review.json() and "match" not in review.json(), name
    return out


def test_a_siblings_review_share_page_and_card_wait_for_the_whole_group(fx):
    one, two = fx.tables
    play.referee_sanction(fx.organiser, fx.match(0).pk, "forfeit", 1, "弃权")
    assert fx.match(0).status == "finished" and fx.match(1).status == "playing"
    viewers = {
        "table 1 player": fx.seated[0][0],
        "table 2 player": fx.seated[1][0],
        "organiser": fx.organiser,
        "spectator": fx.spectator,
        "outsider": fx.outsider,
        "anonymous": None,
    }
    for name, statuses in answers(one.pk, viewers).items():
        assert statuses == (404, 404, 404, 404), name
    play.referee_sanction(fx.organiser, fx.match(1).pk, "forfeit", 0, "弃权")
    for table in (one, two):
        for name, statuses in answers(table.pk, viewers).items():
            assert statuses == (200, 200, 200, 200), (table.pk, name)


def test_the_only_table_path_of_the_api_is_the_review():
    """Any new API path under a table must come through the replay's rule (this file and
    test_siblings then need its case); none names a replay or events."""
    schema = APIClient().get("/api/schema/?format=json").json()
    table_paths = [path for path in schema["paths"] if "/tables/" in path]
    assert table_paths == ["/api/v1/tables/{table_id}/review/"], table_paths
    for path in schema["paths"]:
        assert "replay" not in path and "events" not in path, path
