"""gruft's settings, read once when the app is made, and where games are stored.

`Settings` is every gruft setting as one typed object, parsed from the environment (and, in
tests, the app's config) by `Settings.read`; a bad value stops start-up with a sentence naming
the variable. docs/deployment.md lists each (tests/docs/test_settings.py checks that). The
store's own variables are eventsourcing's (`PERSISTENCE_MODULE`, `SQLITE_*`, `POSTGRES_*`):
`storage_env` fills in gruft's defaults for them and the Application hands them to eventsourcing.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.caches import GAMES

DEFAULT_DB = "./data/games.sqlite"
DEFAULT_SNAPSHOT_INTERVAL = 100  # events between snapshots of a game
POSTGRES_RECORDER = "service.store.postgres:GamesRecorder"
STORES = ("eventsourcing.sqlite", "eventsourcing.postgres", "eventsourcing.popo")


class SettingsError(ValueError):
    """A setting that cannot work, said at start-up rather than by every worker."""


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < low or (high is not None and value > high):
            raise ValueError
        return value
    parse.__doc__ = f"a whole number from {low}" + (f" to {high}" if high is not None else " up")
    return parse


def _seconds(low: float, high: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = float(text)
        if not low <= value <= high:
            raise ValueError
        return value
    parse.__doc__ = f"seconds from {low:g} to {high:g}"
    return parse


def _one_of(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError
        return text
    parse.__doc__ = " or ".join(repr(c) for c in choices)
    return parse


def _switch(text: str) -> bool:
    """0 (off) or 1 (on)"""
    if text not in ("0", "1"):
        raise ValueError
    return text == "1"


def _text(text: str) -> str:
    """text"""
    return text.strip()


def _origins(text: str) -> tuple[str, ...]:
    """comma-separated origins"""
    return tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())


def _hosts(text: str) -> tuple[str, ...]:
    """comma-separated host names (a leading dot takes a domain's subdomains too)"""
    hosts = tuple(h.strip().lower() for h in text.split(",") if h.strip())
    if any(not h.strip(".") or any(c in h for c in "/@ ") for h in hosts):
        raise ValueError(text)
    return hosts


def _address(text: str) -> str:
    """an http:// or https:// address, e.g. http://192.168.1.20:8000"""
    if not text.startswith(("http://", "https://")) or len(text) > 500:
        raise ValueError(text)
    return text.rstrip("/")


def _witnesses(text: str) -> tuple[tuple[str, str], ...]:
    """space-separated URL=VKEY pairs: each witness's http(s) address and C2SP verifier key"""
    from service.audit.tlog import COSIGNATURE_V1, NoteError, parse_vkey

    pairs = []
    for pair in text.split():
        url, _, key = pair.partition("=")
        try:
            if parse_vkey(key).kind != COSIGNATURE_V1:
                raise ValueError(pair)
        except NoteError:
            raise ValueError(pair) from None
        pairs.append((_address(url), key))
    return tuple(pairs)


def _setting(env: str, default: str | None, parse: Callable[[str], Any] = _text) -> Any:
    """A field of Settings: its variable, its default (as the variable would say it), its parser."""
    value = None if default is None else parse(default)
    return field(default=value, metadata={"env": env, "parse": parse})


@dataclass(frozen=True)
class Settings:
    """Every gruft setting (docs/deployment.md, "Every setting"), typed, read once."""

    # the store (eventsourcing's own variables are passed to it as they are)
    games_db: str = _setting("GAMES_DB", DEFAULT_DB)
    snapshot_interval: int = _setting("SNAPSHOT_INTERVAL", str(DEFAULT_SNAPSHOT_INTERVAL),
                                      _whole(0))
    data_dir: str | None = _setting("GRUFT_DATA_DIR", None)
    # the server
    host: str = _setting("GRUFT_HOST", "127.0.0.1")
    port: int = _setting("GRUFT_PORT", "8000", _whole(0, 65535))
    public_url: str | None = _setting("GRUFT_PUBLIC_URL", None, _address)
    trusted_hosts: tuple[str, ...] = _setting("GRUFT_TRUSTED_HOSTS", "", _hosts)
    workers: int = _setting("GRUFT_WORKERS", "2", _whole(1))
    threads: int = _setting("GRUFT_THREADS", "1000", _whole(1))
    # slow and idle clients (serving/reading_worker.py): read before any thread is given to them
    header_timeout: float = _setting("GRUFT_HEADER_TIMEOUT", "5", _seconds(0.1, 600))
    body_timeout: float = _setting("GRUFT_BODY_TIMEOUT", "30", _seconds(0.1, 3600))
    connections_per_address: int = _setting("GRUFT_CONNECTIONS_PER_ADDRESS", "128", _whole(0))
    max_document_bytes: int = _setting("GRUFT_MAX_DOCUMENT_BYTES", str(8 * 1024 * 1024), _whole(1))
    verify_processes: int = _setting("GRUFT_VERIFY_PROCESSES", "1", _whole(0, 64))
    verify_queue: int = _setting("GRUFT_VERIFY_QUEUE", "4", _whole(1))
    verify_per_address: int = _setting("GRUFT_VERIFY_PER_ADDRESS", "1", _whole(0))
    create_limit: str = _setting("GRUFT_CREATE_LIMIT", "60/minute")
    create_key: str | None = _setting("GRUFT_CREATE_KEY", None)
    read_limit: str = _setting("GRUFT_READ_LIMIT", "10/second;600/minute")
    ratelimit_storage: str = _setting("GRUFT_RATELIMIT_STORAGE", "memory://")
    ratelimit_prefix: str = _setting("GRUFT_RATELIMIT_PREFIX", "gruft")
    cors_origins: tuple[str, ...] = _setting("GRUFT_CORS_ORIGINS", "", _origins)
    # the game log's witnesses (service/audit/witnessing.py)
    witnesses: tuple[tuple[str, str], ...] = _setting("GRUFT_WITNESSES", "", _witnesses)
    witnesses_needed: int = _setting("GRUFT_WITNESSES_NEEDED", "1", _whole(0))
    # live play and bots
    streams_max: int | None = _setting("GRUFT_STREAMS_MAX", None, _whole(1))
    streams_per_address: int = _setting("GRUFT_STREAMS_PER_ADDRESS", "64", _whole(0))
    polls_per_address: int = _setting("GRUFT_POLLS_PER_ADDRESS", "16", _whole(0))
    reads_per_address: int = _setting("GRUFT_READS_PER_ADDRESS", "4", _whole(0))
    stream_keepalive: float = _setting("GRUFT_STREAM_KEEPALIVE", "15", _seconds(0.01, 15))
    live_poll: float = _setting("GRUFT_LIVE_POLL", "0.01", _seconds(0.001, 60))
    stream_writer: bool = _setting("GRUFT_STREAM_WRITER", "1", _switch)
    stream_resync: float = _setting("GRUFT_STREAM_RESYNC", "60", _seconds(0.1, 3600))
    stream_max_pending: int = _setting("GRUFT_STREAM_MAX_PENDING", str(1 << 20), _whole(1024))
    gc_freeze: bool = _setting("GRUFT_GC_FREEZE", "1", _switch)
    gc_unfreeze: float = _setting("GRUFT_GC_UNFREEZE", "600", _seconds(1, 86400))
    bots: str = _setting("GRUFT_BOTS", "embedded", _one_of("embedded", "external"))
    bot_delay: float = _setting("GRUFT_BOT_DELAY", "0.3", _seconds(0, 60))
    # how long a follower of the log may end no round before GET /readyz calls it stuck
    follower_stuck: float = _setting("GRUFT_FOLLOWER_STUCK", "30", _seconds(0.01, 86400))
    # the read models
    projections: str = _setting("GRUFT_PROJECTIONS", "embedded", _one_of("embedded", "external"))
    views_wait: float = _setting("GRUFT_VIEWS_WAIT", "5", _seconds(0, 600))
    views_patience: float = _setting("GRUFT_VIEWS_PATIENCE", "0.05", _seconds(0, 5))
    readmodels_batch: int = _setting("READMODELS_BATCH", "500", _whole(1))
    # PostgreSQL's synchronous_commit for the writes of events (service/store/postgres.py)
    postgres_synchronous_commit: str = _setting("POSTGRES_SYNCHRONOUS_COMMIT", "on",
                                                _one_of("on", "off"))

    @classmethod
    def read(cls, environ: Mapping[str, Any] | None = None) -> Settings:
        """The settings an environment gives (unset or empty: the default); SettingsError names
        the variable whose value cannot work and says what it takes."""
        environ = os.environ if environ is None else environ
        values = {}
        for f in dataclasses.fields(cls):
            raw = environ.get(f.metadata["env"])
            if raw is None or not str(raw).strip():
                continue
            parse = f.metadata["parse"]
            try:
                values[f.name] = parse(str(raw).strip())
            except ValueError:
                raise SettingsError(f"{f.metadata['env']}={raw!r} cannot work: it takes "
                                    f"{parse.__doc__}") from None
        return cls(**values)

    @classmethod
    def variables(cls) -> tuple[str, ...]:
        """The variables gruft reads, in the order docs/deployment.md lists them."""
        return tuple(f.metadata["env"] for f in dataclasses.fields(cls))


def check_settings(environ: Mapping[str, str]) -> None:
    """Refuse settings eventsourcing would misread: an empty PERSISTENCE_MODULE means its
    in-memory store to eventsourcing, on which no worker can build the read models."""
    Settings.read(environ)  # gruft's own: SettingsError names a value that cannot work
    module = environ.get("PERSISTENCE_MODULE")
    if module is not None and not module.strip():
        raise SettingsError("PERSISTENCE_MODULE is set but empty: unset it for SQLite in "
                            f"GAMES_DB, or name one of {', '.join(STORES)}")


def storage_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The eventsourcing environment for the games application.

    `PERSISTENCE_MODULE`, `SQLITE_DBNAME` and `POSTGRES_*` are eventsourcing's own; with none set
    the store is SQLite in `GAMES_DB` (default ./data/games.sqlite), whose folder is created.
    """
    env = dict(os.environ if environ is None else environ)
    check_settings(env)
    module = env.setdefault("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    if module == "eventsourcing.sqlite" and not env.get("SQLITE_DBNAME"):
        env["SQLITE_DBNAME"] = env.get("GAMES_DB") or DEFAULT_DB
    dbname = env.get("SQLITE_DBNAME", "")
    if module == "eventsourcing.sqlite" and dbname and not dbname.startswith(("file:", ":memory:")):
        Path(dbname).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
    env.setdefault("SQLITE_LOCK_TIMEOUT", "10")
    # eventsourcing opens POSTGRES_POOL_SIZE connections per Application (its default: 5) and
    # grows to that plus POSTGRES_MAX_OVERFLOW. A gunicorn sync worker runs one request at a
    # time, so 2 kept open per worker lets many workers on many machines share one server's
    # max_connections (100 by default); bursts still get up to 10.
    env.setdefault("POSTGRES_POOL_SIZE", "2")
    env.setdefault("POSTGRES_MAX_OVERFLOW", "8")
    # How long a request waits for a connection (eventsourcing's default: 30 s). With the
    # server away it waits that long per attempt; 2 s answers 503 within 5 s (issue 23).
    env.setdefault("POSTGRES_CONNECT_TIMEOUT", "2")
    if module == "eventsourcing.postgres":
        # gruft's own recorder: a write is one statement, locked and committed by the server
        # without a round trip in between (service/store/postgres.py).
        env["APPLICATION_RECORDER_TOPIC"] = POSTGRES_RECORDER
    env.setdefault("AGGREGATE_CACHE_MAXSIZE", str(GAMES.entries))
    # eventsourcing builds its snapshot store only when this is set (or when the Application
    # class, not an instance, has snapshotting_intervals): without it no snapshot is ever taken.
    if int(env.setdefault("SNAPSHOT_INTERVAL", str(DEFAULT_SNAPSHOT_INTERVAL))) > 0:
        env.setdefault("IS_SNAPSHOTTING_ENABLED", "y")
    return env


def data_dir(env: Mapping[str, str]) -> Path:
    """The folder for files the server keeps beside its store (the signing key)."""
    if env.get("GRUFT_DATA_DIR"):
        path = Path(env["GRUFT_DATA_DIR"])
    elif env.get("PERSISTENCE_MODULE") == "eventsourcing.sqlite" and env.get("SQLITE_DBNAME", "").strip(
    ) not in ("", ":memory:") and not env["SQLITE_DBNAME"].startswith("file:"):
        path = Path(env["SQLITE_DBNAME"]).expanduser().resolve().parent
    else:
        path = Path(env.get("GAMES_DB") or DEFAULT_DB).expanduser().resolve().parent
    path.mkdir(parents=True, exist_ok=True)
    return path
