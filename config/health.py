"""``/healthz``: database and Redis status as JSON (200 when both answer, else 503).

Anyone (a load balancer) learns only ``{"status": "ok"|"error"}``; the details, which may name
hosts, socket paths or driver errors, are shown to staff only.
"""

import time

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


def check_database() -> dict:
    """Run ``SELECT 1`` on the default database and report the outcome and latency."""
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any failure is reported, never raised
        return {"ok": False, "vendor": connection.vendor, "error": str(error)}
    return {
        "ok": True,
        "vendor": connection.vendor,
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }


def check_redis() -> dict:
    """PING the Redis server used by Channels, Celery and the cache."""
    started = time.perf_counter()
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as error:  # any failure is reported, never raised
        return {"ok": False, "embedded": settings.EMBEDDED_REDIS, "error": str(error)}
    return {
        "ok": True,
        "embedded": settings.EMBEDDED_REDIS,
        "ms": round((time.perf_counter() - started) * 1000, 2),
    }


def _is_staff(request: HttpRequest) -> bool:
    """Whether the caller is signed in as staff (False when the session cannot be read)."""
    try:
        return bool(request.user.is_staff)
    except Exception:  # the database (sessions, users) is what may be failing
        return False


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Report ``{"status": "ok"|"error"}``, and to staff also ``"database"`` and ``"redis"``."""
    database = check_database()
    redis_status = check_redis()
    ok = database["ok"] and redis_status["ok"]
    body: dict = {"status": "ok" if ok else "error"}
    if _is_staff(request):
        body.update(database=database, redis=redis_status)
    return JsonResponse(body, status=200 if ok else 503)
