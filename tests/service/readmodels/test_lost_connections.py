"""The views on PostgreSQL after their connections were lost (a server restart): the next batch
is applied at once on a fresh connection, not one follower retry later per dead connection."""

from __future__ import annotations

import logging

import pytest

from service.app import Games
from service.readmodels import ReadModelRunner
from tests.conftest import POSTGRES_DSN, terminate_backends
from tests.kit import wait_until
from tests.service.storage.kit import new_game

psycopg = pytest.importorskip("psycopg")


def backends_alive(pids: list[int]) -> set[int]:
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as admin:
        return {pid for (pid,) in admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)).fetchall()}


def test_the_views_catch_up_at_once_when_their_connections_were_lost(postgres_env, caplog):
    games = Games(env=postgres_env)
    runner = ReadModelRunner(app=games)
    try:
        new_game(games, "vampiring")
        runner.wait(runner.head(), timeout=30)
        # Every connection of the views' pool dies, as in a restart of the server.
        pool = runner.view.datastore.pool
        held = [pool.getconn() for _ in range(pool.get_stats()["pool_available"])]
        pids = [conn.info.backend_pid for conn in held]
        for conn in held:
            pool.putconn(conn)
        terminate_backends(pids)
        wait_until(lambda: not backends_alive(pids), "the views' connections to end")
        caplog.set_level(logging.ERROR, logger="gruft.follower")
        new_game(games, "vampir", seed=2)
        runner.wait(runner.head(), timeout=30)
        # Check the views took the new game in without a failed round of the follower's.
        failed = [r.getMessage() for r in caplog.records if "ViewsFeed failed" in r.getMessage()]
        assert failed == []
    finally:
        runner.close()
        games.close()
