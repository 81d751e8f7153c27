"""The reaches into eventsourcing's private internals (service/store/internals.py), checked in one place.

Run these on every upgrade of eventsourcing: each private part a reach relies on is still
there with the shape relied on, the reach still takes its path, and no module of ours but the
two that hold the reaches touches one. Each reach's behaviour is tested beside its module too
(the tests named in service/store/internals.py).
"""

from __future__ import annotations

import ast
import inspect
import re
import sqlite3
from importlib.metadata import version
from pathlib import Path

import pytest
from eventsourcing.application import Application, ProcessingEvent, Repository
from eventsourcing.domain import (
    Aggregate,
    BoundCommandMethodDecorator,
    CanMutateAggregate,
    CommandMethodDecorator,
    decorated_func_callers,
)
from eventsourcing.sqlite import SQLiteConnectionPool, SQLiteTrackingRecorder

from domain import available_games, game_class
from domain.core import Game
from service import Games
from service.readmodels import ReadModelRunner
from service.store.internals import bound_retries, tune_pool

ROOT = Path(__file__).resolve().parents[2]
# the private parts reached, and the only modules that may name them
PRIVATE = {"_reconstruct_aggregate", "_take_snapshots", "_create_connection", "_sqlite_conn",
           "_insert_tracking", "_pending_events", "_create", "_notify", "retry_decorator"}
HOLDERS = {"service/store/internals.py", "domain/core/game.py"}
PACKAGES = ("domain", "service", "api", "replays", "bots", "bench", "cli")


def parameters(func) -> list[str]:
    return list(inspect.signature(func).parameters)


def test_the_pin_holds_the_installed_library():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"eventsourcing>=9.5.6,<9.6"' in pyproject
    # Check the installed eventsourcing is the one these reaches were measured and written for
    major, minor, patch = (int(n) for n in re.findall(r"\d+", version("eventsourcing"))[:3])
    assert (major, minor) == (9, 5) and patch >= 6


def test_event_construction_finds_the_librarys_parts():
    # decorated_func_callers: each @event method's decorator -> its event class
    cls = game_class("vampire-queen")
    decorators = [d for d in decorated_func_callers if isinstance(d, CommandMethodDecorator)
                  and d.decorated_func is cls._played.__wrapped__]
    assert len(decorators) == 1 and issubclass(decorated_func_callers[decorators[0]], cls.Event)
    assert parameters(BoundCommandMethodDecorator.__init__) == ["self", "event_decorator", "obj"]
    assert callable(BoundCommandMethodDecorator.trigger)
    assert parameters(Aggregate._create.__func__) == ["cls", "event_class", "id", "kwargs"]
    assert "mutate" in vars(CanMutateAggregate) and "apply" in vars(CanMutateAggregate)
    # Check a game's new events wait in _pending_events until collected, as the library's do
    game = cls.start(["a", "b", "c"], seed=1)
    pending = list(game._pending_events)
    assert len(pending) >= 2 and isinstance(pending[0], cls.Created)
    assert game.collect_events() == pending
    assert game._pending_events == []


def test_the_repository_reconstruction_keeps_its_signature(sqlite_env):
    assert parameters(Repository._reconstruct_aggregate) == [
        "self", "aggregate_id", "version", "projector_func"]
    games = Games(env={**sqlite_env, "SNAPSHOT_INTERVAL": "2"})
    try:
        created = games.create_game("vampiring", ["a", "b"], seed=3)
        games.repository.cache.__init__(maxsize=10)  # forget it: the next read rebuilds it
        # Check a cache miss rebuilds the game through the reach, snapshot then events
        assert games.game(created.game_id).version == created.view["version"]
        assert games.repository.cache.get(created.game_id).version == created.view["version"]
    finally:
        games.close()


def test_snapshots_are_taken_from_the_saved_game(sqlite_env, monkeypatch):
    assert parameters(Application._take_snapshots) == ["self", "processing_event"]
    assert ProcessingEvent().aggregates == {}
    rebuilt = []
    monkeypatch.setattr(Application, "take_snapshot",
                        lambda self, aggregate_id, version, *rest: rebuilt.append(version))
    games = Games(env={**sqlite_env, "SNAPSHOT_INTERVAL": "1"})
    try:
        created = games.create_game(available_games()[0], ["a", "b", "c"], seed=3)
        saved = created.view["version"]
        assert saved > 1  # a save of several events: a snapshot due at each
        # Check the saved version's snapshot came from the saved game, the library rebuilding
        # only the versions inside the save (here stubbed out, so they store nothing)
        taken = [s.originator_version for s in games.snapshots.get(created.game_id)]
        assert taken == [saved]
        assert rebuilt == list(range(1, saved))
    finally:
        games.close()


def test_after_commit_is_called_once_per_save_once_committed(sqlite_env, monkeypatch):
    assert parameters(Application._notify) == ["self", "recordings"]
    calls = []

    def seen(self, recordings):  # noqa: ANN001, ANN202 - a test double
        versions = [r.domain_event.originator_version for r in recordings
                    if isinstance(r.domain_event, Game.Event)]
        calls.append((versions, len(list(self.recorder.select_notifications(start=1,
                                                                             limit=100)))))

    monkeypatch.setattr(Games, "after_commit", seen)
    games = Games(env=sqlite_env)
    try:
        created = games.create_game("vampiring", ["a", "b"], seed=5)
        # Check one call for the save, with the game's events, all already in the store
        ((versions, stored),) = calls
        assert versions == list(range(1, created.view["version"] + 1))
        assert stored >= len(versions)
    finally:
        games.close()


def test_the_sqlite_swap_finds_the_librarys_connection(tmp_path):
    assert parameters(SQLiteConnectionPool._create_connection) == ["self"]
    # The reason for the swap: the library still asks for a statement cache of one
    assert "cached_statements=True" in inspect.getsource(SQLiteConnectionPool._create_connection)
    pool = SQLiteConnectionPool(db_name=str(tmp_path / "x.sqlite"))
    library = pool._create_connection()
    assert isinstance(library._sqlite_conn, sqlite3.Connection)
    library._sqlite_conn.close()
    tune_pool(pool, "NORMAL")
    tuned = pool._create_connection()
    # Check the swapped connection keeps the library's row factory and WAL mode
    assert tuned._sqlite_conn.row_factory is sqlite3.Row
    assert tuned._sqlite_conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tuned._sqlite_conn.close()


def test_the_tracking_record_is_written_where_the_library_writes_it(sqlite_env):
    assert parameters(SQLiteTrackingRecorder._insert_tracking) == ["self", "c", "tracking"]
    games = Games(env=sqlite_env)
    try:
        games.create_game("vampiring", ["a", "b"], seed=5)
        head = games.recorder.max_notification_id()
        # Check the views' position is written in their own transaction, through the reach
        with ReadModelRunner(sqlite_env) as runner:
            runner.wait(head, timeout=60)
            assert runner.view.max_tracking_id(games.name) == head
    finally:
        games.close()


def test_reach_7_finds_the_postgres_recorders_retries_and_bounds_them():
    from eventsourcing.postgres import PostgresApplicationRecorder

    cls = PostgresApplicationRecorder
    retried = {name for name in dir(cls)
               if getattr(getattr(cls, name), "__code__", None) is not None
               and getattr(cls, name).__code__.co_name == "retry_decorator"}
    # Check the calls a request makes are among those the library retries.
    assert {"insert_events", "select_events", "select_notifications",
            "max_notification_id"} <= retried
    recorder = bound_retries(object.__new__(cls), 2)
    for name in retried:
        # Check each is replaced on the instance by a retry around the same function.
        bound = getattr(recorder, name)
        assert bound.__func__.__wrapped__ is getattr(cls, name).__wrapped__
        assert bound.__func__ is not getattr(cls, name)


def test_no_other_module_touches_the_private_parts():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            if where in HOLDERS:
                continue
            for node in ast.walk(ast.parse(path.read_text(), where)):
                named = (node.attr if isinstance(node, ast.Attribute)
                         else node.value if isinstance(node, ast.Constant) else None)
                if named in PRIVATE:
                    found.append(f"{where}:{node.lineno} {named}")
    assert found == []


@pytest.mark.parametrize("holder", sorted(HOLDERS))
def test_the_holders_name_the_private_parts(holder):
    # The check above only means something while the holders are where the reaches are.
    text = (ROOT / holder).read_text()
    assert any(name in text for name in PRIVATE)


def test_reach_8_the_games_recorder_writes_eventsourcing_s_table_in_its_order(postgres_env):
    from eventsourcing.postgres import PostgresApplicationRecorder

    from service.store.postgres import GamesRecorder

    games = Games(env=postgres_env)
    try:
        ours = games.recorder
        assert isinstance(ours, GamesRecorder)
        library = PostgresApplicationRecorder(ours.datastore,
                                              events_table_name=ours.events_table_name)
        created = " ".join(s.as_string() for s in library.sql_create_statements)
        # Check the columns the function inserts are the library's table's, and that its
        # ordering of the log is still the EXCLUSIVE table lock the function takes.
        for column in ("originator_id", "originator_version bigint", "topic text",
                       "state bytea", "notification_id bigserial"):
            assert column in created
        locks = " ".join(s.as_string() for s in library.lock_table_statements)
        assert "IN EXCLUSIVE MODE" in locks and ours.events_table_name in locks
        # Check reach 7 bounds the retries of the replaced insert too.
        assert ours.insert_events.__func__ is not GamesRecorder.insert_events
        assert ours.insert_events.__func__.__wrapped__ is GamesRecorder.insert_events.__wrapped__
    finally:
        games.close()
