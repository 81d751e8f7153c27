"""What every runner uses: the lock that makes one runner per store, the loop that keeps a runner
going while it holds the lock, the thread an API worker runs one in, and the one loop the bot
and clock runners share.

A runner is the projection runner (service/readmodels: it keeps the views), the bot runner
(service/runners/bot_runner.py: it plays the bot seats) or the clock runner
(service/runners/clock_runner.py: it plays the seats out of time). Exactly one of each works for
a store: whoever holds its `RunnerLock` — an exclusive `flock` on a file beside the SQLite views,
or a PostgreSQL session advisory lock, both released by the operating system or the server when
their holder dies, so a standby takes over. A runner runs as a thread of an API worker
(`EmbeddedThread`, built, started and stopped by the worker's owner, api/worker.py) or in a
process of its own (`gruft project`, `gruft bots`).
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from service import operator_metrics

if TYPE_CHECKING:
    from service.app import Games

LOCK_RETRY_SECONDS = 2.0
PROJECTION = "readmodels"  # the projection runner's lock (service.readmodels.projection.NAME)
IDLE_SECONDS = 1.0  # a runner with nothing due looks this often whether to stop


class RunnerBusy(RuntimeError):
    """Another runner holds the lock."""


# -- the runner lock -------------------------------------------------------------------------

class RunnerLock:
    """The lock that makes one runner per store; released if its holder dies.

    `name` says which runner: the projection's by default; the bot runner and the clock runner
    take locks of their own ("bots", "clocks") with the same mechanics.
    """

    def __init__(self, env: Mapping[str, str], name: str = PROJECTION) -> None:
        self.env = dict(env)
        self.name = name
        self._held: Any = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._held is not None

    def acquire(self, timeout: float = 0.0, poll: float = 0.2) -> bool:
        """Take the lock, trying for up to `timeout` seconds; True if taken."""
        deadline = time.monotonic() + timeout
        while True:
            if self._try():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(poll, max(0.0, deadline - time.monotonic())))

    def take(self, wait: float | None, stop: threading.Event, busy: str) -> None:
        """Take the lock for a runner command: within `wait` seconds, or (None) as a hot
        standby for as long as it takes, unless `stop` is set; RunnerBusy(`busy`) if not."""
        while not self.acquire(timeout=LOCK_RETRY_SECONDS if wait is None else wait):
            if wait is not None or stop.is_set():
                raise RunnerBusy(busy)

    def release(self) -> None:
        """Give the lock back (closing its file or database session)."""
        held, self._held = self._held, None
        if held is not None:
            held.close()

    def _try(self) -> bool:
        if self._held is not None:
            return True
        module = self.env.get("READMODELS_PERSISTENCE_MODULE") or self.env.get(
            "PERSISTENCE_MODULE")
        if module == "eventsourcing.postgres":
            self._held = _pg_advisory_lock(self.env, self.name)
        else:
            self._held = _file_lock(self.env, self.name)
        return self._held is not None


class _MemoryLock:
    # In-memory stores exist in one process only: a process-wide lock per store name.
    _locks: dict[str, threading.Lock] = {}
    _guard = threading.Lock()

    def __init__(self, name: str) -> None:
        with self._guard:
            self.lock = self._locks.setdefault(name, threading.Lock())

    def try_acquire(self) -> bool:
        return self.lock.acquire(blocking=False)

    def close(self) -> None:
        self.lock.release()


def _file_lock(env: Mapping[str, str], name: str) -> Any:
    import fcntl

    from service.readmodels.projection import sibling_db

    dbname = env.get("READMODELS_SQLITE_DBNAME") or sibling_db(env.get("SQLITE_DBNAME", ""))
    if dbname.startswith("file:") or ":memory:" in dbname:
        lock = _MemoryLock(f"{dbname}#{name}")
        return lock if lock.try_acquire() else None
    path = Path(f"{dbname}.runner.lock" if name == PROJECTION
                else f"{dbname}.{name}-runner.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")  # noqa: SIM115 - held open for as long as the lock is
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def _pg_advisory_lock(env: Mapping[str, str], name: str) -> Any:
    import psycopg

    def get(key: str, default: str = "") -> str:
        return env.get(f"READMODELS_{key}") or env.get(key) or default

    schema = get("POSTGRES_SCHEMA", "public")
    label = f"gruft:{name}:{get('POSTGRES_DBNAME')}:{schema}"
    key = int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "big", signed=True)
    conn = psycopg.connect(dbname=get("POSTGRES_DBNAME"), host=get("POSTGRES_HOST"),
                           port=get("POSTGRES_PORT", "5432"), user=get("POSTGRES_USER"),
                           password=get("POSTGRES_PASSWORD") or None, autocommit=True,
                           connect_timeout=int(get("POSTGRES_CONNECT_TIMEOUT", "10") or 10))
    got = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]
    if not got:
        conn.close()
        return None
    return conn  # the session holds the lock until it is closed (or the process dies)


def supervise(lock: RunnerLock, stop: threading.Event, run: Callable[[], bool],
              logger: logging.Logger, what: str) -> None:
    """Call `run` whenever `lock` is held (a standby tries it again every LOCK_RETRY_SECONDS)
    until `stop` is set or `run` answers False (its Application is gone); a run that fails is
    logged and started again, from the stored state, after a pause growing with the failures.
    The lock is given back at the end."""
    failures = 0
    try:
        while not stop.is_set():
            if not lock.acquire():
                stop.wait(LOCK_RETRY_SECONDS)
                continue
            try:
                with operator_metrics.Running(lock.name):
                    if not run():
                        return
            except Exception:
                failures += 1
                logger.exception("%s failed; starting again", what)
                stop.wait(min(30.0, LOCK_RETRY_SECONDS * failures))
    finally:
        lock.release()


# -- the one loop of the bot and clock runners -----------------------------------------------

class Feed:
    """A runner's subscriber to the log follower (docs/architecture.md, "Writing a
    subscriber"): it hands the runner what the log says, for the runner's own thread to act on
    (nothing is played in the follower's thread)."""

    def __init__(self, runner: DueRunner) -> None:
        self._runner = runner
        self.mapper: Any = None  # set when the runner starts
        self.position = 0

    def receive(self, notifications: Sequence[Any]) -> None:
        """Note the games these notifications begin or change."""
        self._runner.noted(notifications, self.mapper)
        self.position = notifications[-1].id


class DueRunner:
    """A runner that looks at games when they are due: the bot runner and the clock runner.

    Its feed notes, from the log, the games to look at and when (`_due`); its own thread (`run`)
    looks at each when due (`_visit`), acts on what those visits found together (`_visited`),
    and sleeps until the next is due, at most IDLE_SECONDS,
    or until the feed or `nudge` wakes it. `games` answers the Application to act through, or
    None once it is gone (an API worker's runner holds it weakly).
    """

    log = logging.getLogger("gruft.runners")
    what = "runner"

    def __init__(self, games: Callable[[], Games | None]) -> None:
        self._games = games
        self._due: dict[UUID, float] = {}  # games to look at, and when (monotonic)
        self._lock = threading.Lock()  # `_due` and what a subclass notes: the feed notes, the
        self._wake = threading.Event()  # runner acts
        self.feed = Feed(self)

    # -- what a runner does (its subclass) ---------------------------------------------------

    def start(self, games: Games) -> None:
        """Find the games to look after, from the store; set the feed's position."""
        raise NotImplementedError

    def noted(self, notifications: Sequence[Any], mapper: Any) -> None:
        """Note the games `notifications` begin or change (from the follower's thread)."""
        raise NotImplementedError

    def _visit(self, games: Games, game_id: UUID) -> Any:
        """Look at one game that is due (from the runner's thread); what it answers, unless
        None, is handed with the others of the same step to `_visited`."""
        raise NotImplementedError

    def _visited(self, games: Games, found: list[Any]) -> None:
        """Act on what this step's visits found, together (the clock runner stores the clocks
        run out in one write: service/runners/clock_runner.py); nothing by default."""

    # -- the loop ----------------------------------------------------------------------------

    def nudge(self) -> None:
        """Look now: at the log (a game was just stored here), then at the games due."""
        games = self._games()
        if games is not None:
            games.follower.nudge()
        self._wake.set()

    def run(self, stop: threading.Event) -> bool:
        """Run until `stop` is set; False if the Application went away (or closed) first."""
        games = self._games()
        if games is None:
            return False
        self.start(games)
        self.feed.mapper = games.mapper
        unsubscribe = games.follower.subscribe(self.feed)
        del games
        try:
            while not stop.is_set():
                wait = self.step()
                if wait is None:
                    return False
                if wait > 0:
                    self._wake.wait(wait)
                    self._wake.clear()
        finally:
            unsubscribe()
        return True

    def step(self) -> float | None:
        """Look at the games that are due; the seconds until the next look (None when the
        Application is gone or closed)."""
        games = self._games()
        if games is None or games.closed:
            return None
        now = time.monotonic()
        with self._lock:
            due = [g for g, at in self._due.items() if at <= now]
            for game_id in due:
                del self._due[game_id]
        found = [one for game_id in due if (one := self._visit(games, game_id)) is not None]
        if found:
            self._visited(games, found)
        with self._lock:
            if not self._due:
                return IDLE_SECONDS
            return max(0.0, min(IDLE_SECONDS, min(self._due.values()) - time.monotonic()))

    def run_while_held(self, lock: RunnerLock, stop: threading.Event) -> None:
        """Run whenever `lock` is held (a standby retries it), until stopped; a run that fails
        is logged and started again from the stored state."""
        supervise(lock, stop, lambda: self.run(stop), self.log, self.what)


# -- the embedded runners --------------------------------------------------------------------

class EmbeddedThread:
    """A daemon thread of an API worker, tied to its Application: its worker's owner
    (api/worker.py) starts it and stops it before the Application closes; it also ends when
    the Application is let go, and at exit. The embedded projection, bot and clock runners are
    each one; a subclass sets up what `_work` needs, then calls this."""

    _all: weakref.WeakSet[EmbeddedThread] = weakref.WeakSet()

    def __init__(self, games: Games, name: str) -> None:
        self._stop = threading.Event()
        weakref.finalize(games, self._stop.set)  # the worker's Application is gone: stop
        self._thread = threading.Thread(target=self._work, daemon=True, name=name)
        EmbeddedThread._all.add(self)
        self._thread.start()

    def _work(self) -> None:
        raise NotImplementedError

    def nudge(self) -> None:
        """Make the runner look at the log now."""

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the runner and give back its lock (the thread's own end does)."""
        self._stop.set()
        self.nudge()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)


@atexit.register
def _stop_embedded_threads() -> None:
    for embedded in list(EmbeddedThread._all):
        embedded.stop(timeout=2.0)


class EmbeddedLoop(EmbeddedThread):
    """The bot runner or the clock runner as a thread of an API worker: it runs while it holds
    the runner's lock (every worker's thread tries it, one wins, the others stand by)."""

    def __init__(self, games: Games, runner: DueRunner, lock: RunnerLock, name: str) -> None:
        self.runner, self.lock = runner, lock
        super().__init__(games, name)

    def _work(self) -> None:
        self.runner.run_while_held(self.lock, self._stop)

    def nudge(self) -> None:
        """Look at the log now (a game was just stored here)."""
        self.runner.nudge()
