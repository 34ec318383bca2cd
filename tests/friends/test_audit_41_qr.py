"""Audit of issue 41, part 2 (``/work/notes/audit-40-41.md``): the friends' table is shared by
"a link, a QR code and a 6-digit code". The access tests check that an ``<svg>`` is on the
host's page; this checks that the QR code encodes this room's own invitation link on the
site's public address (the modules drawn are segno's for exactly that text), and that the
code's page shows none to a guest or a stranger."""

import re

import pytest
import segno
from django.test import Client, override_settings

from friends import services

pytestmark = pytest.mark.integration

SITE = "https://bao2.example.org"


def modules(svg: str) -> str:
    """The dark modules' path of a segno SVG (what a camera reads)."""
    found = re.search(r'class="qrline"[^>]*\sd="([^"]+)"', svg) or re.search(
        r'\sd="(M[^"]+)"[^>]*class="qrline"', svg
    )
    assert found, svg[:300]
    return found.group(1)


@override_settings(SITE_URL=SITE)
def test_the_qr_code_encodes_the_rooms_own_link(people):
    host, friend = people["host"], people["friends"][0]
    room = services.open_room(host, variant="guandan")
    other = services.open_room(friend, variant="bao2")
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(host)
    page = client.get(f"/matches/tables/{room.table_id}/").content.decode()
    svgs = re.findall(r'<details class="qr">.*?(<svg .*?</svg>)', page, re.S)
    assert len(svgs) == 1
    link = f"{SITE}/friends/t/{room.token}/"
    assert link in page
    expected = segno.make(link, error="m").svg_inline(scale=4, light="#fff")
    assert modules(svgs[0]) == modules(expected)
    other_link = f"{SITE}/friends/t/{other.token}/"
    assert modules(svgs[0]) != modules(segno.make(other_link, error="m").svg_inline(scale=4))
    assert 'role="img" aria-label="邀请链接的二维码"' in svgs[0]  # named for screen readers
