"""What SQLite's fsync per commit costs the API: `SQLITE_SYNCHRONOUS=FULL` against the default.

eventsourcing opens SQLite in WAL mode with SQLite's default ``synchronous=FULL``: every commit
waits for an fsync of the WAL, and commits are serialised across workers. gruft sets ``NORMAL``
unless told otherwise (service.store.internals.tune_pool): in WAL mode a commit then survives a crash
of the process or of gunicorn but not a power cut or an OS crash (the last commits before it may
be lost; the file stays consistent). Both servers run side by side here, with 2 workers each,
loaded alternately by the same client as `gruft bench`.

Run: ``.venv/bin/python bench/sqlite_sync_experiment.py [seconds-per-round] [rounds]``
(``CLIENTS=1`` for one client).
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from bench import servers
from bench import suite as bench
from bench.load import Run

MODES = ("FULL", "NORMAL")


def main() -> None:
    """Serve both, load them in turn, print commands per second and latency."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    sizes = bench.Sizes(rounds=rounds, domain_cpu_s=0, rlcard_cpu_s=0, replay_games=0,
                        api_seconds=seconds, api_max_requests=50_000,
                        api_clients=int(os.environ.get("CLIENTS", "4")))
    results: dict[str, list[Run]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory(prefix="gruft-sync-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        ports = {}
        for mode in MODES:
            folder = work / mode
            folder.mkdir()
            ports[mode] = stack.enter_context(servers.served_gruft(
                servers.sqlite_store(folder), work, 2, f"{mode}.log",
                SQLITE_SYNCHRONOUS=mode)).port
        for round_no in range(rounds):
            for mode in MODES:
                results[mode].append(bench.api_load(ports[mode], sizes, 7 + round_no))
    for mode, loads in results.items():
        top = max(loads, key=lambda load: load.per_s)
        print(f"synchronous={mode:<7} {top.per_s:7.1f} commands/s  p50 {top.percentile(50):6.2f} ms"
              f"  p99 {top.percentile(99):6.2f} ms  ({top.requests} commands, {top.errors} refused)")


if __name__ == "__main__":
    main()
