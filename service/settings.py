"""Where games are stored: eventsourcing's own variables, defaulting to an embedded SQLite file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT_DB = "./data/games.sqlite"
DEFAULT_SNAPSHOT_INTERVAL = 100  # events between snapshots of a game
STORES = ("eventsourcing.sqlite", "eventsourcing.postgres", "eventsourcing.popo")


class SettingsError(ValueError):
    """A storage setting that cannot work, said at start-up rather than by every worker."""


def check_settings(environ: Mapping[str, str]) -> None:
    """Refuse settings eventsourcing would misread: an empty PERSISTENCE_MODULE means its
    in-memory store to eventsourcing, on which no worker can build the read models."""
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
    env.setdefault("AGGREGATE_CACHE_MAXSIZE", "1000")
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
