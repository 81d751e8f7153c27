"""Who runs the projection, and how readers wait for it.

Exactly one runner follows the log per store: whoever holds the runner lock — an exclusive
`flock` on a file beside the SQLite views, or a PostgreSQL session advisory lock. Both are
released by the operating system or the server when their holder dies, so a standby takes
over. A runner is either a `gruft project` process (GRUFT_PROJECTIONS=external) or a daemon
thread inside an API worker (GRUFT_PROJECTIONS=embedded, the default): every worker's thread
tries the lock, one wins, the others retry every few seconds. The lock, the supervising loop
and the embedded thread are every runner's (service/runners/machinery.py).

Readers see views that may lag. A read first waits (at most GRUFT_VIEWS_WAIT seconds, 5 by
default) until the view's tracking position reaches the head of the log as it was when the
read began, so a client that created or changed a game sees it in its next read.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.app import Games
from service.readmodels.projection import ReadModelRunner, open_view, views_env
from service.readmodels.views import ReadModelView
from service.runners.machinery import EmbeddedThread, RunnerBusy, RunnerLock, supervise

log = logging.getLogger("gruft.projections")


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

