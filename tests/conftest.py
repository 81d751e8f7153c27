"""Shared fixtures: a Flask app on a real SQLite file (and on PostgreSQL where a test asks)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from api import create_app
from api.worker import Worker

POSTGRES_DSN = "host=127.0.0.1 port=5432 dbname=test user=postgres"

# The suite creates games by the hundred, from one address: no creation limit (GRUFT_CREATE_LIMIT,
# api/limits.py) in its apps and the servers it starts; the tests of the limit set their own.
os.environ["GRUFT_CREATE_LIMIT"] = "0"
os.environ["GRUFT_READ_LIMIT"] = "0"  # nor a limit on the heavy reads (it reads games by the hundred)
os.environ.pop("GRUFT_CREATE_KEY", None)


def postgres_available() -> bool:
    """Whether the test run found PostgreSQL (scripts/test.sh sets GRUFT_POSTGRES)."""
    return os.environ.get("GRUFT_POSTGRES") == "1"


@pytest.fixture
def sqlite_env(tmp_path) -> dict[str, str]:
    """A storage environment on a fresh SQLite file."""
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "games.sqlite"),
            "GRUFT_DATA_DIR": str(tmp_path / "data")}


def terminate_backends(pids: Iterable[int]) -> None:
    """End these PostgreSQL backends, as a server restart or an administrator would (their
    clients learn it at their next statement)."""
    import psycopg

    with psycopg.connect(POSTGRES_DSN, autocommit=True) as admin:
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def postgres_schema() -> Iterator[str]:
    """A fresh PostgreSQL schema, dropped afterwards. Without PostgreSQL the test is skipped,
    and fails when CI is set (CI must run the PostgreSQL half of the suite)."""
    if not postgres_available():
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL is required when CI is set")
        pytest.skip("PostgreSQL not available (run through scripts/test.sh)")
    import psycopg

    schema = f"gruft_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    yield schema
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def postgres_settings(schema: str, data_dir: str) -> dict[str, str]:
    """The storage environment of a PostgreSQL schema."""
    return {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": "test",
            "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": "5432", "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": "", "POSTGRES_SCHEMA": schema, "GRUFT_DATA_DIR": data_dir}


@pytest.fixture
def postgres_env(tmp_path) -> Iterator[dict[str, str]]:
    """A storage environment on PostgreSQL, in a schema of its own dropped afterwards."""
    for schema in postgres_schema():
        yield postgres_settings(schema, str(tmp_path / "data"))


@pytest.fixture(params=["sqlite", "postgres"])
def storage_env(request) -> dict[str, str]:
    """Each storage-facing test runs on SQLite and on PostgreSQL."""
    return request.getfixturevalue(f"{request.param}_env")


@pytest.fixture
def app(request, sqlite_env):
    """The Flask app on a fresh SQLite file; its worker (the Application, its log follower,
    read models, game log, stream writer and runners) closed afterwards through its owner. A
    module or test sets more of its config with `@pytest.mark.app_config(GRUFT_…=value)` (the
    nearest mark wins)."""
    config: dict = {}
    for mark in reversed(list(request.node.iter_markers("app_config"))):
        config.update(mark.kwargs)
    made = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env, **config})
    yield made
    made.extensions["gruft"].close()


# -- nothing a test starts outlives it -----------------------------------------------------------
# Every thread a worker runs is named `gruft-…` (the follower, the game log's appender, the
# projection, bot and clock runners, the stream writer, presence): one still running once the
# whole session's fixtures are torn down was left by a test that never closed its worker
# (api/worker.py), and is named with that test. A server process (gunicorn, a `gruft` command)
# a test started and left running fails that test at once, and is ended.

WORKER_THREAD = "gruft-"
SERVER_MARKS = ("gunicorn", "/gruft ", " -m cli")
STRAYS: dict[str, str] = {}  # a thread left running -> the test after which it was first seen


def worker_threads() -> dict[threading.Thread, str]:
    return {t: t.name for t in threading.enumerate()
            if t.name.startswith(WORKER_THREAD) and t.is_alive()}


def server_processes() -> dict[int, str]:
    """This process's descendants that are servers (gunicorn, `gruft …`), by pid: their
    command lines."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":  # a zombie has ended; only its exit status is left
                parents[int(entry)] = int(fields[1])
    mine, found = {os.getpid()}, True
    while found:
        found = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                found = True
    servers = {}
    for pid in mine - {os.getpid()}:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as source:
                line = source.read().replace(b"\0", b" ").decode(errors="replace") + " "
        except OSError:
            continue
        if any(mark in line for mark in SERVER_MARKS) and "multiprocessing" not in line:
            servers[pid] = line.strip()
    return servers


@pytest.fixture(autouse=True, scope="session")
def no_worker_thread_outlives_the_session() -> Iterator[None]:
    """Torn down last: fails when a worker's thread is still running (a test that never
    closed its worker), naming the test after which it was first seen."""
    yield
    deadline = time.monotonic() + 10  # a thread told to stop may be ending its round
    while worker_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = sorted(f"{name} (left by {STRAYS.get(name + repr(id(t)), 'a session fixture')})"
                  for t, name in worker_threads().items())
    if left:
        pytest.fail("worker threads still running after every test: " + ", ".join(left),
                    pytrace=False)


@pytest.fixture(autouse=True)
def nothing_started_outlives_the_test(request) -> Iterator[None]:
    """A server process the test started and left running fails it (and is ended); a worker
    thread it left is noted for the session's check."""
    servers, threads = set(server_processes()), set(worker_threads())
    yield
    for thread, name in worker_threads().items():
        if thread not in threads:
            STRAYS.setdefault(name + repr(id(thread)), request.node.nodeid)
    left = {pid: line for pid, line in server_processes().items() if pid not in servers}
    if not left:
        return
    deadline = time.monotonic() + 5  # a server told to stop may still be exiting
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {pid: line for pid, line in server_processes().items() if pid in left}
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if left:
        pytest.fail("server processes left running: "
                    + "; ".join(f"{pid}: {line[:120]}" for pid, line in left.items()),
                    pytrace=False)


@pytest.fixture
def make_app() -> Iterator[Callable[..., Any]]:
    """Apps a test makes itself (`api.create_app`, or `factory`), each closed afterwards
    through its worker's owner."""
    made: list[Any] = []

    def make(config: dict[str, Any], factory: Callable[..., Any] = create_app) -> Any:
        made.append(factory(config))
        return made[-1]

    yield make
    for app in made:
        app.extensions["gruft"].close()


@pytest.fixture
def open_workers(sqlite_env) -> Iterator[Callable[..., Worker]]:
    """API workers without their Flask app (api/worker.py), on `sqlite_env` or the storage
    given, bots moving at once; each closed through its owner afterwards."""
    made: list[Worker] = []

    def make(env: dict[str, str] | None = None) -> Worker:
        made.append(Worker({**(env or sqlite_env), "GRUFT_BOT_DELAY": "0"}))
        return made[-1]

    yield make
    for worker in made:
        worker.close()


@pytest.fixture
def client(app):
    """A test client of `app`."""
    return app.test_client()


@pytest.fixture
def any_store_client(storage_env):
    """A test client on SQLite and, in a second run of the test, on PostgreSQL."""
    app = create_app({"TESTING": True, "GRUFT_ENV": storage_env})
    yield app.test_client()
    app.extensions["gruft"].close()
