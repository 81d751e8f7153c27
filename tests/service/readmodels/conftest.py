"""Fixtures of the read-model tests: apps on SQLite and PostgreSQL, and one populated store each."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from api import create_app
from domain.core import Game
from service.app import Games
from service.readmodels import ReadModelRunner
from tests.conftest import postgres_schema, postgres_settings
from tests.service.readmodels.kit import create_games, play

WAIT = {"GRUFT_VIEWS_WAIT": "120"}  # a loaded test machine may lag more than the default 5 s


@pytest.fixture
def storage_app(storage_env):
    """The Flask app on a fresh store (each storage); its runner is stopped afterwards."""
    app = create_app({"TESTING": True, "GRUFT_ENV": {**storage_env, **WAIT}})
    yield app
    app.extensions["gruft"].close()


@pytest.fixture
def spare_schema() -> Iterator[str]:
    """Another PostgreSQL schema (e.g. for a second set of views over the same log)."""
    yield from postgres_schema()


@dataclass
class Populated:
    """A store with games of every kind, finished and not, and views kept incrementally."""

    env: dict[str, str]
    app: Any
    games: Games
    live: list[Game]
    loads: int  # games the restarted runner had to load from the store


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def populated(request, tmp_path_factory) -> Iterator[Populated]:
    """Games played while a runner follows them, stopped and restarted mid-way (per storage)."""
    folder = tmp_path_factory.mktemp("populated")
    schemas = postgres_schema() if request.param == "postgres" else None
    if schemas is not None:
        env = postgres_settings(next(schemas), str(folder / "data"))
    else:
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
               "SQLITE_DBNAME": str(folder / "games.sqlite"), "GRUFT_DATA_DIR": str(folder)}
    app = create_app({"TESTING": True, "GRUFT_ENV": {**env, **WAIT}})
    games: Games = app.extensions["gruft"].games
    rng = random.Random(5)
    with ReadModelRunner(env) as first:  # follows the first half of the play as it is stored
        to_finish, to_leave = create_games(games, rng, per_game=2, unfinished=1)
        play(games, to_finish, rng, finish=False, max_chunks=2)
        # Stop only once it has caught up: else the restarted runner would meet these games
        # from their creation and the restart would load nothing (a flaky `loads > 0`).
        first.wait(first.head(), timeout=300)
    with ReadModelRunner(env) as runner:  # a restart: games in progress are loaded once
        play(games, to_finish, rng)
        play(games, to_leave, rng, finish=False, max_chunks=1)
        runner.wait(runner.head(), timeout=300)
        loads = runner.projection.loads
    live = sorted(to_finish + to_leave, key=lambda g: g.created_on)
    yield Populated(env, app, games, live, loads)
    app.extensions["gruft"].close()
    if schemas is not None:
        next(schemas, None)
