"""One settings module, read from environment variables with embedded defaults.

Embedded default (nothing to start): SQLite in var/ and the in-memory channel layer.
DATABASE_URL switches to PostgreSQL, REDIS_URL to channels-redis.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from matches.redis_servers import (
    RedisSettingsError,
    cache_config,
    celery_broker,
    layer_host,
    sentinels_parsed,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("SPECTATOR_VAR_DIR", BASE_DIR / "var"))


def env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def secret_key_kept(path: Path) -> str:
    """The key in `path`, made once (random, mode 600) when it is missing.

    Written whole under another name, then linked into place: several processes starting
    at once (the venue's daphne servers and clock) all end up with the first one's key.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, draft = tempfile.mkstemp(dir=path.parent, prefix=".secret_key.")  # mode 600
        try:
            with os.fdopen(handle, "w") as file:
                file.write(secrets.token_urlsafe(50))
            with contextlib.suppress(FileExistsError):  # another process was first
                os.link(draft, path)
        finally:
            os.unlink(draft)
    return path.read_text().strip()


# Off unless asked for: Django's debug pages show settings and code to anyone.
DEBUG = env_flag("DJANGO_DEBUG", False)
# Signs sessions (a judge's login): never a key published with the code.
SECRET_KEY = (os.environ.get("DJANGO_SECRET_KEY")
              or secret_key_kept(VAR_DIR / "secret_key"))
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

# Behind nginx on plain http at a venue by default. DJANGO_HTTPS=1 when the proxy speaks
# https: then http is redirected, cookies are sent over https only, and HSTS is on.
# (daphne --proxy-headers takes the scheme from nginx's X-Forwarded-Proto.)
HTTPS = env_flag("DJANGO_HTTPS", False)
SECURE_SSL_REDIRECT = SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", 31_536_000)) if HTTPS else 0
SILENCED_SYSTEM_CHECKS = [
    # Whether subdomains get HSTS, and the browsers' preload list, are the domain owner's
    # choice, not this site's.
    "security.W005", "security.W021",
]
if not HTTPS:
    # These four need https, which a venue's plain-http network does not have: turning
    # them on would lock every browser out (DJANGO_HTTPS=1 turns them on instead).
    SILENCED_SYSTEM_CHECKS += ["security.W004", "security.W008", "security.W012",
                               "security.W016"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "ninja",  # its static files: Swagger UI for /api/docs, served here, never from a CDN
    "matches",
]
# daphne's app gives `manage.py runserver` its ASGI server (websockets too). Loading it
# imports Twisted and its TLS, half a second of CPU at every process's start, so only
# that command loads it: the servers (`daphne`, the demo) import daphne themselves.
if sys.argv[1:2] == ["runserver"]:
    INSTALLED_APPS.insert(0, "daphne")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "spectator.languages.LanguageMiddleware",  # ?lang=, its cookie, the browser's
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "matches.admission.TooBusyMiddleware",  # a read over its gate's caps: 429
]

ROOT_URLCONF = "spectator.urls"
ASGI_APPLICATION = "spectator.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}", conn_max_age=60, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool of connections a process, never more (psycopg's, Django's "pool" option). An
    # ASGI server runs each request's view on a thread of its own: a persistent
    # connection (CONN_MAX_AGE) was left open by every thread that ended, until the
    # garbage collector came by, and a flood of practice requests took PostgreSQL to
    # its 200 connections ("too many clients already": 100 answers 500 in 20 s,
    # bench/attack.py --venue --floods practice). Now a thread hands its connection
    # back at the end of each request (and the clock, each tick), and a process holds
    # at most DB_POOL_SIZE: a venue of N servers, its clock and drawing worker stay well
    # under PostgreSQL's default 100. A thread finding them all taken waits for one, up
    # to DB_POOL_WAIT seconds.
    DB_POOL_SIZE = int(os.environ.get("SPECTATOR_DB_POOL", "16"))
    DB_POOL_WAIT = 10
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2, "max_size": DB_POOL_SIZE, "timeout": DB_POOL_WAIT}
# DATABASE_POOLER=pgbouncer: DATABASE_URL is a PgBouncer in transaction pooling mode
# (docs/deployment.md), which hands each transaction whichever server connection is
# free, so nothing may outlive a transaction on one: no server-side cursors (Django's
# iterator() would declare one and fetch from it in later transactions) and no prepared
# statements (psycopg's, after a query's fifth run; off by Django's default, said here
# so that no OPTIONS turns them on). The process's pool stays: its connections are
# PgBouncer's clients, which hold no server connection between transactions, and it
# spares each request a connect and PgBouncer's authentication. LISTEN is a session's:
# the clocks listen for new matches on PostgreSQL itself, at DATABASE_DIRECT_URL.
DATABASE_POOLER = os.environ.get("DATABASE_POOLER", "").strip().lower()
DATABASE_LISTEN: dict[str, object] = {}  # where the clocks LISTEN, when not DATABASE_URL
if DATABASE_POOLER:
    if DATABASE_POOLER != "pgbouncer":
        raise ImproperlyConfigured(f"DATABASE_POOLER: pgbouncer or unset, not {DATABASE_POOLER!r}")
    if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_POOLER=pgbouncer needs a postgres:// DATABASE_URL")
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None
    DATABASES["default"]["OPTIONS"].pop("server_side_binding", None)
    _direct = os.environ.get("DATABASE_DIRECT_URL", "")
    if not _direct:
        raise ImproperlyConfigured(
            "DATABASE_POOLER=pgbouncer: set DATABASE_DIRECT_URL to PostgreSQL itself "
            "(postgres://user:password@db-host:5432/name), where the clocks LISTEN for new "
            "matches: a PgBouncer in transaction mode cannot carry a LISTEN")
    # Its address and login; the database is DATABASE_URL's (a test run's own, say).
    _reached = dj_database_url.parse(_direct)
    DATABASE_LISTEN = {key: _reached[name] for key, name in
                       (("host", "HOST"), ("port", "PORT"), ("user", "USER"),
                        ("password", "PASSWORD")) if _reached.get(name)}
# The places of the jobs a visitor starts (a what-if's, matches/jobs.py): files locked by
# the job under way, shared by every server process of the machine that names them.
JOBS_DIR = Path(os.environ.get("SPECTATOR_JOBS_DIR", VAR_DIR / "jobs"))
# Prometheus's numbers, written by each process to files of its own and summed by the
# one that answers /metrics (matches/metrics.py): set before prometheus_client is loaded.
METRICS_DIR = Path(os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics")))
METRICS_DIR.mkdir(parents=True, exist_ok=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # Wait for the writer instead of failing when the clock and a request write at once.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        # Readers never wait for the writer, and a commit does not wait for the disk.
        # The clock checkpoints the log after each transition (services.transition); the
        # automatic checkpoint, which would stall whichever commit crosses its
        # threshold (a team's submission), is only a backstop at 16,384 pages.
        "init_command": ("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                         "PRAGMA wal_autocheckpoint=16384;"),
    }
    # A file, not memory, so that tests can run clocks and servers as real processes.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis (docs/deployment.md): REDIS_URL for one; CHANNEL_REDIS_URLS (commas) to shard the
# channel layer over several, the cache, rate windows and queue staying on REDIS_URL's
# (the first shard's by default); REDIS_SENTINELS (host:port, commas) to find each
# through Sentinel, every Redis URL then naming its master (redis://mymaster/0).
# (matches/redis_servers.py loads no Redis client: the embedded default needs none.)
CHANNEL_REDIS_URLS = env_list("CHANNEL_REDIS_URLS", "")
REDIS_URL = os.environ.get("REDIS_URL", "") or next(iter(CHANNEL_REDIS_URLS), "")
REDIS_SENTINEL_PASSWORD = os.environ.get("REDIS_SENTINEL_PASSWORD", "")
try:
    REDIS_SENTINELS = sentinels_parsed(os.environ.get("REDIS_SENTINELS", ""))
    if REDIS_URL:
        # channels-redis's core layer by default; CHANNEL_LAYER=pubsub selects its pub/sub
        # layer (README, Deployment: why core). Pub/sub channels ignore the Redis database
        # number, so systems sharing one Redis server tell theirs apart by the prefix.
        LAYER_BACKENDS = {"core": "channels_redis.core.RedisChannelLayer",
                          "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer"}
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": LAYER_BACKENDS[os.environ.get("CHANNEL_LAYER", "core")],
                # redis-py 8 gives up on a read after 5 s by default, which is exactly how
                # long channels-redis's blocking receive waits on an idle channel: allow
                # longer. Each shard is one host (a group or channel lives on one of them).
                "CONFIG": {"hosts": [layer_host(url, REDIS_SENTINELS, REDIS_SENTINEL_PASSWORD,
                                                socket_timeout=15)
                                     for url in CHANNEL_REDIS_URLS or [REDIS_URL]],
                           "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi")},
            }
        }
        # (Django's cache takes several LOCATIONs for a primary and its read replicas, not
        # for shards: the cache stays on one Redis.)
        CACHES = {"default": cache_config(REDIS_URL, REDIS_SENTINELS, REDIS_SENTINEL_PASSWORD)}
    else:
        if REDIS_SENTINELS:
            raise RedisSettingsError("REDIS_SENTINELS: set REDIS_URL to redis://MASTER/0 too")
        CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    _broker_url, _broker_options = celery_broker(REDIS_URL, REDIS_SENTINELS,
                                               REDIS_SENTINEL_PASSWORD)
except RedisSettingsError as error:
    raise ImproperlyConfigured(str(error)) from error

# Hosted programs' plays are the jobs of Celery workers (spectator/celery.py,
# docs/programs.md): on REDIS_URL's Redis, else a queue of files in var/ (one machine).
# A job is taken from the queue once done (a worker lost mid-job leaves it for another,
# which finds its run taken: matches/hosted/tasks.py), one at a time a worker process.
HOSTED_QUEUE_DIR = Path(os.environ.get("SPECTATOR_QUEUE_DIR", VAR_DIR / "queue"))
CELERY_BROKER_URL = _broker_url or "filesystem://"
if REDIS_SENTINELS:  # kombu's sentinel:// transport: the master's name
    CELERY_BROKER_TRANSPORT_OPTIONS = _broker_options
if not REDIS_URL:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(HOSTED_QUEUE_DIR),
                                       "data_folder_out": str(HOSTED_QUEUE_DIR),
                                       # (its exchanges' table: not ./control)
                                       "control_folder": str(HOSTED_QUEUE_DIR / "control")}
    HOSTED_QUEUE_DIR.mkdir(parents=True, exist_ok=True)
CELERY_TASK_DEFAULT_QUEUE = "hosted"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Where a worker reaches the server's API: its programs' doors lead there.
HOSTED_SERVER_URL = os.environ.get("SPECTATOR_HOSTED_SERVER", "http://127.0.0.1:8000")
# A hosted run whose worker has not said it is alive for this long has lost its worker:
# its match is void (matches/hosted/watch.py). Workers say so four times as often.
HOSTED_LOST_SECONDS = float(os.environ.get("SPECTATOR_HOSTED_LOST_SECONDS", "30"))
# The ladder of programs (matches/hosted/ladder.py): the fast ladder matches each program
# with a built version plays an hour (0: no ladder), and how many of a game's may be
# under way at once (the workers are shared with scrimmages and tournaments).
HOSTED_LADDER_GAMES_AN_HOUR = int(os.environ.get("SPECTATOR_LADDER_GAMES_AN_HOUR", "4"))
HOSTED_LADDER_AT_ONCE = int(os.environ.get("SPECTATOR_LADDER_AT_ONCE", "2"))
# Whether a process that serves a protocol's lines (CHaser's) stores each first in a
# journal on its own machine, moved into the database with its turn
# (matches/services/local_journal.py): by default whenever the database is not SQLite.
LINE_JOURNAL = (env_flag("SPECTATOR_LINE_JOURNAL", False)
                if os.environ.get("SPECTATOR_LINE_JOURNAL", "").strip() else None)

# Failed logins are counted per account at an address and per address
# (matches.login_limits): nobody can lock a judge out from another address.
AUTHENTICATION_BACKENDS = ["matches.login_limits.ThrottledBackend"]
LOGIN_REDIRECT_URL = "/"  # the matches; Django's default /accounts/profile/ is no page here

# The Unix socket of the machine's drawing worker (`manage.py rundrawing`, started by
# deploy/serve.sh), which draws the pictures of every server of the machine; unset, each
# server draws in a worker process of its own (matches/drawing.py).
DRAWING_SOCKET = os.environ.get("SPECTATOR_DRAWING_SOCKET", "")

# The bytes of request bodies kept whole for one team in one match; past it only each
# body's size, SHA-256 and first 256 bytes are kept (docs/api.md, "Limits and what is
# kept"). 16 MiB by default.
TEAM_BODY_BUDGET = int(os.environ.get("SPECTATOR_TEAM_BODY_BUDGET", 16 << 20))

# Practice matches teams start themselves (POST /api/practice, matches/services/practice.py):
# "off" (a contest venue: the default of `make serve`), "teams" (holders of a team token an
# organiser issued) or "open" (anyone, under a guest name: `make demo` sets it). At most
# PRACTICE_MAX_MATCHES at once, PRACTICE_MAX_PER_CALLER for one team or address, and the
# guests together at most PRACTICE_GUEST_SHARE of them (so that guests from many
# addresses never leave the teams without a practice match); a guest's match is taken
# down PRACTICE_GUEST_HOURS after it was made.
PRACTICE = os.environ.get("SPECTATOR_PRACTICE", "off").strip().lower()
if PRACTICE not in ("off", "teams", "open"):
    raise ImproperlyConfigured(f"SPECTATOR_PRACTICE: off, teams or open, not {PRACTICE!r}")
PRACTICE_MAX_MATCHES = int(os.environ.get("SPECTATOR_PRACTICE_MAX_MATCHES", 20))
PRACTICE_MAX_PER_CALLER = int(os.environ.get("SPECTATOR_PRACTICE_MAX_PER_CALLER", 2))
PRACTICE_GUEST_HOURS = float(os.environ.get("SPECTATOR_PRACTICE_GUEST_HOURS", 2))
PRACTICE_GUEST_SHARE = float(os.environ.get("SPECTATOR_PRACTICE_GUEST_SHARE", 0.5))

# Seconds a server process's viewer counts outlive it, should it die without counting
# its sockets out (matches/live/viewers.py).
VIEWER_COUNT_TTL = int(os.environ.get("VIEWER_COUNT_TTL", "30"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
# Japanese and Vietnamese audiences and teams come first (spectator/languages.py).
LANGUAGES = [("ja", "日本語"), ("vi", "Tiếng Việt"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
