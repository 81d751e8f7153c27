"""A runner killed mid-way loses and duplicates nothing: the next one resumes exactly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from service.readmodels import open_view, run, views_env
from tests.kit import DIE_WITH_PARENT, wait_until

ROOT = Path(__file__).resolve().parents[3]
GRUFT = str(Path(sys.executable).with_name("gruft"))  # the console script


@pytest.fixture
def second_views(populated, tmp_path, request):
    """Storage settings for a second, empty set of views over the populated store's log."""
    if populated.env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        return {**populated.env, "READMODELS_SQLITE_DBNAME": str(tmp_path / "crash.views.sqlite")}
    schema = request.getfixturevalue("spare_schema")
    return {**populated.env, "READMODELS_POSTGRES_SCHEMA": schema}


CHILDREN: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def no_child_left():
    """A test that fails before its runner dies (a timeout, an assertion) leaves no runner
    polling the store after it: once seen, two kept a test machine busy for half an hour."""
    yield
    while CHILDREN:
        proc = CHILDREN.pop()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def child(env: dict[str, str], *args: str) -> subprocess.Popen:
    """A Python subprocess in the repository with `env` as its storage settings, ended by the
    kernel if this process dies first (tests.kit.DIE_WITH_PARENT)."""
    full = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    argv = list(args) if args[0] == GRUFT else [sys.executable, *args]
    argv = [sys.executable, "-c", DIE_WITH_PARENT, str(os.getpid()), *argv]
    proc = subprocess.Popen(argv, cwd=ROOT, env=full, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    CHILDREN.append(proc)
    return proc


def views_of(env: dict[str, str]) -> tuple[dict, int]:
    """Every view row and the position of a set of views."""
    view = open_view(views_env(env))
    try:
        return view.dump(), view.max_tracking_id("gruft") or 0
    finally:
        view.factory.close()


def complete(populated) -> dict:
    """The populated store's own views, caught up."""
    side = populated.app.extensions["gruft"].read_models()
    side.catch_up()
    return side.view.dump()


def test_a_runner_killed_inside_an_event_loses_and_duplicates_nothing(populated, second_views):
    crash_at = 150
    # Check the runner dies with the 150th game event's statements run but not committed
    proc = child(second_views, "-m", "tests.service.readmodels.crashing_runner", str(crash_at))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, err
    line = next(x for x in out.splitlines() if x.startswith("dying at "))
    position, game_id, version = line.split()[2:]
    views, tracked = views_of(second_views)
    assert 0 < tracked < int(position)
    row = next(r for r in views["games"] if game_id in r)
    assert int(version) > row[5]  # the index row kept the version before the lost update
    # Check a new runner resumes after the last committed event and ends equal to the views
    # that followed the log without a crash
    done = run(second_views, once=True, lock_wait=30)
    assert done.events == done.head - tracked
    assert views_of(second_views) == (complete(populated), done.head)


def test_a_runner_killed_at_any_moment_resumes_exactly(populated, second_views):
    # Check `gruft project` killed (SIGKILL) while it follows the log …
    if populated.env["PERSISTENCE_MODULE"] != "eventsourcing.sqlite":
        pytest.skip("the same transactions as above; once on SQLite keeps the suite quick")
    # Small transactions (a few hundred events in all): it is mid-way for long enough to be caught.
    proc = child({**second_views, "READMODELS_BATCH": "20"}, GRUFT, "project")
    head = populated.games.recorder.max_notification_id()
    view = open_view(views_env(second_views))
    # Looked at often: a quiet machine's runner goes through the rest in a few milliseconds.
    wait_until(lambda: proc.poll() is not None or (view.max_tracking_id("gruft") or 0) > head // 3,
               "the runner a third of the way through the log", every=0.001)
    view.factory.close()
    proc.kill()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL, err
    killed_at = views_of(second_views)[1]
    assert 0 < killed_at < head
    # … leaves views a new runner completes to exactly the uncrashed ones
    run(second_views, once=True, lock_wait=30)
    assert views_of(second_views) == (complete(populated), head)


def test_a_runner_catching_up_writes_each_pulled_batch_in_one_transaction(
        populated, second_views, monkeypatch):
    # A transaction per event was a third of a command's CPU; the runner now writes each batch
    # it pulls from the log at once. The batch end is read from eventsourcing's subscription:
    # if that ever stops working, this test sees one transaction per event again.
    from service.readmodels.views import ReadModelView

    written: list[int] = []
    apply = ReadModelView.apply

    def counted(self, updates, tracking):  # noqa: ANN001, ANN202 - a test double
        written.append(len(updates))
        apply(self, updates, tracking)

    monkeypatch.setattr(ReadModelView, "apply", counted)
    done = run(second_views, once=True, lock_wait=30)
    game_events = sum(g.version for g in populated.live)
    assert sum(written) == game_events
    assert len(written) <= done.events // 50 + 1  # pulled 500 at a time, so a handful
    assert views_of(second_views) == (complete(populated), done.head)
