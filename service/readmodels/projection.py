"""The projection that keeps the read models, and the runner that feeds it the games' log.

Built on `eventsourcing.projection`: `ProjectionRunner` subscribes to the games application
from the view's tracking position and calls `GameViews.process_event` for each event in log
order. The projection applies the events of one pulled batch of the log in one transaction
with the position of the last (`BATCH_MAX` at most): a transaction per event cost ~0.2 ms of
SQLite work each, a third of a command's CPU under load (docs/performance.md). SQLite has no
LISTEN/NOTIFY, and eventsourcing's SQLite recorder no subscription; `PollingSQLiteRecorder`
adds one on the library's own `ListenNotifySubscription`, woken by a short timer (and at once
by readers in the same process) instead of by the database.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.application import Application
from eventsourcing.persistence import InfrastructureFactory, ListenNotifySubscription, Tracking
from eventsourcing.projection import BaseProjectionRunner, Projection, ProjectionRunner
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteTrackingRecorder
from eventsourcing.utils import Environment, get_topic

from domain.core import Game, event_data
from service.app import Games
from service.internals import pulled_all, tune_pool, wake
from service.readmodels.views import GameUpdate, ReadModelView, SQLiteReadModelView
from service.settings import storage_env

NAME = "readmodels"  # the projection: env prefix READMODELS_*, PostgreSQL readmodels_tracking
MIRROR_SIZE = 512  # games in progress whose state the projection keeps between events
POLL_SECONDS = 0.05  # how soon an SQLite runner sees another process's write
# Events applied in one transaction at most (eventsourcing pulls 500 at a time); READMODELS_BATCH
# lowers it (smaller transactions; the crash test needs a runner that is mid-way for longer).
BATCH_MAX = max(1, int(os.environ.get("READMODELS_BATCH") or 500))


class GameViews(Projection[ReadModelView]):
    """Every stored event, in log order, into the game index and the player statistics.

    The views need only the generic fields of a game (`KEY`, `players`, `finished`, `scores`,
    `winners`): the projection keeps a copy of each game in progress and applies each event to
    it exactly as the repository would, so no game's event types are named here except by the
    per-game averages (`metrics`). A copy missing after a restart is loaded at that event's
    version from the games' own store (snapshots make that short). Events of other aggregates
    (the token hashes) change no view: only the position moves past them.
    """

    name = NAME
    topics = ()  # every event, so the position reaches the log's head (read-your-writes)

    def __init__(self, view: ReadModelView, load: Any = None,
                 caught_up: Callable[[], bool] = lambda: True) -> None:
        super().__init__(view)
        self._load = load  # (game id, version) -> the game after that event
        self._mirror: OrderedDict[UUID, Game] = OrderedDict()
        self.loads = 0  # mirror misses, for the benchmark figures
        # Whether the feed has no further event at hand: then what is pending is written. By
        # default at once (one transaction per event); the runner asks its subscription.
        self._caught_up = caught_up
        self._pending: list[GameUpdate] = []

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Apply one event to the views; written with its position once the batch is done.

        Until then neither the updates nor the position are stored: a runner that stops in
        between leaves the position before them, and the next runner projects them again.
        """
        if isinstance(domain_event, Game.Event):
            self._pending.append(self._update(domain_event, tracking))
        if self._caught_up() or len(self._pending) >= BATCH_MAX:
            pending, self._pending = self._pending, []
            self.view.apply(pending, tracking)

    def _update(self, domain_event: Any, tracking: Tracking) -> GameUpdate:
        game = self._follow(domain_event)
        version = domain_event.originator_version
        return GameUpdate(
            game_id=str(domain_event.originator_id),
            game=game.KEY,
            version=version,
            at=domain_event.timestamp.isoformat(),
            position=tracking.notification_id,
            players=list(game.players) if version == Game.INITIAL_VERSION else None,
            origin=domain_event.hash if version == Game.INITIAL_VERSION else None,
            samples=game.samples(type(domain_event).__name__, event_data(domain_event)),
            finished=game.finished,
            aborted=game.aborted,
            scores=dict(game.scores) if game.finished else {},
            winners=list(game.winners) if game.finished else [],
        )

    def _follow(self, event: Any) -> Game:
        """The game right after `event`, from the kept copy or, failing that, the store."""
        game_id, version = event.originator_id, event.originator_version
        kept = self._mirror.pop(game_id, None)
        if version == Game.INITIAL_VERSION:
            game = event.mutate(None)
        elif kept is not None and kept.version == version - 1:
            game = event.mutate(kept)
        else:
            if self._load is None:
                raise LookupError(f"game {game_id} is not followed from its start")
            game = self._load(game_id, version)
            self.loads += 1
        if not game.finished:  # a finished game has no more events
            self._mirror[game_id] = game
            while len(self._mirror) > MIRROR_SIZE:
                self._mirror.popitem(last=False)
        return game


class SQLitePollingSubscription(ListenNotifySubscription[SQLiteApplicationRecorder]):
    """eventsourcing's pull-on-notify subscription, where the notification is a short timer."""

    def __init__(self, recorder: SQLiteApplicationRecorder, gt: int | None = None,
                 topics: Sequence[str] = (), interval: float = POLL_SECONDS) -> None:
        self._stopping = threading.Event()
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        self._interval = interval
        self._ticker = threading.Thread(target=self._tick, name="gruft-views-poll")
        self._ticker.start()

    def _tick(self) -> None:
        while not self._stopping.wait(self._interval):
            wake(self)

    def nudge(self) -> None:
        """Look for new events now (a reader in this process is waiting for them)."""
        wake(self)

    def stop(self) -> None:
        """Stop pulling and ticking."""
        self._stopping.set()
        super().stop()

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            self._ticker.join()


class PollingSQLiteRecorder(SQLiteApplicationRecorder):
    """SQLite's application recorder with a subscription (a timer stands in for NOTIFY)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subscriptions: weakref.WeakSet[Any] = weakref.WeakSet()

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
        """Events after `gt`, waiting for new ones; polled every POLL_SECONDS."""
        interval = float(os.environ.get("GRUFT_VIEWS_POLL", POLL_SECONDS))
        subscription = SQLitePollingSubscription(self, gt=gt, topics=topics, interval=interval)
        self.subscriptions.add(subscription)
        return subscription

    def nudge(self) -> None:
        """Wake every subscription of this recorder."""
        for subscription in list(self.subscriptions):
            subscription.nudge()


def views_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The storage settings of games and views: eventsourcing's variables, READMODELS_* first.

    SQLite views live in a file beside the games' (`games.sqlite` -> `games.views.sqlite`) so
    the projection never waits on the games' write lock; READMODELS_SQLITE_DBNAME overrides.
    PostgreSQL views live in the games' database and schema. The in-memory store (popo) gets
    in-memory SQLite views, followed inside the one process that holds the games.
    """
    env = storage_env(env)
    module = env.get("PERSISTENCE_MODULE")
    if module == "eventsourcing.sqlite" and not env.get("READMODELS_SQLITE_DBNAME"):
        env["READMODELS_SQLITE_DBNAME"] = sibling_db(env["SQLITE_DBNAME"])
    elif module == "eventsourcing.popo":
        env.setdefault("READMODELS_PERSISTENCE_MODULE", "eventsourcing.sqlite")
        env.setdefault("READMODELS_SQLITE_DBNAME",
                       f"file:gruft-views-{uuid4().hex}?mode=memory&cache=shared")
    if module == "eventsourcing.sqlite":
        env.setdefault("GRUFT_APPLICATION_RECORDER_TOPIC", get_topic(PollingSQLiteRecorder))
    return env


def sibling_db(games_db: str) -> str:
    """Where SQLite views go for a games file; an in-memory or URI store keeps them inside."""
    if games_db.startswith("file:") or ":memory:" in games_db:
        return games_db
    path = Path(games_db)
    return str(path.with_name(f"{path.stem}.views{path.suffix or '.sqlite'}"))


def open_view(env: Mapping[str, str]) -> ReadModelView:
    """The views' recorder for an environment from `views_env` (tables created if missing)."""
    factory = InfrastructureFactory.construct(env=Environment(NAME, {**os.environ, **env}))
    tracking_class: Any = factory.tracking_recorder_class
    if issubclass(tracking_class, SQLiteTrackingRecorder):
        view_class: Any = SQLiteReadModelView
        # NORMAL: no fsync per commit; a power cut may lose the last batches, each with its
        # tracking record, so the runner simply projects those events again.
        tune_pool(factory.datastore.pool, "NORMAL")
    elif _is_postgres(tracking_class):
        from service.readmodels.postgres import PostgresReadModelView

        view_class = PostgresReadModelView
    else:
        raise RuntimeError(f"no read-model views for {tracking_class.__name__}")
    view = factory.tracking_recorder(view_class)
    view.factory = factory  # type: ignore[attr-defined]  # closed with the view
    return view


def _is_postgres(tracking_class: type) -> bool:
    # A PostgreSQL factory has loaded eventsourcing.postgres (and psycopg, the `postgres`
    # extra); anything else must not import them: a plain install serves on SQLite.
    postgres = sys.modules.get("eventsourcing.postgres")
    return postgres is not None and issubclass(tracking_class, postgres.PostgresTrackingRecorder)


def _bound(app: Games) -> type[Games]:
    # The in-memory store exists only inside `app`: the runner must follow that very object
    # rather than build its own (eventsourcing's runner takes a class).
    class BoundGames(Games):
        def __new__(cls, env: Any = None) -> Any:  # noqa: ARG004
            return app

        def close(self) -> None:  # pragma: no cover - never an instance
            pass

    return BoundGames


class ReadModelRunner(ProjectionRunner[Games, ReadModelView]):
    """eventsourcing's projection runner for GameViews over the games application.

    It follows the games' log from the view's tracking position in a background thread;
    `with ReadModelRunner(env) as runner: runner.wait(position)` catches up and stops.
    """

    def __init__(self, env: Mapping[str, str] | None = None, *, app: Games | None = None,
                 projection_class: type[GameViews] = GameViews) -> None:
        env = views_env(env if app is None else {**app.storage, **(env or {})})
        self.env = env
        self.view = open_view(env)
        runner = weakref.ref(self)
        self.projection = projection_class(view=self.view, load=lambda gid, v: _load(runner, gid, v),
                                           caught_up=lambda: pulled_all(runner()))
        self.bound = app is not None and env.get("PERSISTENCE_MODULE") == "eventsourcing.popo"
        BaseProjectionRunner.__init__(
            self, projection=self.projection,
            application_class=_bound(app) if self.bound and app is not None else Games,
            tracking_recorder=self.view, topics=self.projection.topics, env=env,
        )

    @property
    def position(self) -> int:
        """The last event the views include (0 before any)."""
        return self.view.max_tracking_id(self.app_name) or 0

    def head(self) -> int:
        """The last event stored."""
        return self.app.recorder.max_notification_id() or 0

    def nudge(self) -> None:
        """Look for new events now rather than at the next tick."""
        recorder = self.app.recorder
        if isinstance(recorder, PollingSQLiteRecorder):
            recorder.nudge()

    def __exit__(self, *args: Any) -> None:
        if self.bound:
            self.app = _Unclosable()  # type: ignore[assignment]  # the API keeps using it
        try:
            super().__exit__(*args)
        finally:
            self.view.factory.close()  # type: ignore[attr-defined]


class _Unclosable:
    def close(self) -> None:
        pass


def _load(runner_ref: Any, game_id: UUID, version: int) -> Game:
    runner = runner_ref()
    if runner is None:
        raise RuntimeError("the runner is gone")
    app: Application = runner.app
    return app.repository.get(game_id, version=version)
