"""What SQLite's fsync per commit costs the API: the stock server against `synchronous=NORMAL`.

eventsourcing opens SQLite in WAL mode with the default ``synchronous=FULL``: every commit waits
for an fsync of the WAL, and commits are serialised across workers. With ``NORMAL`` in WAL mode
a commit survives a crash of the process or of gunicorn but not a power cut or an OS crash (the
last commits before it may be lost; the file stays consistent). That is a durability decision
for the lead, so this is an experiment, not a change: both servers run side by side here, with
2 workers each, loaded alternately by the same client as `gruft bench`.

Run: ``.venv/bin/python bench/sqlite_sync_experiment.py [seconds-per-round] [rounds]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from replays import bench


def create_app() -> Any:
    """gruft's app with every SQLite connection set to synchronous=NORMAL (gunicorn factory)."""
    from eventsourcing.sqlite import SQLiteConnectionPool

    from api import create_app as gruft_app

    stock = SQLiteConnectionPool._create_connection

    def create(self: SQLiteConnectionPool) -> Any:
        connection = stock(self)
        connection._sqlite_conn.execute("PRAGMA synchronous=NORMAL")
        return connection

    SQLiteConnectionPool._create_connection = create
    return gruft_app()


def main() -> None:
    """Serve both, load them in turn, print commands per second and latency."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    sizes = bench.Sizes(rounds=rounds, domain_cpu_s=0, rlcard_cpu_s=0, replay_games=0,
                        api_seconds=seconds, api_max_requests=50_000, api_clients=int(os.environ.get("CLIENTS", "4")))
    with tempfile.TemporaryDirectory(prefix="gruft-sync-") as tmp:
        work = Path(tmp)
        results: dict[str, list[bench.Load]] = {"FULL (stock)": [], "NORMAL": []}
        specs = {"FULL (stock)": "api:create_app()",
                 "NORMAL": "bench.sqlite_sync_experiment:create_app()"}
        ports = {name: bench.free_port() for name in specs}
        envs = {}
        for name in specs:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("POSTGRES_", "SQLITE_"))}
            slug = "full" if name.startswith("FULL") else "normal"
            env.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                        "GAMES_DB": str(work / f"{slug}.sqlite"),
                        "GRUFT_DATA_DIR": str(work / f"{slug}-data"), "PYTHONPATH": str(bench.ROOT)})
            envs[name] = env
        with bench.server(bench.gunicorn_argv(specs["FULL (stock)"], ports["FULL (stock)"], 2),
                          ports["FULL (stock)"], envs["FULL (stock)"], work / "full.log", "/games"), \
                bench.server(bench.gunicorn_argv(specs["NORMAL"], ports["NORMAL"], 2),
                             ports["NORMAL"], envs["NORMAL"], work / "normal.log", "/games"):
            for round_no in range(rounds):
                for name in specs:
                    results[name].append(bench.api_load(ports[name], sizes, 7 + round_no))
    for name, loads in results.items():
        top = max(loads, key=lambda load: load.per_s)
        print(f"synchronous={name:<13} {top.per_s:7.1f} commands/s  p50 {top.percentile(50):6.2f} ms"
              f"  p99 {top.percentile(99):6.2f} ms  ({top.requests} commands, {top.errors} refused)")


if __name__ == "__main__":
    main()
