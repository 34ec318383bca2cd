"""Translations: complete in both languages, Chinese by default, browser preference honoured;
no visible template text outside the catalogue; one term per concept (docs/glossary.md);
counts take their plural form."""

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import polib
import pytest
from django.utils import translation

from matches.messages import TABLE_WORDS

ROOT = Path(__file__).resolve().parent.parent
LOCALES = {
    "zh_Hans": ROOT / "locale/zh_Hans/LC_MESSAGES/django.po",
    "en": ROOT / "locale/en/LC_MESSAGES/django.po",
}


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_po_files_have_no_empty_or_fuzzy_entries(language):
    po = polib.pofile(str(LOCALES[language]))
    active = [e for e in po if not e.obsolete]
    assert len(active) > 100
    empty = [
        e.msgid
        for e in active
        if (e.msgid_plural and not all(e.msgstr_plural.values()))
        or (not e.msgid_plural and not e.msgstr)
    ]
    assert empty == []
    assert [e.msgid for e in active if "fuzzy" in e.flags] == []


def test_chinese_translations_are_chinese():
    po = polib.pofile(str(LOCALES["zh_Hans"]))
    untranslated = [
        e.msgid
        for e in po
        if not e.obsolete and not e.msgid_plural and e.msgstr == e.msgid and e.msgid not in {"API"}
    ]
    assert untranslated == []


def test_every_source_string_is_in_the_catalogues(tmp_path):
    """Run makemessages on a copy of the sources: it must find no msgid the .po files lack."""
    if not shutil.which("xgettext"):
        pytest.skip("gettext (xgettext) is not installed")
    for name in ("manage.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    for name in (
        "config",
        "clubs",
        "games",
        "outbox",
        "matches",
        "friends",
        "learn",
        "sheets",
        "ladder",
        "tournaments",
        "leagues",
        "records",
        "officials",
        "engine",
        "templates",
        "locale",
    ):
        if (ROOT / name).exists():
            shutil.copytree(
                ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__")
            )
    result = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", "--no-obsolete"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    fresh = polib.pofile(str(tmp_path / "locale/zh_Hans/LC_MESSAGES/django.po"))
    committed = {
        (e.msgctxt, e.msgid) for e in polib.pofile(str(LOCALES["zh_Hans"])) if not e.obsolete
    }
    missing = sorted(e.msgid for e in fresh if (e.msgctxt, e.msgid) not in committed)
    assert missing == [], (
        "Untranslated strings: run `python manage.py makemessages -l zh_Hans -l en` "
        "and translate them"
    )


def test_default_language_is_simplified_chinese(client, db):
    response = client.get("/")
    assert response["Content-Language"] == "zh-hans"
    assert "俱乐部" in response.content.decode()


@pytest.mark.parametrize(
    ("accept", "expected"),
    [("en-US,en;q=0.9", "en"), ("zh-CN,zh;q=0.9", "zh-hans"), ("fr-FR", "zh-hans")],
)
def test_browser_preference_is_honoured(client, db, accept, expected):
    response = client.get("/clubs/", HTTP_ACCEPT_LANGUAGE=accept)
    assert response["Content-Language"] == expected


def test_language_switch_sets_the_cookie_and_the_profile(client, django_user_model):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/clubs/"})
    assert response.status_code == 302
    assert client.get("/clubs/")["Content-Language"] == "en"
    user = django_user_model.objects.create_user("p", password="x")
    client.force_login(user)
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    user.refresh_from_db()
    assert user.language == "en"


def test_profile_language_applies_after_login(client, django_user_model):
    user = django_user_model.objects.create_user("q", password="x", language="en")
    client.force_login(user)
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response["Content-Language"] == "en"
    assert "Practice against bots" in response.content.decode()  # no club: practice first


TEMPLATE_TAG = re.compile(r"({%.*?%}|{{.*?}}|{#.*?#})", re.S)
#: Words a reader sees: two Latin letters in a row, or one Chinese character.
WORDS = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")
#: Attributes a browser shows or reads aloud.
SHOWN_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "label"}
QUIET_BLOCKS = {"blocktranslate": "endblocktranslate", "comment": "endcomment"}


def template_text(source):
    """A template's own text: every tag and variable becomes a space, and what a
    ``blocktranslate`` (translated) or ``comment`` block holds is left out."""
    out, closing = [], []
    for part in TEMPLATE_TAG.split(source):
        if part.startswith("{%"):
            name = (part[2:-2].split() or [""])[0]
            if name in QUIET_BLOCKS:
                closing.append(QUIET_BLOCKS[name])
            elif closing and name == closing[-1]:
                closing.pop()
            out.append(" ")
        elif part.startswith(("{{", "{#")):
            out.append(" ")
        elif not closing:
            out.append(part)
    return "".join(out)


class ShownText(HTMLParser):
    """Collects the text a page shows (not scripts or styles) and its shown attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style")
        self.found += [
            f"{tag}[{k}]={v!r}" for k, v in attrs if k in SHOWN_ATTRIBUTES and WORDS.search(v or "")
        ]

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.hidden and WORDS.search(data):
            self.found.append(data.strip())


def shown_words(source, html=True):
    """The words of a template a reader sees without going through the catalogue."""
    text = template_text(source)
    if not html:
        return [text.strip()] if WORDS.search(text) else []
    parser = ShownText()
    parser.feed(text)
    return parser.found


def test_the_word_finder_finds_text_outside_the_catalogue():
    assert shown_words('<p>Hello {% translate "x" %}</p>') == ["Hello"]
    assert shown_words('<button title="Close">{{ x }}</button>') == ["button[title]='Close'"]
    assert shown_words("<p>{% blocktranslate %}Hi{% endblocktranslate %} 你好</p>") == ["你好"]
    assert shown_words('<script>const a = "no";</script>{# note #}<b>{{ name }}</b>') == []


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "templates").rglob("*.html")) + sorted((ROOT / "templates").rglob("*.txt")),
    ids=lambda p: str(p.relative_to(ROOT / "templates")),
)
def test_templates_show_no_text_outside_the_catalogue(path):
    """Every word a page or an e-mail shows comes from ``translate`` / ``blocktranslate`` (or
    from data), so both languages see their own."""
    assert shown_words(path.read_text(encoding="utf-8"), html=path.suffix == ".html") == []


def glossary():
    """The glossary's rows that name words not to use: (English terms, forbidden words)."""
    rows = []
    for line in (ROOT / "docs/glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[3] and cells[0] not in ("Concept", "---"):
            rows.append(([t.strip() for t in cells[1].split(",")], cells[3].split("、")))
    return rows


def test_one_term_per_concept():
    """A translation of a string naming a glossary concept never uses the words the glossary
    rules out for it (e.g. a ladder is 天梯, not 排行榜; a rating 等级分, not 积分)."""
    rows = glossary()
    assert len(rows) >= 8
    po = polib.pofile(str(LOCALES["zh_Hans"]))
    wrong = []
    for terms, forbidden in rows:
        names = re.compile("|".join(rf"\b{re.escape(t)}s?\b" for t in terms), re.I)
        for e in po:
            shown = [e.msgstr, *e.msgstr_plural.values()]
            if not e.obsolete and names.search(e.msgid):
                wrong += [(e.msgid, word) for word in forbidden if any(word in s for s in shown)]
    assert wrong == []


def test_a_count_of_one_is_singular():
    with translation.override("en"):
        assert str(TABLE_WORDS["card_one"]) % {"n": 1} == "1 card"
        assert str(TABLE_WORDS["cards"]) % {"n": 5} == "5 cards"
        assert str(TABLE_WORDS["cards_left_one"]) % {"n": 1} == "1 card left"
    with translation.override("zh-hans"):
        assert str(TABLE_WORDS["card_one"]) % {"n": 1} == "1 张"
