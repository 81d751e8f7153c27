"""Who runs the projection, and how readers wait for it.

Exactly one runner follows the log per store: whoever holds the runner lock — an exclusive
`flock` on a file beside the SQLite views, or a PostgreSQL session advisory lock. Both are
released by the operating system or the server when their holder dies, so a standby takes
over. A runner is either a `gruft project` process (GRUFT_PROJECTIONS=external) or a daemon
thread inside an API worker (GRUFT_PROJECTIONS=embedded, the default): every worker's thread
tries the lock, one wins, the others retry every few seconds.

Readers see views that may lag. A read first waits (at most GRUFT_VIEWS_WAIT seconds, 5 by
default) until the view's tracking position reaches the head of the log as it was when the
read began, so a client that created or changed a game sees it in its next read.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from service import operator_metrics
from service.app import Games
from service.readmodels.projection import NAME, ReadModelRunner, open_view, sibling_db, views_env
from service.readmodels.views import ReadModelView

log = logging.getLogger("gruft.projections")

LOCK_RETRY_SECONDS = 2.0

T = TypeVar("T")


class RunnerBusy(RuntimeError):
    """Another projection runner holds the lock."""


# -- the runner lock -------------------------------------------------------------------------

class RunnerLock:
    """The lock that makes one runner per store; released if its holder dies.

    `name` says which runner: the projection's by default; the bot seats' runner (service.runners.bot_runner)
    takes a lock of its own with the same mechanics.
    """

    def __init__(self, env: Mapping[str, str], name: str = NAME) -> None:
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

    dbname = env.get("READMODELS_SQLITE_DBNAME") or sibling_db(env.get("SQLITE_DBNAME", ""))
    if dbname.startswith("file:") or ":memory:" in dbname:
        lock = _MemoryLock(f"{dbname}#{name}")
        return lock if lock.try_acquire() else None
    path = Path(f"{dbname}.runner.lock" if name == NAME else f"{dbname}.{name}-runner.lock")
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


# -- the embedded runners --------------------------------------------------------------------

class EmbeddedThread:
    """A daemon thread of an API worker, tied to its Application: it ends when the Application
    closes (before its store does) or is let go, and at exit. The embedded read-model, bot and
    clock runners are each one; a subclass sets up what `_work` needs, then calls this."""

    _all: weakref.WeakSet[EmbeddedThread] = weakref.WeakSet()

    def __init__(self, games: Games, name: str) -> None:
        self._stop = threading.Event()
        weakref.finalize(games, self._stop.set)  # the worker's Application is gone: stop
        self._thread = threading.Thread(target=self._work, daemon=True, name=name)
        EmbeddedThread._all.add(self)
        games.at_close(self.stop)
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


class EmbeddedRunner(EmbeddedThread):
    """A daemon thread in an API worker that, while it holds the lock, keeps the views through
    a feed subscribed to the worker's own log follower."""

    def __init__(self, games: Games, env: Mapping[str, str]) -> None:
        self.env = dict(env)
        self.runner: ReadModelRunner | None = None
        self._games = weakref.ref(games)
        super().__init__(games, "gruft-projections")

    def nudge(self) -> None:
        """Make the runner look for new events now."""
        runner = self.runner
        if runner is not None:
            runner.nudge()

    def _work(self) -> None:
        supervise(RunnerLock(self.env), self._stop, self._run_once, log, "projection runner")

    def _run_once(self) -> bool:
        """Keep the views until stopped; False if the worker's Application is gone."""
        app = self._games()
        if app is None:
            return False
        try:
            with ReadModelRunner(self.env, app=app) as runner:
                del app  # held weakly: a worker's Application can be let go
                self.runner = runner
                self._stop.wait()
        finally:
            self.runner = None
        return True


# -- the read side of one Games application --------------------------------------------------

class ReadModels:
    """The views as one API worker reads them, and (embedded) the runner that keeps them."""

    def __init__(self, games: Games) -> None:
        self.env = views_env({**games.storage})
        self.mode = games.settings.projections
        self.wait_seconds = games.settings.views_wait
        self._games = weakref.ref(games)
        self._head: Callable[[], int | None] = games.recorder.max_notification_id
        self.view: ReadModelView = open_view(self.env)
        self.app_name = games.name
        self.embedded = EmbeddedRunner(games, self.env) if self.mode == "embedded" else None
        self._stalled_at: int | None = None
        games.at_close(self.close)  # the views' connections close with the Application

    def position(self) -> int:
        """The last event the views include."""
        return self.view.max_tracking_id(self.app_name) or 0

    def catch_up(self, timeout: float | None = None) -> bool:
        """Wait until the views include every event stored before this call (bounded).

        True when they do. After a timeout the caller answers from the views as they are;
        while the position stays where it stalled (no runner?), later reads do not wait
        again unless they name a timeout.
        """
        target = self._head() or 0
        position = self.position()
        if position >= target:
            self._stalled_at = None
            return True
        if self._stalled_at == position and timeout is None:
            return False
        deadline = time.monotonic() + (self.wait_seconds if timeout is None else timeout)
        delay = 0.002
        while position < target:
            runner = self.embedded.runner if self.embedded is not None else None
            if runner is not None:  # this process keeps the views: wait for its feed
                runner.nudge()
                runner.feed.wait(target, max(0.0, deadline - time.monotonic()))
            if time.monotonic() >= deadline and self.position() < target:
                log.warning("views at %s lag the log at %s; answering from them", position,
                            target)
                self._stalled_at = position
                return False
            if runner is None:  # another process keeps them: only their table tells
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
            position = self.position()
        self._stalled_at = None
        return True

    def close(self) -> None:
        """Stop an embedded runner and close the views' connections."""
        if self.embedded is not None:
            self.embedded.stop()
        with contextlib.suppress(Exception):
            self.view.factory.close()  # type: ignore[attr-defined]


class PerApplication(Generic[T]):
    """One object per Games application, made by `make` on first use and kept as long as the
    Application is (weakly keyed, so a worker's Application can be collected)."""

    def __init__(self, make: Callable[[Games], T]) -> None:
        self._make = make
        self._made: weakref.WeakKeyDictionary[Games, T] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()

    def __call__(self, games: Games) -> T:
        """The Application's object, made now if it has none yet (once, however many threads
        ask)."""
        with self._guard:
            found = self._made.get(games)
            if found is None:
                found = self._made[games] = self._make(games)
            return found

    def get(self, games: Games) -> T | None:
        """The Application's object if it was made, else None."""
        return self._made.get(games)


_read_models = PerApplication(ReadModels)


def read_models(games: Games) -> ReadModels:
    """The read side of a Games application (made on first use, one per Application)."""
    return _read_models(games)


# -- the commands ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    """How far a runner got."""

    position: int
    head: int
    events: int
    seconds: float
    loads: int


def run(env: Mapping[str, str] | None = None, *, once: bool = False, lock_wait: float | None = None,
        stop: threading.Event | None = None,
        report: Callable[[Progress], None] | None = None, report_every: float = 5.0) -> Progress:
    """Follow the log with the lock held: until stopped, or (`once`) until the head is reached.

    Without `lock_wait` it waits for the lock as long as it takes (a hot standby).
    """
    env = views_env(env)
    stop = stop or threading.Event()
    lock = RunnerLock(env)
    lock.take(lock_wait, stop, "another projection runner holds the lock")
    try:
        return _follow(env, once=once, stop=stop, report=report, report_every=report_every)
    finally:
        lock.release()


def _follow(env: Mapping[str, str], *, once: bool, stop: threading.Event,
            report: Callable[[Progress], None] | None, report_every: float) -> Progress:
    started = time.monotonic()
    with ReadModelRunner(env) as runner:
        first = runner.position

        def progress() -> Progress:
            position = runner.position
            return Progress(position, runner.head(), position - first,
                            time.monotonic() - started, runner.projection.loads)

        target = runner.head() if once else None  # `once`: the head as it is now
        last_report = started
        while not stop.is_set():
            # The follower's thread does the work; this one waits and reports.
            if target is not None:
                if runner.feed.wait(target, min(report_every, 0.5)):
                    break
            else:
                stop.wait(min(report_every, 0.5))
            if report is not None and time.monotonic() - last_report >= report_every:
                report(progress())
                last_report = time.monotonic()
        done = progress()
    return done


def rebuild(env: Mapping[str, str] | None = None, *, lock_wait: float = 10.0,
            report: Callable[[Progress], None] | None = None) -> Progress:
    """Drop every view and its position, then project the whole log again, with the lock held."""
    env = views_env(env)
    lock = RunnerLock(env)
    if not lock.acquire(timeout=lock_wait):
        raise RunnerBusy("a projection runner holds the lock: stop `gruft project` (or the "
                         "API workers that run it embedded) and rebuild again")
    try:
        view = open_view(env)
        try:
            view.drop_views(Games.name)
        finally:
            view.factory.close()  # type: ignore[attr-defined]
        return _follow(env, once=True, stop=threading.Event(), report=report, report_every=5.0)
    finally:
        lock.release()


def status(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Where the views are against the log, and whether a runner holds the lock."""
    env = views_env(env)
    games = Games(env)
    view = open_view(env)
    try:
        position = view.max_tracking_id(Games.name) or 0
        head = games.recorder.max_notification_id() or 0
        lock = RunnerLock(env)
        free = lock.acquire()
        lock.release()
        return {"position": position, "head": head, "lag": head - position,
                "runner": "none" if free else "running"}
    finally:
        view.factory.close()  # type: ignore[attr-defined]
        games.close()

