"""One runner per store, a standby that takes over, and readers that wait a bounded time."""

from __future__ import annotations

import signal
import threading

import pytest

from api import create_app
from service.app import Games
from service.readmodels import RunnerBusy, RunnerLock, open_view, run, views_env
from service.readmodels.views import SQLiteReadModelView
from tests.kit import wait_until
from tests.service.readmodels.test_crash import GRUFT, child


def wait_until_held(env: dict[str, str]) -> RunnerLock:
    """A lock object, once another process has taken the runner lock."""
    lock = RunnerLock(env)

    def taken() -> bool:
        if lock.acquire():
            lock.release()  # not taken yet: the process is still starting
            return False
        return True

    wait_until(taken, "the other process taking the runner lock")
    return lock


def test_one_runner_per_store_and_a_standby_takes_over(storage_env):
    env = views_env(storage_env)
    # Check `gruft project` takes the runner lock …
    holder = child(storage_env, GRUFT, "project")
    standby = None
    try:
        lock = wait_until_held(env)
        # … so a second runner refuses to start, and the CLI says so with exit status 3
        with pytest.raises(RunnerBusy, match="another projection runner holds the lock"):
            run(storage_env, once=True, lock_wait=0.2)
        second = child(storage_env, GRUFT, "project", "--once", "--lock-wait", "0.2")
        _, err = second.communicate(timeout=60)
        assert second.returncode == 3 and "holds the lock" in err
        # Check a standby `gruft project` takes over when the holder is killed (the flock or
        # advisory lock goes with its process) and follows what is stored from then on
        standby = child(storage_env, GRUFT, "project")
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
        games = Games(storage_env)
        games.create_game("vampiring", ["a", "b"])
        head = games.recorder.max_notification_id()
        view = open_view(env)
        wait_until(lambda: (view.max_tracking_id(games.name) or 0) >= head,
                   "the standby following what is stored")
        assert view.max_tracking_id(games.name) == head
        view.factory.close()
        games.close()
        assert not lock.acquire()
    finally:
        for proc in (holder, standby):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.communicate(timeout=30)
    assert lock.acquire(timeout=10)
    lock.release()


def test_gruft_project_stops_cleanly_on_sigterm(sqlite_env):
    proc = child(sqlite_env, GRUFT, "project")
    wait_until_held(views_env(sqlite_env))
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "projections: at 0 of 0" in out


def test_external_runner_readers_wait_a_bounded_time(storage_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": {**storage_env, "GRUFT_PROJECTIONS":
                                                      "external", "GRUFT_VIEWS_WAIT": "0.3"}})
    client = app.test_client()
    try:
        created = client.post("/games", json={"game": "vampiring", "players": ["a", "b"]}).json
        # Check without any runner a read waits at most GRUFT_VIEWS_WAIT, then answers stale
        # (how long it waits is the benchmark's to measure, not a test's)
        assert client.get("/games").json["games"] == []
        assert not app.extensions["gruft"].read_models().catch_up(timeout=0)
        # Check with a runner process following the log (here a thread), the next read shows it
        stop = threading.Event()
        runner = threading.Thread(target=run, args=(storage_env,), kwargs={"stop": stop})
        runner.start()
        try:
            side = app.extensions["gruft"].read_models()
            assert side.catch_up(timeout=60)
            listed = client.get("/games").json["games"]
            assert [g["game_id"] for g in listed] == [created["game_id"]]
            # Check read-your-writes: a second game shows in the read right after creating it
            side.wait_seconds = 60
            again = client.post("/games", json={"game": "vampiring", "players": ["a", "b"]}).json
            listed = client.get("/games").json["games"]
            assert [g["game_id"] for g in listed][-1] == again["game_id"]
        finally:
            stop.set()
            runner.join(30)
    finally:
        app.extensions["gruft"].close()


def test_workers_opening_the_views_of_a_new_store_together_both_succeed(sqlite_env, monkeypatch):
    # gunicorn starts its workers together. Here one worker looks for the tracking table, finds
    # none, and the other creates the tables and records their migration row before the first
    # goes on: the first's own migration row then clashes. Before this was retried, the worker
    # failed to boot and gunicorn stopped (a CI run lost its server so).
    env = views_env(sqlite_env)
    look = SQLiteReadModelView.max_tracking_id
    raced: list[str] = []

    def look_then_lose_the_race(self, application_name):
        try:
            return look(self, application_name)
        finally:
            if not raced:
                raced.append(application_name)
                other = open_view(env)  # the other worker, start to end
                other.factory.close()

    monkeypatch.setattr(SQLiteReadModelView, "max_tracking_id", look_then_lose_the_race)
    view = open_view(env)
    try:
        assert raced == [view.table_migration_identifier]
        assert view.max_tracking_id(Games.name) is None  # usable: nothing projected yet
    finally:
        view.factory.close()
