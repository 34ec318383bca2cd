"""tests/dbcache.py: which template a stack's settings module copies.

The worker settings of the outbox, records, reliability and reviews tests only star-import the
project's settings (through each other) and change timeouts and schedules: their stacks copy
the one migrated template of the project's settings instead of migrating one each (a migrate
per settings module cost 10-15 CPU-seconds and up to 100 s of a loaded run). A settings module
that names a setting the migrations read keeps a template of its own.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import dbcache

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("module", "folders"),
    [
        ("outbox_worker_settings", ["outbox"]),
        ("records_worker_settings", ["records", "outbox"]),
        ("reliability_worker_settings", ["reliability", "outbox"]),
        ("redis_restart_settings", ["reliability", "outbox"]),
        ("reviews_end_settings", ["reviews", "outbox"]),
        ("config.settings", []),
    ],
)
def test_the_worker_settings_have_the_projects_schema(module, folders):
    env = {
        "DJANGO_SETTINGS_MODULE": module,
        "PYTHONPATH": os.pathsep.join(str(TESTS / folder) for folder in folders),
    }
    assert dbcache.schema_settings_module(env) == "config.settings"
    assert dbcache.migrations_key(env) == dbcache.migrations_key(
        {"DJANGO_SETTINGS_MODULE": "config.settings"}
    )


@pytest.mark.parametrize(
    "source",
    [
        "from config.settings import *\nINSTALLED_APPS = [*INSTALLED_APPS, 'extra']\n",
        "from config.settings import *\nINSTALLED_APPS += ['extra']\n",
        "from config.settings import *\nimport config.settings as s\ns.MIGRATION_MODULES = {}\n",
        "from config.settings import *\nAUTH_USER_MODEL = 'other.User'\n",
        "from config.settings import *\nDEFAULT_AUTO_FIELD = 'django.db.models.AutoField'\n",
        "from os import *\nDEBUG = False\n",  # not the project's settings at all
        "from config.settings import *\nfrom outbox_worker_settings import *\n",  # two bases
    ],
)
def test_settings_that_may_change_the_schema_keep_a_template_of_their_own(tmp_path, source):
    (tmp_path / "changed_settings.py").write_text(source)
    env = {"DJANGO_SETTINGS_MODULE": "changed_settings", "PYTHONPATH": str(tmp_path)}
    assert dbcache.schema_settings_module(env) == "changed_settings"
    assert dbcache.migrations_key(env) != dbcache.migrations_key(
        {"DJANGO_SETTINGS_MODULE": "config.settings"}
    )


def test_a_settings_module_not_found_keeps_its_own_name():
    env = {"DJANGO_SETTINGS_MODULE": "no_such_settings_module", "PYTHONPATH": ""}
    assert dbcache.schema_settings_module(env) == "no_such_settings_module"
