"""SQLite against PostgreSQL under the same load: `gruft bench`'s store figures.

Two `gruft serve --workers 2` run side by side, one on a fresh SQLite file and one on a fresh
PostgreSQL schema (dropped afterwards); mirror players (bench.load) send random legal commands
to each, with 1 client and then with `clients`, the two stores taking turns (which goes first
alternates by round, so neither always sees the quieter moment). Each round gives, per store and
client count, commands per second and a command's p50; the targets compare the two stores
round by round (issue 21):

- PostgreSQL's commands/s with `clients` clients >= 0.8x SQLite's;
- PostgreSQL's growth from 1 to `clients` clients >= SQLite's (their ratio >= 1);
- a command's p50 with one client on PostgreSQL <= 2x SQLite's (printed as SQLite's p50 over
  PostgreSQL's, >= 0.5, so that every target reads "at least").

PostgreSQL runs with POSTGRES_SYNCHRONOUS_COMMIT=off unless told: the durability of SQLite's
default (SQLITE_SYNCHRONOUS=NORMAL), neither waiting for the disk on each commit; `on` makes
each write wait for PostgreSQL's WAL flush (docs/deployment.md).

    .venv/bin/python -m bench.stores --rounds 3 --seconds 8
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import servers
from bench.load import Connection, MirrorPlayer, Recorder, Run, drive

STORES = ("sqlite", "postgres")
SCALE_CLIENTS = 8  # the many-clients side of the targets


@dataclass
class StoreRounds:
    """Each round's figures of one store at one client count."""

    per_s: list[float] = field(default_factory=list)
    p50_ms: list[float] = field(default_factory=list)
    errors: int = 0

    def add(self, run: Run) -> None:
        self.per_s.append(run.per_s)
        self.p50_ms.append(run.percentile(50))
        self.errors += run.errors


@dataclass
class StoreFigures:
    """Both stores, both client counts, every round; `load` is the 1-minute load average seen
    at each round's start (the machine is shared: say how busy it was)."""

    clients: int
    durable: str = "off"  # POSTGRES_SYNCHRONOUS_COMMIT of the PostgreSQL server
    rounds: dict[tuple[str, int], StoreRounds] = field(default_factory=dict)
    load: list[float] = field(default_factory=list)

    def of(self, store: str, clients: int) -> StoreRounds:
        return self.rounds.setdefault((store, clients), StoreRounds())

    def ratios(self) -> dict[str, tuple[float, float]]:
        """The targets as (median over rounds of the round's ratio, the least it may be)."""
        many = self.clients
        sq1, sqn = self.of("sqlite", 1), self.of("sqlite", many)
        pg1, pgn = self.of("postgres", 1), self.of("postgres", many)
        rounds = range(len(sq1.per_s))

        def median(values: list[float]) -> float:
            return round(statistics.median(values), 3) if values else 0.0

        def div(a: float, b: float) -> float:
            return a / b if b else 0.0

        return {
            f"postgres / sqlite commands/s, {many} clients": (
                median([div(pgn.per_s[i], sqn.per_s[i]) for i in rounds]), 0.8),
            f"postgres / sqlite growth, 1 -> {many} clients": (
                median([div(div(pgn.per_s[i], pg1.per_s[i]), div(sqn.per_s[i], sq1.per_s[i]))
                        for i in rounds]), 1.0),
            # a p50 on PostgreSQL at most twice SQLite's, as a ratio that must not fall short
            "sqlite / postgres command p50, 1 client": (
                median([div(sq1.p50_ms[i], pg1.p50_ms[i]) for i in rounds]), 0.5),
        }


def load(port: int, clients: int, seconds: float, max_requests: int, seed: int) -> Run:
    """Commands per second and latency from `clients` mirror players (no keep-alive)."""
    def make(i: int, recorder: Recorder) -> MirrorPlayer:
        return MirrorPlayer(Connection(port, recorder), seed * 100 + i)

    return drive(clients, seconds, max_requests, make)


def store_figures(work: Path, rounds: int, seconds: float, max_requests: int, seed: int,
                  clients: int = SCALE_CLIENTS, durable: str = "off") -> StoreFigures:
    """Serve gruft on both stores and load them in turns, `rounds` times."""
    figures = StoreFigures(clients, durable)
    with ExitStack() as stack:
        served = {}
        for kind in STORES:
            folder = work / f"stores-{kind}"
            folder.mkdir(exist_ok=True)
            env = stack.enter_context(servers.store(kind, folder))
            extra = {"POSTGRES_SYNCHRONOUS_COMMIT": durable} if kind == "postgres" else {}
            served[kind] = stack.enter_context(
                servers.served_gruft(env, folder, 2, f"stores-{kind}.log", **extra))
        for round_no in range(rounds):
            figures.load.append(os.getloadavg()[0])
            order = STORES if round_no % 2 == 0 else STORES[::-1]
            for n in (1, clients):
                for kind in order:
                    run = load(served[kind].port, n, seconds, max_requests,
                               seed + round_no * 10 + n)
                    figures.of(kind, n).add(run)
    return figures


def report(figures: StoreFigures, out: Any = print) -> dict[str, Any]:
    """Print the figures round by round; answer them for the JSON line."""
    many = figures.clients
    loads = ", ".join(f"{x:.1f}" for x in figures.load)
    out(f"\nstores: gruft serve --workers 2 on SQLite and on PostgreSQL "
        f"(POSTGRES_SYNCHRONOUS_COMMIT={figures.durable}), mirror players, "
        f"{len(figures.load)} round(s); load average at each round's start {loads}")
    result: dict[str, Any] = {}
    for kind in STORES:
        for n in (1, many):
            r = figures.of(kind, n)
            out(f"  {kind:<9}{n:>2} client(s)  commands/s " + ", ".join(
                f"{x:,.0f}" for x in r.per_s) + f" (median {statistics.median(r.per_s):,.0f})"
                f"  p50 ms " + ", ".join(f"{x:.1f}" for x in r.p50_ms) +
                f" (median {statistics.median(r.p50_ms):.1f})  refused {r.errors}")
            result[f"store_{kind}_{n}_clients"] = {
                "commands_per_s": [round(x, 1) for x in r.per_s],
                "command_p50_ms": [round(x, 2) for x in r.p50_ms], "errors": r.errors}
    result["store_load_average_1m"] = [round(x, 1) for x in figures.load]
    result["store_postgres_synchronous_commit"] = figures.durable
    return result


def main(argv: list[str] | None = None) -> int:
    """The store figures alone."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0, help="per store, count and round")
    parser.add_argument("--clients", type=int, default=SCALE_CLIENTS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--synchronous-commit", choices=("on", "off"), default="off",
                        help="PostgreSQL's POSTGRES_SYNCHRONOUS_COMMIT (default off: SQLite's "
                             "default durability)")
    args = parser.parse_args(argv)
    servers.exit_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="gruft-stores-") as tmp:
        figures = store_figures(Path(tmp), args.rounds, args.seconds, 100_000, args.seed,
                                args.clients, args.synchronous_commit)
    result = report(figures)
    ratios = figures.ratios()
    for name, (value, target) in ratios.items():
        print(f"  {name:<46} {value:6.2f}  (target >= {target})  "
              f"{'ok' if value >= target else 'MISSED'}")
    print(json.dumps(result | {"ratios": {k: v[0] for k, v in ratios.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
