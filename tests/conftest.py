"""Shared fixtures: a Flask app on a real SQLite file (and on PostgreSQL where a test asks)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator

import pytest

from api import create_app

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
def app(sqlite_env):
    """The Flask app on a fresh SQLite file; its Application (with its log follower and read
    models) closed afterwards."""
    made = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    yield made
    made.extensions["gruft"].close()


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
