"""Live updates: who waits for which game, and how a change stored anywhere wakes them.

One `Live` belongs to one Application (one per worker process). It learns of every stored change:
- saved by this process: `Games.after_commit` calls `announce` right after the commit;
- saved by another server on the same PostgreSQL: a watcher thread LISTENs on the channel that
  eventsourcing NOTIFYs in every insert transaction (delivered only at commit), then reads the
  notification log after the last id it saw;
- saved by another worker on the same SQLite file (SQLite has no NOTIFY): the watcher reads the
  log after the last id it saw every GRUFT_LIVE_POLL seconds (default 0.01).
Before it announces what it read, the watcher hands the stored events of watched games to
`forward` (the Application brings its cached copies up to date with them), so the streams of a
change another process stored find the game at hand, with no second read of the store.
Waiters (streams, long polls) `watch` a game and wait until a version after theirs is announced;
listeners (`subscribe`) are called with (game id, version) for changes, at least once each,
possibly coalesced (a command that stores three events is announced with its last version).
A waiter registers before it reads the store, so a change committed after that read is always
announced to it; the watcher only ever announces what is committed.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

log = logging.getLogger("gruft.live")

POLL_SECONDS = 0.01  # how often an SQLite watcher looks for other workers' writes (one query,
# ~0.02 ms of CPU: at 25 ms the poll was half the delay of the streams a command reaches through it)
FALLBACK_SECONDS = 2.0  # a PostgreSQL watcher also reads the log this often, NOTIFY or not
RETRY_SECONDS = 1.0  # after a store error, the watcher tries again (and reconnects) this late
SELECT_LIMIT = 500  # notifications read at a time
KNOWN_GAMES = 4096  # games whose last announced version is remembered (to announce each once)
GAME_TOPICS = "domain."  # the games' event topics; token hashes (service.tokens) wake nobody

Listener = Callable[[UUID, int], None]
Forward = Callable[[dict[UUID, list[Any]]], None]  # game id -> its notifications, in order


class _Slot:
    """The waiters of one game: their condition and the newest version announced to them."""

    __slots__ = ("cond", "version", "watchers")

    def __init__(self, lock: threading.Lock) -> None:
        self.cond = threading.Condition(lock)
        self.version = 0
        self.watchers = 0


class Watch:
    """Interest in one game, registered until closed: `wait` for versions after a known one."""

    def __init__(self, live: Live, game_id: UUID) -> None:
        self._live = live
        self.game_id = game_id
        self._slot: _Slot | None = live._register(game_id)

    @property
    def latest(self) -> int:
        """The newest version announced since the watch began (0: none yet)."""
        slot = self._slot
        return slot.version if slot is not None else 0

    @property
    def stopping(self) -> bool:
        """Whether this process is stopping: streams end so that clients reconnect elsewhere."""
        return self._live.stopping

    def wait(self, known: int, timeout: float) -> bool:
        """Block until a version after `known` is announced (True) or `timeout` seconds pass;
        also returns (True) at once when the process is stopping."""
        slot = self._slot
        if slot is None:
            raise RuntimeError("this watch is closed")
        live = self._live
        with slot.cond:
            return slot.cond.wait_for(lambda: slot.version > known or live.stopping, timeout)

    def close(self) -> None:
        """Stop watching (a stream whose client left, a long poll answered)."""
        slot, self._slot = self._slot, None
        if slot is not None:
            self._live._unregister(self.game_id, slot)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Live:
    """The change feed of one Application: local announcements plus one watcher thread."""

    def __init__(self, recorder: Any, forward: Forward | None = None,
                 poll: float = POLL_SECONDS) -> None:
        self._recorder = recorder
        self._forward = forward
        self._poll = poll
        self._lock = threading.Lock()
        self._slots: dict[UUID, _Slot] = {}
        self._known: OrderedDict[UUID, int] = OrderedDict()
        self._listeners: list[Listener] = []
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._pid = os.getpid()
        self.stopping = False  # set by `stop_watches`: the process is shutting down

    # -- the interface ---------------------------------------------------------------------

    def watch(self, game_id: UUID) -> Watch:
        """Register interest in a game; use as a context manager, and read the store after."""
        self._ensure_watcher()
        return Watch(self, game_id)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(game_id, version)` on changes (from the thread that learnt of them:
        keep it short); answers the function that unsubscribes it."""
        self._ensure_watcher()
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def announce(self, changes: Iterable[tuple[UUID, int]]) -> None:
        """Wake the waiters of each changed game and tell the listeners, once per new version."""
        fresh: list[tuple[UUID, int]] = []
        with self._lock:
            for game_id, version in changes:
                if self._known.get(game_id, 0) >= version:
                    continue  # already announced (saved here, then seen again in the log)
                self._known[game_id] = version
                self._known.move_to_end(game_id)
                if len(self._known) > KNOWN_GAMES:
                    self._known.popitem(last=False)
                fresh.append((game_id, version))
                slot = self._slots.get(game_id)
                if slot is not None and version > slot.version:
                    slot.version = version
                    slot.cond.notify_all()
            listeners = list(self._listeners) if fresh else []
        for listener in listeners:
            for game_id, version in fresh:
                try:
                    listener(game_id, version)
                except Exception:  # one listener's failure must not stop the feed
                    log.exception("a live listener failed on %s v%s", game_id, version)

    def stop_watches(self) -> None:
        """Wake every watch for good (the worker is stopping): streams end, long polls answer."""
        with self._lock:
            self.stopping = True
            for slot in self._slots.values():
                slot.cond.notify_all()

    def close(self) -> None:
        """Stop the watcher thread."""
        self._stop.set()
        watcher = self._watcher
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(30)  # a query may wait out SQLITE_LOCK_TIMEOUT: never close under it

    # -- waiters ---------------------------------------------------------------------------

    def _register(self, game_id: UUID) -> _Slot:
        with self._lock:
            slot = self._slots.get(game_id)
            if slot is None:
                slot = self._slots[game_id] = _Slot(self._lock)
                slot.version = self._known.get(game_id, 0)
            slot.watchers += 1
            return slot

    def _unregister(self, game_id: UUID, slot: _Slot) -> None:
        with self._lock:
            slot.watchers -= 1
            if slot.watchers <= 0 and self._slots.get(game_id) is slot:
                del self._slots[game_id]

    # -- the watcher of other processes' writes --------------------------------------------

    def _ensure_watcher(self) -> None:
        if os.getpid() != self._pid:  # forked after it started: this process needs its own
            self._pid, self._watcher = os.getpid(), None
        if self._watcher is not None or self._stop.is_set():
            return
        kind = watcher_kind(self._recorder)
        if kind is None:
            return  # one process holds the whole store: its own announcements are all
        with self._lock:
            if self._watcher is not None:
                return
            target = self._watch_postgres if kind == "postgres" else self._watch_sqlite
            # Where the log stands now, read before this returns: a change committed after the
            # first watch or subscription is announced even if it lands before the thread runs.
            try:
                start: int | None = self._head()
            except Exception as exc:  # the thread reads it, retrying, once the store answers
                log.warning("live watcher: reading the log's head failed: %s", exc)
                start = None
            self._watcher = threading.Thread(target=target, args=(start,), daemon=True,
                                             name="gruft-live")
            self._watcher.start()

    def _pull(self, last: int) -> int:
        """Announce the games changed in the log after notification id `last`; the new last."""
        while True:
            notes = self._recorder.select_notifications(start=last, limit=SELECT_LIMIT,
                                                        inclusive_of_start=False)
            newest: dict[UUID, int] = {}
            stored: dict[UUID, list[Any]] = {}
            for note in notes:
                if note.topic.startswith(GAME_TOPICS):
                    newest[note.originator_id] = max(newest.get(note.originator_id, 0),
                                                     note.originator_version)
                    stored.setdefault(note.originator_id, []).append(note)
                last = max(last, note.id)
            if newest:
                self._forward_watched(stored)
                self.announce(newest.items())
            if len(notes) < SELECT_LIMIT:
                return last

    def _forward_watched(self, stored: dict[UUID, list[Any]]) -> None:
        """Hand `forward` the new events of the games somebody here watches (not those this
        process announced already: it stored them itself)."""
        if self._forward is None:
            return
        with self._lock:
            watched = {game_id: notes for game_id, notes in stored.items()
                       if game_id in self._slots
                       and self._known.get(game_id, 0) < notes[-1].originator_version}
        if watched:
            try:
                self._forward(watched)
            except Exception:  # the streams then read the store themselves, as before
                log.exception("live watcher: forwarding cached games failed")

    def _head(self) -> int:
        return self._recorder.max_notification_id() or 0

    def _watch_sqlite(self, last: int | None) -> None:
        while not self._stop.wait(self._poll if last is not None else 0):
            try:
                # One query a poll: what came after `last` (none, mostly, when idle). Asking
                # max(id) first cost a second query on every poll that found something.
                last = self._head() if last is None else self._pull(last)
            except Exception as exc:  # a locked or vanished file: try again a little later
                log.warning("live watcher: reading the log failed: %s", exc)
                self._stop.wait(RETRY_SECONDS)

    def _watch_postgres(self, last: int | None) -> None:
        while not self._stop.is_set():
            try:
                with listening_connection(self._recorder) as conn:
                    # Listening first, then reading what came since: a later commit is notified.
                    last = self._head() if last is None else self._pull(last)
                    while not self._stop.is_set():
                        notified = False
                        for _ in conn.notifies(timeout=FALLBACK_SECONDS, stop_after=1):
                            notified = True
                        if notified or self._head() > last:
                            last = self._pull(last)
            except Exception as exc:  # the server went away: reconnect, then read what we missed
                if self._stop.is_set():
                    return
                log.warning("live watcher: PostgreSQL listener failed: %s", exc)
                self._stop.wait(RETRY_SECONDS)


def watcher_kind(recorder: Any) -> str | None:
    """Which watcher a recorder needs: 'postgres', 'sqlite' (a file), or None (in memory)."""
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    try:
        from eventsourcing.postgres import PostgresApplicationRecorder
    except ImportError:  # psycopg not installed: no PostgreSQL store either
        PostgresApplicationRecorder = ()  # type: ignore[assignment,misc]  # noqa: N806
    if isinstance(recorder, PostgresApplicationRecorder):
        return "postgres"
    if isinstance(recorder, SQLiteApplicationRecorder):
        return None if recorder.datastore.pool.is_sqlite_memory_mode else "sqlite"
    return None


def listening_connection(recorder: Any) -> Any:
    """A connection of its own (not one of the pool's), LISTENing on the recorder's channel."""
    import psycopg
    from psycopg import sql

    settings = {k: v for k, v in recorder.datastore.pool.kwargs.items() if k != "row_factory"}
    settings["password"] = settings.get("password") or None
    conn = psycopg.connect(**settings, autocommit=True, connect_timeout=10)
    conn.execute(sql.SQL("LISTEN {0}").format(sql.Identifier(recorder.channel_name)))
    return conn
