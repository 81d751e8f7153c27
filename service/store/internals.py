"""Every place gruft reaches into eventsourcing's private internals: why, and what checks it.

eventsourcing is pinned to ``>=9.5.6,<9.6`` (pyproject.toml). Each reach below is a measured
speed-up or a fix the library's public API does not allow; each names the private parts it
relies on and the tests that fail when they change. To upgrade eventsourcing: read this list,
raise the pin, run ``tests/service/test_internals.py`` (every private part below is still
there, with the shape relied on, and no other module of ours touches one) and the tests each
reach names.

Where they live. The service's reaches are written here, and nowhere else. The domain's one
reach, building events, stays written in domain/core/game.py, marked there with a pointer to
this list: the domain imports nothing outside the domain (it is the pure rules, run without
the service by the bots and by every replay), and moving the code behind a call into a shared
module would add a call to every event on a measured hot path. This module lists it first.

1. Event construction -- domain/core/game.py: ``_recorder``, ``Game._trigger_exact``,
   ``Game.Event.mutate``, ``Game._create``.
   Private parts: ``eventsourcing.domain.decorated_func_callers``,
   ``BoundCommandMethodDecorator(...).trigger``, ``CommandMethodDecorator.decorated_func``,
   ``Aggregate._create`` (overridden: the creation event's chain link), the aggregate's
   ``_pending_events``, events built as the mapper builds stored ones (``object.__new__``
   then ``__dict__``), and ``CanMutateAggregate.mutate``/``apply`` written out.
   Why: the bound ``@event`` decorator re-reads the method's signature on every call; the
   frozen dataclass ``__init__`` only re-checks the names; the written-out ``mutate`` looks
   the fields up once per class (each measured in docs/performance.md, "What a command
   costs").
   Tests: tests/domain/core/test_event_fast_paths.py (same events, same fields in the same
   order, the library's path for any other call).
   Event shapes: an event read in an older shape than its type's ``class_version`` reaches
   this fast path already upcast, by the library's mapper (``upcast_vN_vM`` on the event
   class, a public hook) or by ``Game.event_from_record``; it carries what was stored under
   ``stored_as``, a bookkeeping field the written-out ``mutate`` never passes to a method
   (tests/replays/test_shapes.py, tests/fixtures/).

2. The repository's reconstruction -- ``reconstruct`` (used by service.store.repository.GameRepository).
   Private part: ``Repository._reconstruct_aggregate(aggregate_id, version, projector_func)``.
   Why: the stock cache forwards the cached game in place while other threads read or copy
   it (a half-forwarded game breaks the chain); GameRepository replaces it by a forwarded
   copy, and so rebuilds a missing game itself, through the library's snapshot-then-events
   reconstruction. The saved game offered back to the cache saves a copy and a fast-forward
   per command (docs/performance.md).
   Tests: tests/service/storage/test_cache.py, test_races.py, test_snapshots.py.

3. Snapshot taking -- ``SaveHooks`` (the base of service.app.Games).
   Private parts: ``Application._take_snapshots(processing_event)`` (overridden) and
   ``ProcessingEvent.aggregates``.
   Why: the library rebuilds every snapshot from the store (~10 ms every 100 events,
   ~0.12 ms per command); a snapshot at the version just saved is taken from the saved game.
   Tests: tests/service/storage/test_snapshots.py (state identical with and without
   snapshots at every version; a snapshot that fails to store never fails its command).

4. The SQLite connection swap -- ``tune_pool`` (games and views).
   Private parts: ``SQLiteConnectionPool._create_connection``, ``SQLiteConnection._sqlite_conn``
   (and the pool's ``db_name``, ``lock_timeout``, ``is_sqlite_memory_mode``).
   Why: eventsourcing 9.5 opens connections with ``cached_statements=True``, a statement cache
   of one: every BEGIN evicts the statement before it (a query's round trip took four times
   as long: docs/performance.md); the synchronous mode is set once per connection.
   Tests: tests/service/storage/test_sqlite_connections.py (WAL, row factory, durability).

5. The tracking record -- ``insert_tracking`` (the read models' views, service/readmodels/).
   Private part: ``TrackingRecorder._insert_tracking(cursor, tracking)``.
   Why: a transaction per projected event cost a third of a command's CPU: the views write each page the log follower hands them in one transaction
   with its last position (docs/performance.md), so the position is written inside their
   own transaction.
   Tests: tests/service/readmodels/test_crash.py (one transaction per page; a crash
   mid-page loses nothing), test_runners.py, test_index.py.

6. The commit hook -- ``SaveHooks`` again: ``Games.after_commit`` (live updates).
   Private part: ``Application._notify(recordings)``, which ``save`` calls after each commit
   (a hook the library leaves to subclasses, under a private name).
   Why: a stream or long poll in this process is woken the moment its game is stored,
   instead of at the watcher's next look at the log.
   Tests: tests/service/test_internals.py (called once per save, after the commit), and the
   live updates' tests.

7. The PostgreSQL recorders' retries -- ``bound_retries`` (the games' and snapshots' recorders).
   Private parts: eventsourcing.postgres's recorder methods wrapped by
   ``eventsourcing.utils.retry`` (10 attempts, 0.2 s apart), reached through the wrapper's
   ``__wrapped__`` and told apart by its code's name, ``retry_decorator``.
   Why: with the server away, each attempt waits the pool's timeout for a connection, so a
   request hung 10 x 30 s instead of answering 503 (issue 23, item 4); two attempts still
   recover from one dead pooled connection, and with the pool's timeout of 2 s a request is
   answered within 5 s.
   Tests: tests/api/test_postgres_outage.py (a PostgreSQL the test stops and starts itself),
   tests/service/test_internals.py.

8. The games' PostgreSQL writes -- ``service.store.postgres.GamesRecorder`` (its module is imported
   only on PostgreSQL, so the recorder lives there; this is its entry in the list).
   Not private: the recorder subclasses eventsourcing's ``PostgresApplicationRecorder`` and
   replaces its public ``insert_events`` (chosen through the library's own
   ``APPLICATION_RECORDER_TOPIC``). Relied on as written: the events table's columns, and the
   library's ordering of the log (the table's EXCLUSIVE lock in every inserting transaction),
   which the function it creates reproduces.
   Why: the library's insert holds that lock over two round trips and the worker's Python in
   between; every writer of every worker queues behind it. Measured (docs/performance.md):
   PostgreSQL's commands/s with 8 clients went from 0.26x SQLite's to the figures there.
   Tests: tests/service/storage/test_postgres_writes.py (one statement; log in commit order
   under concurrent writers; a skipped version refused), tests/service/test_internals.py
   (the columns and the lock still the library's).

Not private, but relied on as written: ``view.factory`` is an attribute set on the library's
tracking recorder (the views), closed with it; ``reconnect_promptly`` sets psycopg_pool's
``reconnect_timeout`` (a constructor parameter, kept as a public attribute and read at each
reconnection) on the pool eventsourcing builds, which does not pass it through.
"""

from __future__ import annotations

import sqlite3
import sys
from threading import local
from typing import Any
from uuid import UUID

from eventsourcing.application import Application, ProjectorFunction, Repository

from service.caches import STATEMENTS

# -- 2. the repository's reconstruction -------------------------------------------------------


def reconstruct(repository: Repository, aggregate_id: UUID,
                projector_func: ProjectorFunction[Any, Any]) -> Any:
    """The latest aggregate rebuilt from its last snapshot and later events (a cache miss)."""
    return repository._reconstruct_aggregate(aggregate_id, None, projector_func)


# -- 3. snapshot taking --------------------------------------------------------------------


class SaveHooks(Application):
    """eventsourcing's Application with gruft's two hooks into a save.

    While snapshots are taken, the aggregates being saved are at hand (``saved_aggregate``);
    after each commit, ``after_commit`` is called with what was recorded.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._saving = local()  # during a save: `aggregates`, the aggregates being saved
        super().__init__(*args, **kwargs)

    def saved_aggregate(self, aggregate_id: UUID) -> Any | None:
        """The aggregate this thread's save is storing, or None outside a save."""
        return getattr(self._saving, "aggregates", {}).get(aggregate_id)

    def _take_snapshots(self, processing_event: Any) -> None:
        # eventsourcing's loop, with the saved aggregates at hand for take_snapshot.
        self._saving.aggregates = processing_event.aggregates
        try:
            super()._take_snapshots(processing_event)
        finally:
            self._saving.aggregates = {}

    def _notify(self, recordings: list[Any]) -> None:
        # eventsourcing calls this after each commit; it does nothing itself.
        self.after_commit(recordings)

    def after_commit(self, recordings: list[Any]) -> None:
        """Called after each commit with its recordings; nothing by default."""


# -- the PostgreSQL pools' reconnection (not private: see the end of this module's docstring) --

RECONNECT_SECONDS = 2.0  # a pool's background tries to reconnect give up after this


def reconnect_promptly(factory: Any) -> None:
    """Make a PostgreSQL factory's pool reconnect as soon as the server is back (issue 23,
    item 4); any other factory is left as it is.

    psycopg_pool retries a lost connection in the background with waits doubling from 1 s
    for 5 minutes: after an outage of 20 s a pool sat out a wait of ~16 s with the server
    back, answering 503 meanwhile. Giving up after RECONNECT_SECONDS leaves the reconnecting
    to the next request that finds no connection (the pool grows at once then), so the
    first request after the server's return connects; while it is away, a request costs one
    refused connection attempt.
    """
    # A plain install serves on SQLite and never imports eventsourcing.postgres (or psycopg).
    postgres = sys.modules.get("eventsourcing.postgres")
    if postgres is not None and isinstance(factory, postgres.PostgresFactory):
        factory.datastore.pool.reconnect_timeout = RECONNECT_SECONDS


# -- 4. the SQLite connection swap ---------------------------------------------------------

SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")
DEFAULT_LOCK_TIMEOUT = 5  # eventsourcing's SQLITE3_DEFAULT_LOCK_TIMEOUT


def tune_pool(pool: Any, synchronous: str) -> None:
    """Make every connection `pool` opens cache its statements and use `synchronous`.

    gruft keeps the library's connection set-up (WAL mode, row factory, lock timeout) and swaps
    in a connection to the same database with a proper cache. In WAL mode NORMAL is SQLite's
    own recommendation: the file is never corrupted and a crash of the process loses nothing;
    only a power cut or an OS crash may lose the last commits. FULL waits for an fsync per
    commit (about 3 ms here, and commits of all workers queue behind it: it capped the API at
    ~300 commands/s).
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
                isolation_level=None, cached_statements=STATEMENTS.entries,
                timeout=pool.lock_timeout or DEFAULT_LOCK_TIMEOUT)
            connection._sqlite_conn.row_factory = library.row_factory
            library.close()
        connection._sqlite_conn.execute(f"PRAGMA synchronous={mode}")
        return connection

    pool._create_connection = create_tuned


# -- 5. the tracking record ----------------------------------------------------------


def insert_tracking(recorder: Any, cursor: Any, tracking: Any) -> None:
    """Record a position in the transaction of `cursor` (the views' updates commit with it)."""
    recorder._insert_tracking(cursor, tracking)


# -- 7. the PostgreSQL recorders' retries ---------------------------------------------


def bound_retries(recorder: Any, attempts: int) -> Any:
    """The recorder, its library-retried methods retrying `attempts` times in all (reach 7)."""
    from eventsourcing.persistence import InterfaceError, OperationalError
    from eventsourcing.utils import retry

    for name in dir(type(recorder)):
        method = getattr(type(recorder), name, None)
        inner = getattr(method, "__wrapped__", None)
        if inner is None or getattr(method, "__code__", None) is None or (
                method.__code__.co_name != "retry_decorator"):
            continue
        bounded = retry((InterfaceError, OperationalError), max_attempts=attempts, wait=0.2)(inner)
        setattr(recorder, name, bounded.__get__(recorder))
    return recorder
