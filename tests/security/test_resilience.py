"""Services that survive their neighbours (issue 20, item 8), with real servers.

- A Celery worker on the embedded Redis (loopback TCP) keeps processing tasks after Redis is
  killed and started again (with ``redis+socket://`` the worker died for good).
- During a Redis outage the API (throttled) and the pages answer; a warning is logged.
"""

import copy
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings
from django.test import Client, override_settings
from rest_framework.test import APIClient

from config.cache import FailOpenRedisCache
from config.embedded_redis import EmbeddedRedis, url_of
from config.throttling import AnonRateThrottle

ROOT = Path(__file__).resolve().parent.parent.parent


def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.2)
    return False


def test_worker_keeps_processing_tasks_after_the_embedded_redis_restarts(tmp_path):
    redis_dir = tmp_path / "redis"
    server = EmbeddedRedis(redis_dir).start()
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}},
        "EMBEDDED_REDIS_DIR": str(redis_dir),
        "VAR_DIR": str(tmp_path / "var"),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "security")]),
    }
    log = open(tmp_path / "worker.log", "wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-I", "probe_tasks",
         "--pool", "solo", "--loglevel", "INFO", "--hostname", f"probe-{uuid.uuid4().hex}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    sender = Celery(broker=url_of(redis_dir))
    try:
        first = tmp_path / "first"
        sender.send_task("probe_tasks.touch", args=[str(first)])
        assert wait_for(first, 90), (tmp_path / "worker.log").read_text()[-3000:]
        # Redis dies (SIGKILL, as a crash would) and comes back on the same port
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        server.process = None
        time.sleep(2)
        assert worker.poll() is None, "the worker died with Redis"
        server = EmbeddedRedis(redis_dir).start()
        second = tmp_path / "second"
        sender.send_task("probe_tasks.touch", args=[str(second)])
        assert wait_for(second, 90), (tmp_path / "worker.log").read_text()[-3000:]
        assert worker.poll() is None
    finally:
        sender.close()
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        log.close()
        server.stop()


def dead_redis_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"  # nothing listens there


@pytest.fixture
def redis_down(db):
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["LOCATION"] = dead_redis_url()
    with override_settings(CACHES=caches):
        yield


def test_throttled_api_and_pages_answer_while_redis_is_down(redis_down, monkeypatch, caplog):
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "2/min"})
    monkeypatch.setattr(FailOpenRedisCache, "_last_warning", -1e9)  # warned at most once a minute
    api = APIClient()
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        codes = [api.get("/api/v1/clubs/").status_code for _ in range(5)]
    assert codes == [200] * 5  # fail open: not counted, not refused, never 500
    assert any("cache unavailable" in record.getMessage() for record in caplog.records)
    for url in ("/", "/clubs/", "/accounts/login/"):
        assert Client().get(url).status_code == 200, url
    # a form whose requests are counted in the cache
    assert Client().post("/accounts/password_reset/", {"email": "a@example.com"}).status_code == 302
