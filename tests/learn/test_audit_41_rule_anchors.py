"""Audit of issue 41, part 3 (``/work/notes/audit-40-41.md``): "a refused play links to its
rule" and the table's "?" opens "the rule that applies to the current moment". The table's
script maps a refusal's code (and the immune window, a tribute) to a section of the game's
guide (``RULE_OF_CODE`` in static/js/table.js); the browser tests follow two of those links.
This checks every section the script can name is on the guide it opens: a link can never
land on a missing anchor (the top of the page) after a section is renamed."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db

TABLE_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "table.js"


def script_anchors() -> dict[str, str]:
    text = TABLE_JS.read_text()
    found = re.search(r"const RULE_OF_CODE = \{(.*?)\};", text, re.S)
    assert found, "RULE_OF_CODE not found in table.js"
    pairs = dict(re.findall(r'(\w+): "([\w-]*)"', found.group(1)))
    assert len(pairs) >= 6, pairs
    # the moments' sections the script falls back to
    for moment in ("immune", "tribute"):
        assert f'anchor = "{moment}"' in text, moment
    return pairs


def ids_of(client, variant: str) -> set[str]:
    response = client.get(f"/learn/rules/{variant}/")
    assert response.status_code == 200
    return set(re.findall(r'id="([\w-]+)"', response.content.decode()))


def test_every_section_the_table_links_to_is_on_its_guide(client):
    anchors = {anchor for anchor in script_anchors().values() if anchor}
    # Bao 2 has every moment: each refusal's section and the immune window's and tribute's
    assert anchors | {"immune", "tribute"} <= ids_of(client, "bao2")
    # Guandan: tribute and 报牌 too, no 小2 and no immune window
    assert anchors - {"little-2"} | {"tribute"} <= ids_of(client, "guandan")
    # the other games: the sections of the refusals any game can give
    for variant in ("honger", "shuangkou2"):
        assert {"combos", "play"} <= ids_of(client, variant), variant
