"""How gruft opens SQLite connections (service.store.internals.tune_pool): durability and set-up kept.

The connections are swapped for ones with a real statement cache (eventsourcing asks for a
cache of one); the WAL mode and row factory the library sets must survive the swap, and the
durability follows SQLITE_SYNCHRONOUS for the games and NORMAL for the views.
"""

from __future__ import annotations

import sqlite3

import pytest

from service import Games
from service.readmodels import open_view, views_env

SYNCHRONOUS = {"OFF": 0, "NORMAL": 1, "FULL": 2, "EXTRA": 3}


def pragma(datastore, name: str):
    with datastore.transaction(commit=False) as c:
        c.execute(f"PRAGMA {name}")
        return c.fetchone()[0]


@pytest.mark.parametrize("mode", [None, "FULL", "off"])
def test_games_connections_follow_sqlite_synchronous(sqlite_env, mode):
    env = {**sqlite_env, **({"SQLITE_SYNCHRONOUS": mode} if mode else {})}
    games = Games(env=env)
    try:
        created = games.create_game("vampiring", ["a", "b"], seed=1)
        datastore = games.recorder.datastore
        assert pragma(datastore, "synchronous") == SYNCHRONOUS[(mode or "NORMAL").upper()]
        assert pragma(datastore, "journal_mode") == "wal"
        with datastore.transaction(commit=False) as c:
            c.execute("SELECT originator_version FROM stored_events LIMIT 1")
            assert isinstance(c.fetchone(), sqlite3.Row)  # the library reads rows by name
        assert games.game(created.game_id).version == created.view["version"]
    finally:
        games.close()


def test_an_unknown_synchronous_mode_is_refused(sqlite_env):
    with pytest.raises(ValueError, match="SQLITE_SYNCHRONOUS must be one of"):
        Games(env={**sqlite_env, "SQLITE_SYNCHRONOUS": "sometimes"})


def test_views_connections_skip_the_fsync(sqlite_env):
    view = open_view(views_env(sqlite_env))
    try:
        assert pragma(view.datastore, "synchronous") == SYNCHRONOUS["NORMAL"]
        assert pragma(view.datastore, "journal_mode") == "wal"
    finally:
        view.factory.close()
