"""The service's subcommands, `gruft project` and `gruft projections …`: run, rebuild and inspect the read models.

`gruft project` is the projection runner as a process of its own: it takes the runner lock
(waiting as a hot standby while another runner holds it), then follows the games' log into
the game index and the player statistics until stopped (SIGINT or SIGTERM). Run API workers
with GRUFT_PROJECTIONS=external beside it; with the default (embedded) a worker runs it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any


def command_env(args: argparse.Namespace) -> dict[str, str]:
    """This process's environment, on the SQLite file `--db` names if it names one."""
    env = dict(os.environ)
    if getattr(args, "db", None):
        env.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": args.db})
    return env


def add_db(parser: argparse.ArgumentParser) -> None:
    """`--db PATH`, read by command_env."""
    parser.add_argument("--db", metavar="PATH", default=None,
                        help="the games' SQLite file (default: the service's own settings)")


def add_runner_options(parser: argparse.ArgumentParser) -> None:
    """`--db` and `--lock-wait`, as every runner command (`gruft project`, `gruft bots`) has."""
    add_db(parser)
    parser.add_argument("--lock-wait", type=float, default=None, metavar="SECONDS",
                        help="give up if another runner still holds the lock after this long "
                             "(default: wait as a standby until it is free)")


def run_until_stopped(name: str, run: Callable[[threading.Event, Callable[[Any], None]], Any],
                      line: Callable[[Any], str]) -> int:
    """A runner command: `run(stop, report)` until SIGINT or SIGTERM sets `stop`, its progress
    printed as `line` words it; 3 if another runner holds the lock (RunnerBusy)."""
    from service.readmodels import RunnerBusy

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    print(f"{name}: taking the runner lock (a standby waits while another runner holds it)",
          flush=True)
    try:
        done = run(stop, lambda p: print(line(p), flush=True))
    except RunnerBusy as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 3
    print(line(done), flush=True)
    return 0


def _line(progress: Any) -> str:
    rate = progress.events / progress.seconds if progress.seconds > 0 else 0.0
    return (f"projections: at {progress.position} of {progress.head} "
            f"({progress.events} events in {progress.seconds:.1f} s, {rate:.0f}/s, "
            f"{progress.loads} games loaded from the store)")


def configure_project(parser: argparse.ArgumentParser) -> None:
    add_runner_options(parser)
    parser.add_argument("--once", action="store_true",
                        help="catch up to the head of the log, then exit")
    parser.set_defaults(func=project)


def project(args: argparse.Namespace) -> int:
    """Follow the log until stopped (or, with --once, until caught up); 3 if the lock is held."""
    from service.readmodels import run

    def follow(stop: threading.Event, report: Callable[[Any], None]) -> Any:
        return run(command_env(args), once=args.once, lock_wait=args.lock_wait, stop=stop,
                   report=report)

    return run_until_stopped("projections", follow, _line)


def configure_projections(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    rebuild = sub.add_parser("rebuild", help="drop every view and project the whole log again")
    add_db(rebuild)
    rebuild.add_argument("--lock-wait", type=float, default=10.0, metavar="SECONDS",
                         help="how long to wait for a running runner to let go (default 10)")
    rebuild.set_defaults(func=rebuild_views)
    status = sub.add_parser("status", help="the views' position, the log's head, the lag")
    add_db(status)
    status.set_defaults(func=show_status)


def rebuild_views(args: argparse.Namespace) -> int:
    """Drop and rebuild every view; 3 if a runner holds the lock."""
    from service.readmodels import RunnerBusy, rebuild

    try:
        done = rebuild(command_env(args), lock_wait=args.lock_wait,
                       report=lambda p: print(_line(p), flush=True))
    except RunnerBusy as exc:
        print(f"projections: {exc}", file=sys.stderr)
        return 3
    print(f"rebuilt: {_line(done)}", flush=True)
    return 0


def show_status(args: argparse.Namespace) -> int:
    """Print where the views are against the log."""
    from service.readmodels import status

    found = status(command_env(args))
    print(f"position {found['position']}  head {found['head']}  lag {found['lag']}  "
          f"runner {found['runner']}")
    return 0


def configure_key(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rotate", action="store_true",
                        help="retire the current key (it stays trusted for verification) and "
                             "start signing with a new one; restart the server afterwards")
    parser.add_argument("--json", action="store_true", help="print key_id, key and retired as JSON")
    add_db(parser)
    parser.set_defaults(func=show_key)


def show_key(args: argparse.Namespace) -> int:
    """Print the server's signing key id and public key (after rotating it, if asked)."""
    import json

    from service.audit.signing import SigningKey, key_id
    from service.settings import data_dir, storage_env

    folder = data_dir(storage_env(command_env(args)))
    key = SigningKey.rotate(folder) if args.rotate else SigningKey.load_or_create(folder)
    retired = [key_id(pem) for pem in key.retired]
    if args.json:
        print(json.dumps({"key_id": key.key_id, "key": key.public_pem, "retired": retired},
                         indent=2))
        return 0
    print(f"key_id {key.key_id}" + (" (new)" if args.rotate else ""))
    print(key.public_pem, end="")
    for old in retired:
        print(f"retired, still trusted: {old}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft project`, `gruft projections`, `gruft key` and `gruft backup`."""
    configure_backup(sub.add_parser(
        "backup", help="copy a SQLite store consistently while it serves (SQLite's online "
                       "backup)"))
    configure_key(sub.add_parser(
        "key", help="show the server's signing key and its id, or rotate it (--rotate)"))
    configure_project(sub.add_parser(
        "project", help="run the projection runner: follow the log into the game index and stats"))
    configure_projections(sub.add_parser(
        "projections", help="the read models: rebuild them from the log, or show how far they are"))


def configure_backup(parser: argparse.ArgumentParser) -> None:
    """`gruft backup PATH [--db STORE]` (service/store/backup.py)."""
    parser.add_argument("path", metavar="PATH", help="the copy to write (replaced when complete)")
    add_db(parser)
    parser.set_defaults(func=run_backup)


def run_backup(args: argparse.Namespace) -> int:
    from pathlib import Path

    from service.settings import storage_env
    from service.store.backup import backup_sqlite

    env = storage_env(command_env(args))
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.sqlite":
        print("gruft backup: the store is not SQLite; back PostgreSQL up with pg_dump "
              "(docs/deployment.md, \"Backups, archives and restores\")", file=sys.stderr)
        return 2
    source = env["SQLITE_DBNAME"]
    if not Path(source).is_file():
        print(f"gruft backup: no SQLite store at {source}", file=sys.stderr)
        return 2

    def shown(done: int, total: int) -> None:
        if sys.stderr.isatty():  # progress on a terminal only
            sys.stderr.write(f"\rgruft backup: {done} of {total} pages\x1b[K")

    pages = backup_sqlite(source, args.path, shown)
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
    print(f"gruft backup: {source} copied to {args.path} ({pages} pages)", file=sys.stderr)
    return 0
