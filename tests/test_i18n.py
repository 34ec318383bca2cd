"""Translations: complete in both languages, Chinese by default, browser preference honoured."""

import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

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
        "sheets",
        "ladder",
        "tournaments",
        "leagues",
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
    assert "My clubs" in response.content.decode()
