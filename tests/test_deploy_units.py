"""The systemd units in deploy/systemd run every service of the platform under a supervisor
that restarts it (issue 40, item 3): their options, their commands (which must exist in the
project and parse as the programs read them), their environment file, and what systemd itself
says of them (``systemd-analyze verify``, where it is installed)."""

from __future__ import annotations

import importlib.util
import ipaddress
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
UNITS = ROOT / "deploy" / "systemd"
ENV_EXAMPLE = ROOT / "deploy" / "bao2club.env.example"
INSTALL = "/srv/bao2club"
ENV_FILE = "/etc/bao2club/env"
USER = "bao2club"

#: unit file -> the program it runs (the web server, a worker per core, the one beat)
EXPECTED = {
    "bao2club-web.service": "web",
    "bao2club-worker@.service": "worker",
    "bao2club-beat.service": "beat",
}
#: what production cannot run without (docs/deploy.md, README's configuration)
REQUIRED_VARIABLES = {
    "SECRET_KEY",
    "DATABASE_URL",
    "REDIS_URL",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "SITE_URL",
    "EMAIL_HOST",
}


def parse_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """A unit file as ``{section: {key: [values, in order]}}`` (systemd's syntax: ``#``/``;``
    comments, repeated keys, a trailing backslash continuing a line)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    pending = ""
    for raw in path.read_text().splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{path.name}: {line!r} outside a section"
        key, sep, value = line.partition("=")
        assert sep, f"{path.name}: {line!r} is not Key=Value"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def one(unit: dict[str, dict[str, list[str]]], section: str, key: str) -> str:
    values = unit.get(section, {}).get(key, [])
    assert len(values) == 1, f"[{section}] {key}: {values}"
    return values[0]


def exec_argv(unit: dict[str, dict[str, list[str]]], instance: str = "1") -> list[str]:
    """``ExecStart`` split as systemd would for instance ``instance`` on host ``host``."""
    command = one(unit, "Service", "ExecStart")
    unknown = re.findall(r"%[^%iH]", command.replace("%%", ""))
    assert not unknown, f"systemd would expand {unknown} in {command!r} (write %% for a %)"
    expanded = re.sub(r"%[%iH]", lambda m: {"%%": "%", "%i": instance, "%H": "host"}[m[0]], command)
    return shlex.split(expanded)


@pytest.fixture(scope="module")
def units() -> dict[str, dict[str, dict[str, list[str]]]]:
    return {path.name: parse_unit(path) for path in sorted(UNITS.glob("*.service"))}


def test_there_is_a_unit_for_every_service(units):
    assert set(units) == set(EXPECTED)


@pytest.mark.parametrize("name", EXPECTED)
def test_systemd_restarts_the_service_whatever_ends_it_and_never_gives_up(units, name):
    unit = units[name]
    assert one(unit, "Service", "Restart") == "always"
    assert 0 < float(one(unit, "Service", "RestartSec")) <= 5
    # without it, 5 starts within 10 s (a crash loop while the database is away) stop the unit
    assert one(unit, "Unit", "StartLimitIntervalSec") == "0"
    assert one(unit, "Install", "WantedBy") == "multi-user.target"


@pytest.mark.parametrize("name", EXPECTED)
def test_the_service_runs_unprivileged_in_the_install_with_the_shared_environment(units, name):
    unit = units[name]
    assert one(unit, "Service", "User") == USER and one(unit, "Service", "Group") == USER
    assert one(unit, "Service", "WorkingDirectory") == INSTALL
    # no "-" prefix: without the file the service must not start (it would run the embedded
    # default: DEBUG, SQLite and a Redis of its own)
    assert one(unit, "Service", "EnvironmentFile") == ENV_FILE
    # a stop signal to the main process only: it stops its children (uvicorn processes, a
    # warm shutdown of the worker's tasks) before systemd kills what is left
    assert one(unit, "Service", "KillMode") == "mixed"
    assert float(one(unit, "Service", "TimeoutStopSec")) >= 10
    assert one(unit, "Service", "Type") == "exec"
    assert one(unit, "Service", "NoNewPrivileges") == "yes"


@pytest.mark.parametrize("name", EXPECTED)
def test_exec_start_runs_a_program_of_the_installs_virtualenv(units, name):
    argv = exec_argv(units[name])
    program = Path(argv[0])
    assert program.is_absolute() and program.parent == Path(INSTALL, ".venv", "bin"), argv
    # the same program exists in this checkout's virtualenv (pip install -e . made it)
    assert (ROOT / ".venv" / "bin" / program.name).exists(), program.name


def test_the_web_unit_runs_config_serve_on_a_loopback_port(units):
    argv = exec_argv(units["bao2club-web.service"])
    assert Path(argv[0]).name == "python" and argv[1:3] == ["-m", "config.serve"], argv
    assert importlib.util.find_spec("config.serve") is not None
    host, port, *extra = argv[3:]
    assert ipaddress.ip_address(host).is_loopback  # the reverse proxy is the way in
    assert 1024 < int(port) < 65536 and not extra


def celery_command(argv: list[str]) -> tuple[str, click.Context]:
    """Parse a ``celery -A config <command> [options]`` argv as Celery's own command line
    does; return the command's name and its parsed context (raises on any unknown option or
    bad value)."""
    from celery.app.utils import find_app
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery as cli

    from config.celery import app

    assert Path(argv[0]).name == "celery" and argv[1:3] == ["-A", "config"], argv
    assert find_app("config") is app
    name, *options = argv[3:]
    assert name in cli.commands, name
    parent = click.Context(cli, info_name="celery", obj=CLIContext(app, True, None))
    return name, cli.commands[name].make_context(name, options, parent=parent, obj=parent.obj)


def test_the_worker_unit_runs_a_threads_worker_per_instance(units):
    name, context = celery_command(exec_argv(units["bao2club-worker@.service"], instance="2"))
    assert name == "worker"
    assert context.params["pool"].__module__ == "celery.concurrency.thread"
    assert context.params["concurrency"] >= 1
    # every instance on every machine is a distinct Celery node
    assert context.params["hostname"] == "worker2@host"
    assert "-B" not in units["bao2club-worker@.service"]["Service"]["ExecStart"][0].split()


def test_the_beat_unit_runs_the_database_scheduler(units):
    name, context = celery_command(exec_argv(units["bao2club-beat.service"]))
    assert name == "beat"
    assert context.params["scheduler"] == "django_celery_beat.schedulers:DatabaseScheduler"


def test_the_environment_example_names_the_variables_production_needs():
    names = [
        line.split("=", 1)[0]
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert len(names) == len(set(names)) and REQUIRED_VARIABLES <= set(names)
    readme = (ROOT / "README.md").read_text()
    for variable in names:  # each one documented, so none is a typo the settings ignore
        assert f"`{variable}`" in readme, variable


def test_the_deploy_docs_run_every_service_under_its_unit():
    docs = (ROOT / "docs" / "deploy.md").read_text()
    for name in EXPECTED:
        assert f"deploy/systemd/{name}" in docs or name in docs, name
    assert "systemctl enable --now bao2club-web.service" in docs
    assert "bao2club-worker@1.service" in docs and "bao2club-beat.service" in docs
    assert "deploy/bao2club.env.example" in docs


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze not installed")
def test_systemd_accepts_the_units(tmp_path):
    """``systemd-analyze verify`` on copies pointed at this checkout (its virtualenv, an empty
    environment file, the current user): no unknown key, bad value or missing program."""
    import getpass

    env = tmp_path / "env"
    env.write_text("")
    user = getpass.getuser()
    paths = []
    for path in sorted(UNITS.glob("*.service")):
        text = (
            path.read_text()
            .replace(INSTALL, str(ROOT))
            .replace(ENV_FILE, str(env))
            .replace(f"User={USER}", f"User={user}")
            .replace(f"Group={USER}", f"Group={user}")
        )
        copy = tmp_path / path.name.replace("@.", "@1.")  # a template is checked as an instance
        copy.write_text(text)
        paths.append(str(copy))
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *paths],
        capture_output=True,
        text=True,
        timeout=60,
    )
    ours = [line for line in (result.stdout + result.stderr).splitlines() if "bao2club" in line]
    assert result.returncode == 0 and not ours, result.stdout + result.stderr
