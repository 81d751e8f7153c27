"""The API's subcommand, `gruft serve`: the REST API under gunicorn."""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
from pathlib import Path

from service.settings import (
    Settings,
    SettingsError,
    check_settings,
    data_dir,
    is_loopback,
    storage_env,
)
from service.store.health import StoreNotWritable, check_folder, check_writable
from serving.gunicorn_hooks import OWNED

# The serving model (issue 15): gunicorn's gthread workers. Each worker's main loop accepts
# connections and waits for idle ones in a selector; every request, a live stream included, gets a
# thread of the worker's pool. A stream holds its thread while it is open, waiting on a condition
# (no CPU), so a worker holds as many streams as it has threads; a slow or idle client ties up
# only its own connection, never the worker (sync workers serve one request at a time, and two
# slow clients froze a two-worker server for 30 s: issue 16). Measured by bench/streams.py.
DEFAULT_WORKERS = Settings().workers
DEFAULT_THREADS = Settings().threads  # per worker; started on demand, an idle pool costs nothing
KEEPALIVE_SPARE = 100  # idle kept-alive connections a worker keeps beyond its threads


def worker_options(workers: int, threads: int) -> list[str]:
    """gunicorn's options for the serving model (the benchmarks run other apps the same way).

    A worker accepts at most threads + KEEPALIVE_SPARE connections: beyond that the others take
    them, and no accepted request waits long for a thread while streams hold the rest.
    """
    return ["--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads),
            "--worker-connections", str(threads + KEEPALIVE_SPARE)]


def streams_max(threads: int) -> int:
    """The streams a worker of `threads` threads holds at most: a tenth of them (4 at least)
    stays free for commands and every other request, however many streams clients open."""
    return max(1, threads - max(4, threads // 10))


def raise_open_files_limit() -> int:
    """Every open stream is a socket: lift the soft limit on open files to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass  # keep what we have; gunicorn still serves, with fewer streams
    return soft


def serve(args: argparse.Namespace) -> int:
    """Run the API under gunicorn; each worker builds its own Application after the fork.

    gunicorn's own access log is off: it would print query strings (a viewer page may carry a
    token there); gruft logs one structured line per request itself (api.request_log). Its
    control socket is off too: every gunicorn on a machine would share ~/.gunicorn/gunicorn.ctl.
    With --fd it serves a socket its parent already bound and listens on (a supervisor, the
    benchmark, the tests): no other process can take the port between choosing and binding it.
    """
    try:
        check_settings(os.environ)  # before gunicorn: its workers would each fail to boot
        ready_to_write(os.environ)
    except (SettingsError, StoreNotWritable) as exc:
        print(f"gruft serve: {exc}", file=sys.stderr)
        return 2
    settings = Settings.read()  # the command line's options over the environment's
    args.host = args.host or settings.host
    args.port = settings.port if args.port is None else args.port
    args.workers = args.workers or settings.workers
    args.threads = args.threads or settings.threads
    gunicorn = shutil.which("gunicorn") or os.path.join(os.path.dirname(sys.executable), "gunicorn")
    if args.fd is not None:
        bind, where = f"fd://{args.fd}", f"inherited socket {args.fd}"
    else:
        bind, where = f"{args.host}:{args.port}", f"http://{args.host}:{args.port}"
    argv = [gunicorn, "--bind", bind, *worker_options(args.workers, args.threads),
            "--error-logfile", "-", "--logger-class", "serving.error_log.RedactingLogger",
            "--no-control-socket", "--config", "python:serving.gunicorn_hooks",
            "serving.wsgi:create_app()"]
    # Streams beyond this wait for a 503's Retry-After instead of taking the last free threads.
    os.environ.setdefault("GRUFT_STREAMS_MAX", str(streams_max(args.threads)))
    metrics_folder()  # service.operator_metrics made sure an operator's folder is writable
    files = raise_open_files_limit()
    print(f"gruft serving on {where} with {args.workers} worker(s) of {args.threads} "
          f"thread(s) (open files: {files})", flush=True)
    if args.fd is None and not settings.public_url and is_loopback(args.host):
        print(loopback_warning(args.host, args.port), file=sys.stderr, flush=True)
    os.execv(argv[0], argv)
    return 0  # not reached


def metrics_folder() -> str:
    """PROMETHEUS_MULTIPROC_DIR for the workers' metrics (GET /metrics): the operator's
    folder, emptied of an earlier run's files (they would count again), else a new folder of
    its own, removed when the server stops (serving.gunicorn_hooks)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.endswith(".db"):
                os.remove(os.path.join(folder, name))
    else:
        remove_dead_folders(tempfile.gettempdir())
        # Named by this process, gunicorn's master once exec'd: whose folder it was is known
        # when a server killed outright (SIGKILL) leaves it behind.
        folder = tempfile.mkdtemp(prefix=f"gruft-metrics-{os.getpid()}-")
        os.environ[OWNED] = folder
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    return folder


def loopback_warning(host: str, port: int) -> str:
    """What `gruft serve` says when only this machine can reach it (README: other devices)."""
    return (f"gruft serve: warning: listening on {host} only, so phones and other computers "
            "cannot open its pages or invitation links. To play with other devices on your "
            f"network: gruft serve --host 0.0.0.0 --port {port}, with "
            f"GRUFT_PUBLIC_URL=http://<this machine's address on the network>:{port}")


def remove_dead_folders(parent: str) -> None:
    """Remove the metrics folders of servers no longer running (killed before their exit hook
    could remove them); a folder whose server runs, or whose name says no server, stays."""
    for path in Path(parent).glob("gruft-metrics-*-*"):
        pid = path.name.split("-")[2]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:  # another user's live process
            continue


def ready_to_write(environ) -> None:
    """StoreNotWritable, one line, unless the store and the key's folder take writes: a
    read-only or full disk would otherwise fail every worker's boot or every command."""
    try:
        env = storage_env(environ)
        check_writable(env)
        folder = data_dir(env)
    except OSError as exc:  # a folder that cannot even be created
        raise StoreNotWritable(f"cannot create {exc.filename} ({exc.strerror}): make its parent "
                               "writable by this user, or set GAMES_DB and GRUFT_DATA_DIR to "
                               "folders that are") from None
    if not (folder / "signing-key.pem").exists():
        check_folder(folder, "the signing key's folder", "GRUFT_DATA_DIR")


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft serve`."""
    p = sub.add_parser(
        "serve", help="run the REST API (SQLite in ./data by default)",
        description="Run the REST API under gunicorn with threaded (gthread) workers: every "
                    "request, a live stream included, holds one thread of its worker while it "
                    "runs, so the server holds about workers x threads open streams and still "
                    "answers commands; slow or idle clients never block a worker.")
    defaults = Settings()
    p.add_argument("--host", help=f"the address to listen on (env GRUFT_HOST; default "
                                  f"{defaults.host})")
    p.add_argument("--port", type=int, help=f"the port (env GRUFT_PORT; default {defaults.port})")
    p.add_argument("--workers", type=int,
                   help=f"worker processes (env GRUFT_WORKERS; default {defaults.workers})")
    p.add_argument("--threads", type=int,
                   help="threads per worker, each serving one request or open stream at a time "
                        f"(env GRUFT_THREADS; default {defaults.threads})")
    p.add_argument("--fd", type=int, default=None, metavar="N",
                   help="serve the listening socket inherited as file descriptor N "
                        "(--host and --port are then unused)")
    p.set_defaults(func=serve)
