"""A person in seat 0 of a new club table on the run's shared stack (tests/conftest.py's
``shared_stack``), bots or named people in the other seats, and that person's page: the
set-up of issue 43's browser tests of the away summary and the side seats' names.

One table and one page per test: a test measures the four sizes by resizing that page
(:func:`sizes`), not with a table and a browser context per size."""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))

from test_table_layout import VIEWPORTS, settle  # noqa: E402

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
#: The four sizes in the order a page is resized through them (the phone last).
PHONE_LAST = ["phone-landscape", "tablet", "laptop", "phone"]

# The person (seat 0, their language and text size set), bots in the other seats but those
# PEOPLE names (seat -> display name: a member who never connects), the match started with
# SEED.
SETUP = """
from django.db import transaction
from clubs.models import Club, Membership
from matches.models import Seat, Table
from matches.services import tables
from bench.tables import _user, session_cookie
with transaction.atomic():
    n = Table.objects.count()
    person = _user(f"seated-{n}")
    person.language = "zh-hans"
    person.text_size = TEXT_SIZE
    person.save(update_fields=["language", "text_size"])
    club, _ = Club.objects.get_or_create(slug="seated", defaults={"name": "seated"})
    Membership.objects.get_or_create(club=club, user=person)
    table = tables.open_table(person, club, variant=VARIANT, options=OPTIONS)
    Seat.objects.filter(table=table, index__gte=1).update(bot="heuristic")
    for index, name in PEOPLE.items():
        other = _user(f"seated-{n}-{index}")
        other.display_name = name
        other.save(update_fields=["display_name"])
        Membership.objects.get_or_create(club=club, user=other)
        Seat.objects.filter(table=table, index=index).update(bot="", user=other)
    match = tables.start_match(table, seed=SEED)
out = {"table": table.pk, "match": match.pk, "session": session_cookie(person).split("=", 1)[1]}
"""


def open_page(
    browser,
    stack,
    variant,
    seed,
    *,
    size="phone",
    text_size="standard",
    options=None,
    people=None,
):
    """The person's page at a new table, ``size`` one of the four viewports; returns the
    browser context and the page (``page.info``: the table, the match, the session;
    ``page.touch``: a touch screen)."""
    code = (
        SETUP.replace("VARIANT", repr(variant))
        .replace("OPTIONS", repr(options or {}))
        .replace("SEED", repr(seed))
        .replace("TEXT_SIZE", repr(text_size))
        .replace("PEOPLE", repr(dict(people or {})))
    )
    info = stack.query(code)
    width, height = VIEWPORTS[size]
    # a touch screen of a phone's size: the layout in CSS px does not depend on the touch
    # flag, so the page keeps it when it is resized to the laptop's size
    context = browser.new_context(
        locale="zh-CN",
        base_url=stack.http,
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
    )
    context.add_cookies([{"name": "sessionid", "value": info["session"], "url": stack.http}])
    page = context.new_page()
    page.goto(f"/matches/tables/{info['table']}/")
    page.info = info
    page.touch = True
    return context, page


def sizes(page, names=PHONE_LAST):
    """Resize ``page`` to each size of ``names`` in turn, the layout settled; yields the name
    and the viewport's (width, height)."""
    for name in names:
        width, height = VIEWPORTS[name]
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        yield name, (width, height)


#: Seat 0 drops out (auto-play) until it has played or passed at least twice (a stack query:
#: MATCH replaced by the match id).
AWAY = """
import time
from matches.models import Match, Actor
from matches.services import presence
match = Match.objects.get(pk=MATCH)
presence.set_autoplay(match.pk, 0, "disconnect")
end = time.monotonic() + 120
while time.monotonic() < end:
    if match.events.filter(seat=0, actor=Actor.AUTOPLAY).count() >= 2:
        break
    time.sleep(0.2)
presence.set_autoplay(match.pk, 0, "")
out = {"auto": match.events.filter(seat=0, actor=Actor.AUTOPLAY).count()}
"""
