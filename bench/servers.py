"""Servers for the benchmarks: `gruft serve` (or another app under gunicorn) on a fresh store.

One way to start, await and stop a server for `gruft bench`, the load test, the crash test and
the experiments: the server inherits a socket this process has already bound (`--fd`), so no
other process can take its port between choosing and binding it.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]  # where `api` lives: gunicorn imports from here
POSTGRES_DEFAULTS = {"POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": "5432",
                     "POSTGRES_DBNAME": "test", "POSTGRES_USER": "postgres",
                     "POSTGRES_PASSWORD": ""}


def hello_app() -> Any:
    """The baseline web app: Flask's hello world (gunicorn builds it with `hello_app()`)."""
    from flask import Flask

    app = Flask("hello")

    @app.get("/")
    def hello() -> str:
        return "Hello, World!"

    return app


def listening_socket() -> socket.socket:
    """A socket on a free loopback port, bound and listening, for a server process to inherit.

    The server is handed the socket itself (gunicorn's fd://), not a port number: a port chosen
    now and bound later could meanwhile be taken by another server (tests run in parallel), and
    the readiness check would then talk to that one.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


def gunicorn_argv(app_spec: str, sock: socket.socket, workers: int) -> list[str]:
    """gunicorn as `gruft serve` runs it (serving.serve_cli.serve: its serving model), for another app."""
    from serving.serve_cli import DEFAULT_THREADS, worker_options

    gunicorn = shutil.which("gunicorn") or str(Path(sys.executable).parent / "gunicorn")
    return [gunicorn, "--bind", f"fd://{sock.fileno()}",
            *worker_options(workers, DEFAULT_THREADS),
            "--access-logfile", "-", "--error-logfile", "-", "--no-control-socket", app_spec]


def gruft_argv(sock: socket.socket, workers: int) -> list[str]:
    """`gruft serve` on the inherited socket `sock`."""
    return [sys.executable, "-m", "cli", "serve", "--fd", str(sock.fileno()),
            "--workers", str(workers)]


def base_env(**extra: str) -> dict[str, str]:
    """This process's environment without its storage settings, with gruft importable.

    Game creation is not rate-limited here (GRUFT_CREATE_LIMIT=0): the benchmarks create games
    far faster than a client should.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSTGRES_", "SQLITE_", "PERSISTENCE_", "GAMES_DB"))}
    return {**env, "PYTHONPATH": str(ROOT), "GRUFT_CREATE_LIMIT": "0", **extra}


def sqlite_store(folder: Path) -> dict[str, str]:
    """The storage settings of a fresh SQLite file in `folder`."""
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "games.sqlite"), "GRUFT_DATA_DIR": str(folder / "data")}


def postgres_dsn(env: dict[str, str] | None = None) -> str:
    """The libpq connection string of the PostgreSQL server (POSTGRES_* or the defaults)."""
    env = env or {k: os.environ.get(k, v) for k, v in POSTGRES_DEFAULTS.items()}
    dsn = (f"host={env['POSTGRES_HOST']} port={env['POSTGRES_PORT']} "
           f"dbname={env['POSTGRES_DBNAME']} user={env['POSTGRES_USER']}")
    return dsn + (f" password={env['POSTGRES_PASSWORD']}" if env["POSTGRES_PASSWORD"] else "")


def postgres_reachable() -> str | None:
    """None when the PostgreSQL server (POSTGRES_* or the defaults) takes a connection, else
    why not."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install 'gruft[postgres]')"
    try:
        with psycopg.connect(postgres_dsn(), connect_timeout=5):
            return None
    except psycopg.Error as exc:
        return f"no PostgreSQL at {postgres_dsn()}: {str(exc).strip()}"


@contextmanager
def postgres_schema(folder: Path, prefix: str = "gruft_bench") -> Iterator[dict[str, str]]:
    """The storage settings of a fresh schema on the PostgreSQL server, dropped afterwards."""
    import psycopg

    env = {k: os.environ.get(k, v) for k, v in POSTGRES_DEFAULTS.items()}
    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_dsn(env), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield {**env, "PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_SCHEMA": schema,
               "GRUFT_DATA_DIR": str(folder / "data")}
    finally:
        with psycopg.connect(postgres_dsn(env), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def store(kind: str, folder: Path) -> Iterator[dict[str, str]]:
    """Storage settings of a fresh store of `kind` ("sqlite" or "postgres") in/for `folder`."""
    if kind == "postgres":
        with postgres_schema(folder) as env:
            yield env
    elif kind == "sqlite":
        yield sqlite_store(folder)
    else:
        raise ValueError(f"unknown storage {kind!r}")


def get_status(port: int, path: str, timeout: float = 5.0) -> int:
    """The status of one GET to 127.0.0.1:`port` (the readiness probe)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@dataclass
class Served:
    """A running server: its port, its process (gunicorn's arbiter) and its log."""

    port: int
    process: subprocess.Popen
    log: Path

    def workers(self) -> list[int]:
        """Process ids of the server's workers (the arbiter's children), from /proc."""
        children = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            # The command name (field 2) is parenthesised and may hold spaces: split after it.
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) == self.process.pid and fields[0] != "Z":
                children.append(int(entry.name))
        return sorted(children)


def _die_with_parent() -> None:
    """In the server's process before it runs: be sent SIGTERM when the benchmark dies, however
    it dies, so no server outlives it on a shared machine (Linux's PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: nothing to ask
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so a benchmark stopped by `timeout` or `kill` stops its
    servers and drops its PostgreSQL schemas on the way out."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


@contextmanager
def server(argv: list[str], sock: socket.socket, env: dict[str, str], log: Path,
           ready_path: str, start_timeout: float = 60.0) -> Iterator[Served]:
    """A server process serving `sock`, yielded once `ready_path` answers 200; then stopped."""
    port = sock.getsockname()[1]
    with open(log, "ab") as out:
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   pass_fds=(sock.fileno(),), preexec_fn=_die_with_parent)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}; see {log}")
            try:
                if get_status(port, ready_path) == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server on port {port} did not come up; see {log}")
            time.sleep(0.1)
        yield Served(port, process, log)
    except BaseException:
        # The work folder is temporary: keep the server's log where the user can read it.
        kept = Path(tempfile.gettempdir()) / f"gruft-bench-{log.name}"
        shutil.copyfile(log, kept)
        print(f"gruft bench: the server's log is kept in {kept}", file=sys.stderr)
        raise
    finally:
        process.terminate()  # gunicorn's arbiter stops its workers on SIGTERM
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def served_gruft(store_env: dict[str, str], folder: Path, workers: int = 2,
                 log_name: str = "serve.log", **extra: str) -> Iterator[Served]:
    """`gruft serve --workers N` on the store `store_env`, awaited until it answers."""
    with listening_socket() as sock, \
            server(gruft_argv(sock, workers), sock, base_env(**store_env, **extra),
                   folder / log_name, "/signing-key") as running:
        yield running
