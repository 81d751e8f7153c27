"""The projection that keeps the read models, and the runner that feeds it the games' log.

`GameViews` is an `eventsourcing.projection.Projection`: it takes each stored event in log order
with its position. `ViewsFeed` is its subscriber to the process's log follower
(service/store/follower.py): it hands the projection each page of notifications the follower reads,
and the projection applies the events of one page in one transaction with the position of the
last (`READMODELS_BATCH` at most): a transaction per event cost ~0.2 ms of SQLite work each, a third of
a command's CPU under load (docs/performance.md). `ReadModelRunner` subscribes a feed to an
Application's follower — the API worker's own, or (`gruft project`) one it makes.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.persistence import InfrastructureFactory, Tracking
from eventsourcing.projection import Projection
from eventsourcing.sqlite import SQLiteTrackingRecorder
from eventsourcing.utils import Environment

from domain.core import Game, event_data
from service.app import Games
from service.caches import MIRROR
from service.readmodels.views import GameUpdate, ReadModelView, SQLiteReadModelView
from service.settings import Settings, storage_env
from service.store.internals import reconnect_promptly, tune_pool

NAME = "readmodels"  # the projection: env prefix READMODELS_*, PostgreSQL readmodels_tracking


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
                 caught_up: Callable[[], bool] = lambda: True,
                 batch: int = Settings().readmodels_batch) -> None:
        super().__init__(view)
        # Events applied in one transaction at most (eventsourcing pulls 500 at a time);
        # READMODELS_BATCH lowers it (the crash test needs a runner mid-way for longer).
        self.batch = batch
        self._load = load  # (game id, version) -> the game after that event
        self._mirror: OrderedDict[UUID, Game] = OrderedDict()
        self.loads = 0  # mirror misses, for the benchmark figures
        # Whether the feed has no further event at hand: then what is pending is written. By
        # default at once (one transaction per event); the feed says so at a page's end.
        self.caught_up = caught_up
        self._pending: list[GameUpdate] = []

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Apply one event to the views; written with its position once the batch is done.

        Until then neither the updates nor the position are stored: a runner that stops in
        between leaves the position before them, and the next runner projects them again.
        """
        if isinstance(domain_event, Game.Event):
            self._pending.append(self._update(domain_event, tracking))
        if self.caught_up() or len(self._pending) >= self.batch:
            pending, self._pending = self._pending, []
            self.view.apply(pending, tracking)

    def forget_pending(self) -> None:
        """Drop the updates not yet written (their page failed: it comes again)."""
        self._pending = []

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
            while len(self._mirror) > MIRROR.entries:
                self._mirror.popitem(last=False)
        return game


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
    reconnect_promptly(factory)  # after a PostgreSQL outage, follow the log again at once
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


class ViewsFeed:
    """The read models' subscriber to the log follower: each page it is handed goes through
    the projection, written with the position of the page's last notification."""

    def __init__(self, projection: GameViews, mapper: Any, app_name: str,
                 patience: float = 0.0) -> None:
        self.projection = projection
        # Handed what is new at most every `patience` seconds (GRUFT_VIEWS_PATIENCE), unless
        # a reader hurries the follower: fewer, larger transactions (service/store/follower.py).
        self.patience = patience
        self._mapper = mapper
        self._app_name = app_name
        self._last = True  # whether the event being projected is the page's last
        projection.caught_up = lambda: self._last
        self.position = projection.view.max_tracking_id(app_name) or 0
        self._moved = threading.Condition()

    def receive(self, notifications: Sequence[Any]) -> None:
        """Project a page of the log; on failure nothing of it is written (tried again)."""
        try:
            last = len(notifications) - 1
            for i, note in enumerate(notifications):
                self._last = i == last
                self.projection.process_event(
                    self._mapper.to_domain_event(note),
                    Tracking(application_name=self._app_name, notification_id=note.id))
        except BaseException:
            self.projection.forget_pending()
            self.position = self.projection.view.max_tracking_id(self._app_name) or 0
            raise
        with self._moved:
            self.position = notifications[-1].id
            self._moved.notify_all()

    def wait(self, position: int, timeout: float) -> bool:
        """Block until the views include `position` (True) or `timeout` seconds pass."""
        with self._moved:
            return self._moved.wait_for(lambda: self.position >= position, timeout)


class ReadModelRunner:
    """Keeps the views of one store: a `ViewsFeed` subscribed to an Application's follower.

    With `app` (an API worker's), it follows that Application's log; without, it makes an
    Application of its own from `env` (`gruft project`) and closes it at the end.
    `with ReadModelRunner(env) as runner: runner.wait(runner.head())` catches up and stops.
    """

    def __init__(self, env: Mapping[str, str] | None = None, *, app: Games | None = None,
                 projection_class: type[GameViews] = GameViews) -> None:
        env = views_env(env if app is None else {**app.storage, **(env or {})})
        self.env = env
        # An Application made here is closed here; a worker's is not held (it may be let go).
        self._own = Games(env) if app is None else None
        games = self._own or app
        assert games is not None
        self.app_name = games.name
        self.view = open_view(env)
        repository = games.repository
        self.projection = projection_class(
            view=self.view, load=lambda gid, v: repository.get(gid, version=v),
            batch=games.settings.readmodels_batch)
        self.feed = ViewsFeed(self.projection, games.mapper, self.app_name,
                              games.settings.views_patience)
        self._follower = games.follower
        self._unsubscribe = self._follower.subscribe(self.feed)

    @property
    def position(self) -> int:
        """The last event the views include (0 before any)."""
        return self.feed.position

    def head(self) -> int:
        """The last event stored."""
        return self._follower.head()

    def nudge(self) -> None:
        """Bring the views up to the log now rather than at the follower's next look, however
        patient they are."""
        self._follower.hurry()

    def wait(self, position: int, timeout: float = 1.0) -> None:
        """Block until the views include `position`; TimeoutError after `timeout` seconds."""
        self.nudge()
        if not self.feed.wait(position, timeout):
            raise TimeoutError(f"the views reached {self.position}, not {position}")

    def close(self) -> None:
        """Stop following the log; close the views (and an Application made here)."""
        self._unsubscribe()
        try:
            self.view.factory.close()  # type: ignore[attr-defined]
        finally:
            if self._own is not None:
                self._own.close()

    def __enter__(self) -> ReadModelRunner:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()
