"""Whether the game store can be written (issue 23, item 5): checked once before serving, and
on every readiness probe.

A store that cannot be written is a permanent fault, not a busy one: a read-only folder, a full
disk, a PostgreSQL server in recovery. Start-up stops with one line saying what, where and what
to do; a running server answers such a failed write with a 503 that says so (not "try again")
and reports it at GET /readyz until it is mended.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Mapping
from pathlib import Path

PROBE_BYTES = 64 << 10  # written and synced beside the store: a full disk refuses it
# What a store's errors say when writing cannot succeed however often it is tried.
PERMANENT = ("readonly", "read-only", "read only", "disk is full", "no space left",
             "disk i/o error", "unable to open database file", "could not extend file")


class StoreNotWritable(Exception):
    """The store cannot be written; the message is one line: what, where, what to do."""


def is_permanent(error: BaseException) -> bool:
    """Whether a store's error is one that waiting will not mend (read-only, disk full)."""
    text = str(error).lower()
    return any(words in text for words in PERMANENT)


def sqlite_path(env: Mapping[str, str]) -> Path | None:
    """The games' SQLite file, if the store is an SQLite file."""
    name = env.get("SQLITE_DBNAME", "")
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.sqlite" or not name or name.startswith(
            ("file:", ":memory:")):
        return None
    return Path(name).expanduser().resolve()


def check_writable(env: Mapping[str, str]) -> None:
    """StoreNotWritable unless the store (and the folder of the server's files) takes writes."""
    path = sqlite_path(env)
    if path is not None:
        check_folder(path.parent, "the games' SQLite folder", "GAMES_DB")
        if path.exists():
            _check_sqlite(path)
    elif env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres":
        _check_postgres(env)


def check_folder(folder: Path, what: str, setting: str) -> None:
    """StoreNotWritable unless a file can be written and synced in `folder`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".gruft-probe-") as probe:
            probe.write(b"\0" * PROBE_BYTES)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        raise StoreNotWritable(
            f"cannot write {what} {folder} ({exc.strerror or exc}): free space there or make it "
            f"writable by this user, or set {setting} to a folder that is") from None


def _check_sqlite(path: Path) -> None:
    try:
        connection = sqlite3.connect(path, timeout=0.5, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")  # a writer's lock: refused if read-only
            connection.execute("ROLLBACK")
        finally:
            connection.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return  # another writer holds it: busy, not broken
        raise StoreNotWritable(
            f"cannot write the games' SQLite file {path} ({exc}): make it and its folder "
            "writable by this user, or set GAMES_DB to a file that is") from None


def _check_postgres(env: Mapping[str, str]) -> None:
    try:
        import psycopg
    except ImportError:  # not installed: eventsourcing says so when the store is built
        return
    where = (f"{env.get('POSTGRES_HOST')}:{env.get('POSTGRES_PORT')}/"
             f"{env.get('POSTGRES_DBNAME')}")
    try:
        with psycopg.connect(host=env.get("POSTGRES_HOST"), port=env.get("POSTGRES_PORT"),
                             dbname=env.get("POSTGRES_DBNAME"), user=env.get("POSTGRES_USER"),
                             password=env.get("POSTGRES_PASSWORD") or None,
                             connect_timeout=5, autocommit=True) as conn:
            read_only = conn.execute(
                "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'"
            ).fetchone()[0]
    except psycopg.Error:
        return  # away: an outage (503 with Retry-After until it returns), not a setting
    if read_only:
        raise StoreNotWritable(
            f"the PostgreSQL database {where} takes no writes (a standby in recovery, or "
            "read-only transactions by default): point POSTGRES_HOST at the primary")
