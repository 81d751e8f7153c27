"""Presence: which seats of a game have it open now (docs/api.md, `present`); never recorded.

A seat is present while a stream of the game is open with its token (the organiser's host
token counts for the seat they play). Every process counts its own open streams; a process
of a store shared with others (several workers, several servers) also writes them to a small
table of the store (`gruft_presence`: game, seat, process, last seen), refreshes its rows every
BEAT_SECONDS and reads everybody's every READ_SECONDS. A process that dies leaves rows that
stop counting TTL_SECONDS after their last beat. An in-memory store has one process: no table.

Listeners (the stream writer) are called with a game's id when its present seats change, so
the game's open streams can tell their pages.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from service.store.ddl import retry_concurrent_ddl

log = logging.getLogger("gruft.presence")

TABLE = "gruft_presence"
BEAT_SECONDS = 5.0  # how often a process says its streams are still open
TTL_SECONDS = 3 * BEAT_SECONDS  # a row not refreshed this long is a process gone
READ_SECONDS = 1.0  # how often a process reads the others' rows

UPSERT = ("INSERT INTO {table} (game_id, seat, holder, seen) VALUES (?, ?, ?, ?)"
          " ON CONFLICT (game_id, seat, holder) DO UPDATE SET seen = excluded.seen")

Listener = Callable[[UUID], None]


class PresenceTable:
    """The shared rows, in the games' own database (SQLite file or PostgreSQL schema)."""

    def __init__(self, recorder: Any) -> None:
        datastore = recorder.datastore
        self._datastore = datastore
        self.postgres = hasattr(datastore, "schema")
        if self.postgres:
            schema = '"' + datastore.schema.replace('"', '""') + '"'
            self.table, self.mark = f"{schema}.{TABLE}", "%s"
        else:
            self.table, self.mark = TABLE, "?"
        retry_concurrent_ddl(lambda: self.run(
            "CREATE TABLE IF NOT EXISTS {table} (game_id TEXT NOT NULL, seat TEXT NOT NULL,"
            " holder TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL,"
            " PRIMARY KEY (game_id, seat, holder))"))

    @contextmanager
    def _cursor(self, write: bool) -> Iterator[Any]:
        if self.postgres:
            with self._datastore.transaction(commit=write) as cur:
                yield cur
            return
        with self._datastore.get_connection(commit=write) as conn:
            cur = conn.cursor()
            cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    def run(self, statement: str, *rows: tuple[Any, ...]) -> None:
        """A writing statement, once per row of parameters (once with none), in one transaction."""
        self.run_all([(statement, row) for row in rows or ((),)])

    def run_all(self, steps: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Writing statements with their parameters, in one transaction."""
        with self._cursor(write=True) as cur:
            for statement, row in steps:
                cur.execute(statement.format(table=self.table).replace("?", self.mark), row)

    def read(self, statement: str, *args: Any) -> list[tuple[Any, ...]]:
        sql = statement.format(table=self.table).replace("?", self.mark)
        with self._cursor(write=False) as cur:
            cur.execute(sql, args)
            return [tuple(r) if not isinstance(r, dict) else tuple(r.values())
                    for r in cur.fetchall()]


class Presence:
    """The present seats of one Application's games."""

    def __init__(self, recorder: Any, shared: bool) -> None:
        self._recorder = recorder
        self._shared = shared  # False: an in-memory store, this process alone
        self._table: PresenceTable | None = None
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._lock = threading.Lock()
        # Held around each change of this process's rows (a stream opening or closing, the
        # beat): the beat's rows are then never older than the table's.
        self._writing = threading.Lock()
        self._local: dict[UUID, Counter[str]] = {}
        self._others: dict[UUID, frozenset[str]] = {}
        self._told: dict[UUID, frozenset[str]] = {}  # what listeners last heard, per game
        self._listeners: list[Listener] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    # -- streams open and close --------------------------------------------------------------

    def open(self, game_id: UUID, seat: str | None) -> Callable[[], None]:
        """A stream of `seat` (None: not a seat) is open; answers the function that closes it."""
        if seat is None:
            return lambda: None
        with self._writing:
            with self._lock:
                counts = self._local.setdefault(game_id, Counter())
                counts[seat] += 1
                first = counts[seat] == 1
            if first:
                self._write(UPSERT, (str(game_id), seat, self.holder, time.time()))
        self._ensure_thread()
        self._changed([game_id])
        closed = threading.Event()

        def close() -> None:
            if closed.is_set():
                return
            closed.set()
            with self._writing:
                with self._lock:
                    counts = self._local.get(game_id, Counter())
                    counts[seat] -= 1
                    last = counts[seat] <= 0
                    if last:
                        del counts[seat]
                        if not counts:
                            self._local.pop(game_id, None)
                if last:
                    self._write("DELETE FROM {table} WHERE game_id = ? AND seat = ?"
                                " AND holder = ?", (str(game_id), seat, self.holder))
            self._changed([game_id])

        return close

    # -- reading -----------------------------------------------------------------------------

    def present(self, game_id: UUID, players: list[str]) -> list[str]:
        """The seats of `players` with the game open now, in seat order."""
        # A worker with no stream open of its own still answers for the others': reading the
        # shared rows starts with the first question, not only with its first stream (seen:
        # one worker of two answering "nobody" for a minute while the other held the stream).
        thread = self._thread
        if thread is None or not thread.is_alive():
            self._ensure_thread()
        seats = self._seats(game_id)
        return [p for p in players if p in seats]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(game_id)` when a game's present seats change (keep it short)."""
        with self._lock:
            self._listeners.append(listener)
        self._ensure_thread()

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def close(self) -> None:
        """Stop the thread, once a round under way has ended (the store closes next: a
        connection closed under a running statement crashes SQLite's library)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(30)

    def _seats(self, game_id: UUID) -> frozenset[str]:
        with self._lock:
            local = self._local.get(game_id)
            return frozenset(local or ()) | self._others.get(game_id, frozenset())

    # -- the shared table --------------------------------------------------------------------

    def _table_or_none(self) -> PresenceTable | None:
        if not self._shared:
            return None
        if self._table is None:
            self._table = PresenceTable(self._recorder)
        return self._table

    def _write(self, statement: str, *rows: tuple[Any, ...]) -> None:
        try:
            table = self._table_or_none()
            if table is not None:
                table.run(statement, *rows)
        except Exception as exc:  # presence is a courtesy: never a stream's failure
            log.warning("presence: writing failed: %s", exc)

    def _ensure_thread(self) -> None:
        if os.getpid() != self._pid:
            self._pid, self._thread = os.getpid(), None
        if not self._shared or self._stop.is_set():
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="gruft-presence")
            self._thread.start()

    def _run(self) -> None:
        beat = 0.0
        while not self._stop.wait(READ_SECONDS):
            try:
                now = time.time()
                if now - beat >= BEAT_SECONDS:
                    beat = now
                    self._beat(now)
                self._read(now)
            except Exception as exc:  # the store is away: try again at the next round
                log.warning("presence: %s", exc)

    def _beat(self, now: float) -> None:
        table = self._table_or_none()
        if table is None:
            return
        with self._writing:
            with self._lock:
                rows = [(str(g), seat, self.holder, now)
                        for g, counts in self._local.items() for seat in counts]
            # One transaction: another process never reads this one's seats as gone meanwhile.
            table.run_all([("DELETE FROM {table} WHERE holder = ? OR seen < ?",
                            (self.holder, now - 4 * TTL_SECONDS))]
                          + [(UPSERT, row) for row in rows])

    def _read(self, now: float) -> None:
        table = self._table_or_none()
        if table is None:
            return
        found: dict[UUID, set[str]] = {}
        for game_id, seat in table.read("SELECT game_id, seat FROM {table}"
                                        " WHERE seen > ? AND holder <> ?",
                                        now - TTL_SECONDS, self.holder):
            found.setdefault(UUID(game_id), set()).add(seat)
        with self._lock:
            before = self._others
            self._others = {g: frozenset(s) for g, s in found.items()}
        self._changed(set(before) | set(found))

    def _changed(self, game_ids: Any) -> None:
        """Tell the listeners of the games whose present seats are not what they last heard."""
        changed, listeners = [], []
        for game_id in game_ids:
            seats = self._seats(game_id)
            with self._lock:
                if self._told.get(game_id, frozenset()) == seats:
                    continue
                if seats:
                    self._told[game_id] = seats
                else:
                    self._told.pop(game_id, None)
                listeners = list(self._listeners)
            changed.append(game_id)
        if not changed:
            return
        for listener in listeners:
            for game_id in changed:
                try:
                    listener(game_id)
                except Exception:
                    log.exception("presence: a listener failed on %s", game_id)


def is_shared(recorder: Any) -> bool:
    """Whether other processes may share this recorder's store (a file or a server)."""
    datastore = getattr(recorder, "datastore", None)
    if datastore is None:
        return False
    pool = getattr(datastore, "pool", None)
    return not getattr(pool, "is_sqlite_memory_mode", False)

