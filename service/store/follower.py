"""The one follower of the log in a process: it reads new notifications and hands them, in log
order, to its subscribers.

Subscribers are the live streams (service.live.watches), the read models (service.readmodels), the bot
runner (service.runners.bot_runner) — and whatever else needs to learn of every stored event. No other module
reads the log to learn what changed: one reader per process, whatever the number of subscribers.

How it learns that there is something new to read:
- PostgreSQL: it LISTENs on the channel every write NOTIFYs (delivered at commit; the notice
  names the games written, handed at once to the `hearing` listener), reads the log `poll`
  seconds after a notice, and also every FALLBACK_SECONDS in case a notice was lost;
- SQLite in a file: it reads every `poll` seconds (GRUFT_LIVE_POLL, 0.01 by default): SQLite has
  no NOTIFY, and another worker may have written; one indexed query, mostly finding nothing;
- one process holding the whole store (in memory): `nudge` after each commit wakes it.

A subscriber is one small object with two members (see docs/architecture.md):

    class Subscriber(Protocol):
        position: int            # the last notification id it has taken (0: none)
        def receive(self, notifications: Sequence[Notification]) -> None: ...

The follower calls `receive` from its own thread with the notifications after the subscriber's
`position`, in log order, a page at a time; `receive` takes them and moves `position` (to the
last one's id, or wherever it got: what it did not take comes again). A subscriber that raises
is logged and handed the same notifications again RETRY_SECONDS later. A subscriber that lags
(a read model rebuilt from 0) gets one page per round, so it never holds up the others.
`receive` runs in the follower's thread: keep it short, and hand slow work to a thread of
your own (the bot runner does).

A subscriber may also be patient: with a `patience` of so many seconds, it is handed what is
new at most that often, in larger pages, unless someone `hurry`s the follower (a reader waits
for it). The read models are: each of their transactions costs about as much as the events in
it, and one per command was a good part of a PostgreSQL command's cost
(docs/performance.md). The streams, freshness and bots are not: they are handed each commit.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from service import operator_metrics

log = logging.getLogger("gruft.follower")

POLL_SECONDS = 0.01  # how often an SQLite follower reads the log (one indexed query)
FALLBACK_SECONDS = 2.0  # a PostgreSQL follower also reads this often, NOTIFY or not
LISTEN_SLICE = 0.05  # a PostgreSQL follower looks for a nudge this often while it listens
IDLE_SECONDS = 1.0  # a follower of an in-memory store reads this often without a nudge
RETRY_SECONDS = 1.0  # after a store error or a failing subscriber, tried again this late
PAGE = 500  # notifications read at a time
UNSUBSCRIBE_WAIT = 30.0  # the longest an unsubscribing caller waits for a `receive` under way
STUCK_SECONDS = 30.0  # a follower with subscribers that ends no round for this long is stuck


class Subscriber(Protocol):
    """What the follower feeds: a position in the log, and a way to take what comes after."""

    position: int

    def receive(self, notifications: Sequence[Any]) -> None:
        """Take notifications after `position`, in log order, and move `position`."""


class Follower:
    """The reader of one Application's log, feeding its subscribers in order."""

    def __init__(self, recorder: Any, poll: float = POLL_SECONDS) -> None:
        self._recorder = recorder
        self._poll = poll
        self.kind = follower_kind(recorder)
        self._lock = threading.Lock()
        self._handed = threading.Condition(self._lock)  # signalled when a `receive` returns
        self._receiving: tuple[Subscriber, int] | None = None  # whose `receive` runs, in which thread
        self._subscribers: list[Subscriber] = []
        self._retry_at: dict[int, float] = {}  # id(subscriber) -> when it is tried again
        # Patient subscribers: id -> when each is next handed anything; the earliest of those
        # still to come, when the thread wakes for them without a notice.
        self._due_at: dict[int, float] = {}
        self._wake_at: float | None = None
        self._nudged = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._then: Callable[[], None] | None = None  # close() from this thread: at its end
        self._heard: Callable[[list[tuple[str, int]]], None] | None = None  # see hearing()
        self._pid = os.getpid()
        # How it is doing (GET /readyz, GET /metrics): the furthest any subscriber has taken,
        # when a round last ended, and when one last found nothing more to hand on.
        self._started_at = time.monotonic()
        self.position = 0
        self.round_at: float | None = None  # time.monotonic()
        self.caught_up_at: float | None = None  # time.time()
        self._listening = False  # a PostgreSQL follower's LISTEN is up and it has caught up

    # -- the interface ---------------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Feed `subscriber` from its `position` on; answers the function that unsubscribes
        it (after which it is never called again once any call under way has returned)."""
        with self._lock:
            if subscriber not in self._subscribers:
                self._subscribers.append(subscriber)
        self._ensure_thread()
        self.nudge()

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)
                    self._retry_at.pop(id(subscriber), None)
                    self._due_at.pop(id(subscriber), None)
                # A call under way ends first: the caller may close what `receive` uses (the
                # views' SQLite connection, closed under a running statement, crashed the
                # process).
                self._handed.wait_for(lambda: self._receiving is None or (
                    self._receiving[0] is not subscriber
                    or self._receiving[1] == threading.get_ident()), timeout=UNSUBSCRIBE_WAIT)

        return unsubscribe

    @property
    def listening(self) -> bool:
        """Whether this process's follower hears every commit now (PostgreSQL: its LISTEN
        connection is up and it has read what was stored before; never in a forked child
        whose follower has not started)."""
        thread = self._thread
        return (self._listening and os.getpid() == self._pid and thread is not None
                and thread.is_alive())

    def head(self) -> int:
        """The id of the newest notification stored (0: none)."""
        return self._recorder.max_notification_id() or 0

    def hearing(self, heard: Callable[[list[tuple[str, int]]], None]) -> None:
        """Have `heard(pairs)` told, in the follower's thread, of each write's games and
        their newest versions as soon as PostgreSQL's notice says them (before the log is
        read); one listener per follower."""
        self._heard = heard

    def nudge(self) -> None:
        """Read the log now rather than at the next look (something was just stored, or a
        reader in this process waits for a subscriber to catch up)."""
        self._nudged.set()

    def hurry(self) -> None:
        """Read the log now and hand the patient subscribers what is new as well (a reader in
        this process waits for one)."""
        with self._lock:
            self._due_at.clear()
        self.nudge()

    def stuck(self, seconds: float = STUCK_SECONDS) -> str | None:
        """Why this follower is stuck (a sentence), or None: with subscribers, its thread
        must be alive and have ended a round in the last `seconds`."""
        with self._lock:
            if not self._subscribers or self._stop.is_set():
                return None
        thread = self._thread
        if thread is None or not thread.is_alive() or os.getpid() != self._pid:
            return "the log follower's thread is not running"
        since = time.monotonic() - (self.round_at or self._started_at)
        if since > seconds:
            return (f"the log follower has ended no round for {since:.0f} s (a subscriber "
                    "that does not return, or a store that does not answer)")
        return None

    def close(self, then: Callable[[], None] | None = None) -> None:
        """Stop the thread (a call under way finishes first), then call `then` (which closes
        the store). Called from the follower's own thread (an Application let go and
        collected there, in the middle of a query), `then` waits until the thread's loop has
        ended: SQLite's library crashes the process when a connection is closed under a
        statement still being read."""
        self._stop.set()
        self._nudged.set()
        thread = self._thread
        if thread is not None and thread is threading.current_thread():
            self._then = then
            return
        if thread is not None:
            thread.join(30)  # a query may wait out SQLITE_LOCK_TIMEOUT: never close under it
        if then is not None:
            then()

    # -- the thread ------------------------------------------------------------------------

    def _ensure_thread(self) -> None:
        if os.getpid() != self._pid:  # forked after it started: this process needs its own
            self._pid, self._thread = os.getpid(), None
        if self._stop.is_set():
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, daemon=True, name="gruft-follower")
            self._started_at = time.monotonic()
            self._thread.start()

    def _run(self) -> None:
        try:
            self._follow()
        finally:
            then, self._then = self._then, None
            if then is not None:
                then()

    def _follow(self) -> None:
        while not self._stop.is_set():
            try:
                if self.kind == "postgres":
                    self._listen()
                else:
                    self._nudged.clear()
                    self.feed()
                    self._nudged.wait(self._pause(
                        self._poll if self.kind == "sqlite" else IDLE_SECONDS))
            except Exception as exc:  # a locked file, a server gone: try again a little later
                if self._stop.is_set():
                    return
                log.warning("log follower: reading the log failed: %s", exc)
                self._stop.wait(RETRY_SECONDS)

    def _listen(self) -> None:
        with listening_connection(self._recorder) as conn:
            # Listening first, then reading what came since: a later commit is notified.
            self._nudged.clear()
            self.feed()
            looked = time.monotonic()
            self._listening = True
            try:
                self._hear(conn, looked)
            finally:
                self._listening = False

    def _hear(self, conn: Any, looked: float) -> None:
        """Read the log after each notice (or nudge, or when a patient subscriber comes due,
        or every FALLBACK_SECONDS) until stopped.

        A notice that says which games changed (service/store/postgres.py) goes to the `heard`
        listener at once (service/store/freshness.py: a worker's copy of such a game is not trusted
        from that moment), and the log is read `poll` seconds later, with whatever else came
        meanwhile, as an SQLite follower reads it: one read per worker for many commits, not
        one per commit. A notice that says nothing is read at once."""
        # PostgreSQL only (psycopg: the postgres extra)
        from service.store.postgres import heard_in, notices

        while not self._stop.is_set():
            for payload in notices(conn, self._pause(LISTEN_SLICE)):
                heard = heard_in(payload) if self._heard is not None else None
                if heard is None:
                    self._nudged.set()
                else:
                    self._heard(heard)
                    later = time.monotonic() + self._poll
                    if self._wake_at is None or later < self._wake_at:
                        self._wake_at = later
            now = time.monotonic()
            if self._nudged.is_set() or now - looked >= FALLBACK_SECONDS or (
                    self._wake_at is not None and now >= self._wake_at):
                self._nudged.clear()
                self.feed()
                looked = time.monotonic()

    def feed(self) -> None:
        """Hand every subscriber what the log holds after its position (the thread's round;
        callable directly in a test)."""
        self._wake_at = None  # this round hands over whatever is due
        while not self._stop.is_set():
            if not self._feed_page():
                self._round_ended()
                return

    def _feed_page(self) -> bool:
        """One page to each group of subscribers at a position; whether there is more."""
        groups: dict[int, list[Subscriber]] = {}
        waiting: list[float] = []  # when the patient subscribers left out now come due
        now = time.monotonic()
        with self._lock:
            for subscriber in self._subscribers:
                key = id(subscriber)
                if self._retry_at.get(key, 0.0) > now:
                    continue
                due = self._due_at.get(key, 0.0)
                if due > now:
                    waiting.append(due)
                else:
                    groups.setdefault(subscriber.position, []).append(subscriber)
        more = False
        for position in sorted(groups, reverse=True):  # those at the head first
            notes = self._recorder.select_notifications(start=position, limit=PAGE,
                                                        inclusive_of_start=False)
            if notes and self._hand(groups[position], notes):
                more = more or len(notes) == PAGE
        if waiting:
            # Something may have come that a patient subscriber left out now has not taken:
            # look again when it comes due (a follower told to look seldom, GRUFT_LIVE_POLL,
            # looks again only after a round that left one out).
            due = min(waiting)
            if self._wake_at is None or due < self._wake_at:
                self._wake_at = due
        return more

    def _pause(self, longest: float) -> float:
        """How long the thread may wait for a notice: `longest`, or less when a patient
        subscriber comes due sooner."""
        wake_at = self._wake_at
        if wake_at is None:
            return longest
        return max(0.0, min(longest, wake_at - time.monotonic()))

    def _round_ended(self) -> None:
        with self._lock:
            positions = [s.position for s in self._subscribers]
            now = time.monotonic()
            behind = any(when > now for when in self._retry_at.values())
        self.position = max([self.position, *positions])
        self.round_at = time.monotonic()
        if not behind:
            self.caught_up_at = time.time()
        operator_metrics.follower_round(self)

    def _hand(self, subscribers: list[Subscriber], notes: Sequence[Any]) -> bool:
        """Hand `notes` to each subscriber; whether any of them moved on."""
        moved = False
        for subscriber in subscribers:
            before = subscriber.position
            with self._lock:
                if subscriber not in self._subscribers:
                    continue  # unsubscribed during this round
                self._receiving = (subscriber, threading.get_ident())
            try:
                subscriber.receive(notes)
            except Exception:  # one subscriber's failure must not stop the others
                log.exception("log follower: %s failed at %s", type(subscriber).__name__,
                              notes[0].id)
                with self._lock:
                    self._retry_at[id(subscriber)] = time.monotonic() + RETRY_SECONDS
            else:
                self._retry_at.pop(id(subscriber), None)
                moved = moved or subscriber.position > before
                patience = getattr(subscriber, "patience", 0.0)
                if patience and len(notes) < PAGE:  # caught up: next time, a while from now
                    with self._lock:
                        self._due_at[id(subscriber)] = time.monotonic() + patience
            finally:
                with self._lock:
                    self._receiving = None
                    self._handed.notify_all()
        return moved


def follower_kind(recorder: Any) -> str | None:
    """How a recorder's log is followed: 'postgres' (LISTEN), 'sqlite' (a file, polled), or
    None (in memory: one process holds the store, and nudges its follower)."""
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
