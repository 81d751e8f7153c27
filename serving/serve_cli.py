"""The API's subcommand, `gruft serve`: the REST API under gunicorn."""

from __future__ import annotations

import argparse
import errno
import os
import resource
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from api.addresses import LISTENING, is_loopback, is_unspecified, machine_addresses, unreachable
from service.settings import Settings, SettingsError, check_settings, data_dir, storage_env
from service.store.health import StoreNotWritable, check_folder, check_intact, check_writable
from serving.gunicorn_hooks import OWNED

# The serving model (issue 15): gunicorn's gthread workers, whose main loop reads each request
# whole before a thread gets it (serving/reading_worker.py, issue 32): it accepts connections, caps
# them per address, waits for idle ones and reads requests in a selector, under deadlines; every
# whole request, a live stream included, gets a thread of the worker's pool. A stream holds its
# thread while it is open, waiting on a condition (no CPU), so a worker holds as many streams as
# it has threads; a slow or idle client holds only its own connection, never a thread (sync
# workers serve one request at a time, and two slow clients froze a two-worker server for 30 s:
# issue 16; gthread's threads read headers with no deadline, and 2,400 half-sent requests froze
# it: issue 32). Measured by bench/streams.py.
WORKER_CLASS = "serving.reading_worker.ReadingWorker"
DEFAULT_WORKERS = Settings().workers
DEFAULT_THREADS = Settings().threads  # per worker; started on demand, an idle pool costs nothing
KEEPALIVE_SPARE = 100  # idle kept-alive connections a worker keeps beyond its threads


def worker_options(workers: int, threads: int) -> list[str]:
    """gunicorn's options for the serving model (the benchmarks run other apps the same way).

    A worker accepts at most threads + KEEPALIVE_SPARE connections: beyond that the others take
    them, and no accepted request waits long for a thread while streams hold the rest.
    """
    return ["--workers", str(workers), "--worker-class", WORKER_CLASS, "--threads", str(threads),
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
    gunicorn = gunicorn_command()
    if args.fd is not None:
        fd = args.fd
        where = f"inherited socket {fd}"
        listen_at = socket_address(fd)
    else:
        # Bound here, not by gunicorn: a port in use is one line and a non-zero exit, not a
        # "serving on" line (another server answers there) and gunicorn's retries (issue 31).
        try:
            sock = bound_socket(args.host, args.port)
        except OSError as exc:
            print(f"gruft serve: {bind_problem(args.host, args.port, exc)}", file=sys.stderr)
            return 2
        fd, args.port = sock.fileno(), sock.getsockname()[1]
        listen_at = (args.host, args.port)
        where = serving_on(args.host, args.port)
    if listen_at is not None:
        os.environ[LISTENING] = f"{listen_at[0]} {listen_at[1]}"  # the host page's warnings
    argv = [*gunicorn, "--bind", f"fd://{fd}", *worker_options(args.workers, args.threads),
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
    if settings.public_url and listen_at is not None and unreachable(
            settings.public_url, public=True, where=listen_at):
        print(public_url_warning(settings.public_url, *listen_at), file=sys.stderr, flush=True)
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


def gunicorn_command() -> list[str]:
    """gunicorn, run by the interpreter running gruft: its script beside it, else `python -m
    gunicorn` (an install whose scripts are elsewhere, such as `pip install --user`). Never a
    `gunicorn` found on PATH: another environment's would import another gruft."""
    script = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    return [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "gunicorn"]


def bound_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port and listening, for gunicorn to inherit (fd://), as gunicorn
    itself would bind it (SO_REUSEADDR: a restart need not wait for old connections)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def socket_address(fd: int) -> tuple[str, int] | None:
    """Where an inherited listening socket is bound (None if it is no TCP socket)."""
    try:
        probe = socket.socket(fileno=fd)
    except OSError:
        return None
    try:
        address = probe.getsockname()
    except OSError:
        address = None
    finally:
        probe.detach()  # the socket stays open, gunicorn's
    return (address[0], address[1]) if isinstance(address, tuple) else None


def bind_problem(host: str, port: int, exc: OSError) -> str:
    """One line: why the server cannot listen on host:port, and what to do."""
    if exc.errno == errno.EADDRINUSE:
        return (f"port {port} on {host} is already in use (another server, perhaps another "
                f"gruft): stop it, or choose a free port: gruft serve --port N (or GRUFT_PORT)")
    if exc.errno == errno.EACCES:
        return (f"not allowed to listen on port {port} ({exc.strerror}): choose a port above "
                "1023 with --port N (or GRUFT_PORT), or run as a user allowed to")
    if exc.errno == errno.EADDRNOTAVAIL:
        return (f"{host} is not an address of this machine: choose one of its own with "
                "--host (or GRUFT_HOST), or 0.0.0.0 for all of them")
    return f"cannot listen on {host}:{port} ({exc.strerror}): choose another --host or --port"


def serving_on(host: str, port: int) -> str:
    """Where `gruft serve` says it serves: the address, or, when it listens on every address
    (0.0.0.0, ::), the machine's own ones, which phones and other computers can open."""
    if not is_unspecified(host):
        return f"http://[{host.strip('[]')}]:{port}" if ":" in host else f"http://{host}:{port}"
    addresses = machine_addresses()
    if not addresses:
        return (f"every address of this machine, port {port} (it has no network address now: "
                f"only http://127.0.0.1:{port} works)")
    urls = ", ".join(f"http://{address}:{port}" for address in addresses)
    return f"every address of this machine, port {port}: open {urls} on other devices"


def public_url_warning(public_url: str, host: str, port: int) -> str:
    """What `gruft serve` says when GRUFT_PUBLIC_URL names where it does not listen."""
    return (f"gruft serve: warning: GRUFT_PUBLIC_URL={public_url} names an address this server "
            f"does not listen on (it listens on {host}, port {port}), so its invitation links "
            f"and QR codes lead nowhere: serve with --host 0.0.0.0 (or that address), or set "
            f"GRUFT_PUBLIC_URL to where the server is reached")


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
    read-only or full disk would otherwise fail every worker's boot or every command; and
    StoreDamaged unless the store is intact."""
    try:
        env = storage_env(environ)
        check_writable(env)
        check_intact(env)  # a damaged file would fail reads at random and take writes
        folder = data_dir(env)
    except OSError as exc:  # a folder that cannot even be created
        raise StoreNotWritable(f"cannot create {exc.filename} ({exc.strerror}): make its parent "
                               "writable by this user, or set GAMES_DB and GRUFT_DATA_DIR to "
                               "folders that are") from None
    if not (folder / "signing-key.pem").exists():
        check_folder(folder, "the signing key's folder", "GRUFT_DATA_DIR")
    key_held(env, folder)


def key_held(env, folder) -> None:
    """StoreNotWritable, one line, when the store was signed by a key this server does not
    hold (another data folder, a lost key): a new key made silently would call every earlier
    export untrusted and every kept checkpoint a split view (issue 32, item 7)."""
    from eventsourcing.persistence import PersistenceError

    from service import Games
    from service.audit.gamelog import KeyMissing, LogTable
    from service.audit.signing import KEY_FILE, SigningKey, missing_key_line

    try:
        store = Games(env=env)
    except PersistenceError:
        return  # a store away: each worker waits for it as it boots, and checks then
    try:
        key = SigningKey.load_or_create(folder) if (folder / KEY_FILE).exists() else None
        LogTable(store.recorder).signers(key)
    except KeyMissing as exc:
        raise StoreNotWritable(missing_key_line(exc.args[0], folder)) from None
    except PersistenceError:
        return
    finally:
        store.close()


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft serve`."""
    defaults = Settings()
    p = sub.add_parser(
        "serve", help="run the REST API (SQLite in ./data by default)",
        description="Run the REST API under gunicorn with threaded (gthread) workers that read "
                    "each request whole, under deadlines, before a thread serves it: every "
                    "request, a live stream included, then holds one thread of its worker while "
                    "it runs, so the server holds about workers x threads open streams and still "
                    "answers commands; slow or idle clients hold no thread.",
        epilog=f"Where the data goes: the games in GAMES_DB (a SQLite file, default "
               f"{defaults.games_db}, under the folder it starts in; or a PostgreSQL store, see "
               f"docs/deployment.md), the signing key in GRUFT_DATA_DIR (default: GAMES_DB's "
               f"folder). Links for other devices: GRUFT_PUBLIC_URL. Every setting: "
               f"docs/deployment.md.")
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
