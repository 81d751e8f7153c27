"""How gruft opens eventsourcing's SQLite connections: a real statement cache, and durability.

eventsourcing 9.5 opens each SQLite connection with ``cached_statements=True``, which Python
reads as a statement cache of *one*: every transaction's ``BEGIN`` evicts the query before it,
so every statement is parsed and planned again (measured: 83 µs for BEGIN, one indexed SELECT
and ROLLBACK, against 21 µs with a cache of 128; docs/performance.md). gruft keeps the library's
connection set-up (WAL mode, row factory, lock timeout) and swaps in a connection to the same
database with a proper cache, opened with the configured ``PRAGMA synchronous``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

STATEMENT_CACHE = 128  # Python's own default
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
DEFAULT_LOCK_TIMEOUT = 5  # eventsourcing's SQLITE3_DEFAULT_LOCK_TIMEOUT


def tune_pool(pool: Any, synchronous: str) -> None:
    """Make every connection `pool` opens cache its statements and use `synchronous`.

    In WAL mode NORMAL is SQLite's own recommendation: the file is never corrupted and a crash
    of the process loses nothing; only a power cut or an OS crash may lose the last commits.
    FULL waits for an fsync per commit (about 3 ms here, and commits of all workers queue
    behind it: it capped the API at ~300 commands/s).
    """
    mode = synchronous.upper()
    if mode not in SYNCHRONOUS_MODES:
        raise ValueError(f"SQLITE_SYNCHRONOUS must be one of {', '.join(SYNCHRONOUS_MODES)}")
    create = pool._create_connection

    def create_tuned() -> Any:
        connection = create()  # the library's: sets WAL mode on the file once
        if not pool.is_sqlite_memory_mode:  # a private :memory: database cannot be reopened
            library = connection._sqlite_conn
            connection._sqlite_conn = sqlite3.connect(
                database=pool.db_name, uri=True, check_same_thread=False,
                isolation_level=None, cached_statements=STATEMENT_CACHE,
                timeout=pool.lock_timeout or DEFAULT_LOCK_TIMEOUT)
            connection._sqlite_conn.row_factory = library.row_factory
            library.close()
        connection._sqlite_conn.execute(f"PRAGMA synchronous={mode}")
        return connection

    pool._create_connection = create_tuned
