"""The crash test: SIGKILL the server's workers under load, then check nothing answered was lost.

For each store (a temporary SQLite file; a fresh schema on the PostgreSQL server, dropped after),
`gruft serve` runs with two workers while the load generator's mirror players (bench.load)
create short games and play random legal commands on them. Meanwhile a killer sends SIGKILL to
one worker at a time (gunicorn's arbiter starts another), `--kills` times spread over
`--seconds`. Then the server is stopped and served again on the same store, and every game whose
creation was answered is checked:

- its export verifies (replays.document.verify, signature pinned to the server's key);
- its log counts versions 1, 2, 3, ... with no gap;
- every command answered 200 is in the log: its events, at the versions the answer gave them.

A command whose answer was lost to a kill may or may not be stored (its client never learnt its
outcome and leaves that game). Bounded in count and time; prints the figures and one JSON line.

    .venv/bin/python -m bench.crash                      # SQLite and PostgreSQL, about a minute
    .venv/bin/python -m bench.crash --storage sqlite --seconds 10 --kills 4
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.load import Connection, MirroredGame, MirrorPlayer, Recorder, drive
from bench.servers import Served, exit_on_sigterm, served_gruft, store
from domain import game_class
from replays.document import describe, verify
from service.audit.signing import check_signature

RESPAWN_TIMEOUT = 30.0  # seconds for the arbiter to replace a killed worker
REQUEST_TIMEOUT = 15.0  # a request to a worker killed mid-way fails at once; this bounds the rest


@dataclass
class CrashFigures:
    """What one store's crash test found."""

    storage: str
    seconds: float = 0.0  # the whole test of this store: start, load, restart, check
    load_seconds: float = 0.0
    commands_answered: int = 0
    commands_unanswered: int = 0  # lost to a kill: outcome unknown, not checked
    kills: int = 0
    games_checked: int = 0
    events_checked: int = 0
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"storage": self.storage, "seconds": round(self.seconds, 1),
                "load_seconds": round(self.load_seconds, 1),
                "commands_answered": self.commands_answered,
                "commands_unanswered": self.commands_unanswered, "kills": self.kills,
                "games_checked": self.games_checked, "events_checked": self.events_checked,
                "problems": len(self.problems)}


@dataclass
class Answered:
    """The commands answered 200, per game: their version and the events the answer listed."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    by_game: dict[str, list[tuple[int, list[dict[str, Any]]]]] = field(default_factory=dict)

    def __call__(self, game: MirroredGame, move: dict, answer: dict, at: float) -> None:
        with self.lock:
            self.by_game.setdefault(game.game_id, []).append((answer["version"],
                                                              answer["events"]))

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.by_game.values())


def killer(served: Served, kills: int, seconds: float, workers: int, done: list[int],
           stop: threading.Event, rng: random.Random) -> None:
    """SIGKILL one worker `kills` times, evenly over `seconds`, each once all `workers` run."""
    interval = seconds / (kills + 1)
    for _ in range(kills):
        if stop.wait(interval):
            return
        deadline = time.monotonic() + RESPAWN_TIMEOUT
        while len(pids := served.workers()) < workers:  # the last one killed is not back yet
            if stop.wait(0.05) or time.monotonic() > deadline:
                return
        try:
            os.kill(rng.choice(pids), signal.SIGKILL)
        except ProcessLookupError:
            continue  # it died meanwhile
        done[0] += 1


def check_games(port: int, games: list[MirroredGame], answered: Answered,
                figures: CrashFigures) -> None:
    """Every game verifies, its log has no gap, and holds every answered command's events."""
    conn = Connection(port, Recorder(), keep_alive=True)
    status, answer = conn.call("key", "GET", "/signing-key")
    if status != 200:
        figures.problems.append(f"GET /signing-key answered {status}")
        return
    key = answer["key"]
    for game in games:
        figures.games_checked += 1
        where = f"game {game.game_id} ({game.local.KEY})"
        status, document = conn.call("export", "GET", f"/games/{game.game_id}/export",
                                     token=game.host_token)
        if status != 200:
            figures.problems.append(f"{where}: export answered {status}")
            continue
        verdict = verify(document, trusted_keys=[key], check_signature=check_signature)
        figures.problems += [f"{where}: {describe(p)}" for p in verdict.problems]
        if verdict.signature != "verified":
            figures.problems.append(f"{where}: signature {verdict.signature}")
        log = {record["version"]: record for record in document["events"]}
        figures.events_checked += len(log)
        if sorted(log) != list(range(1, len(log) + 1)):
            figures.problems.append(f"{where}: versions {sorted(log)} have a gap")
        for version, events in answered.by_game.get(game.game_id, []):
            if version not in log:
                figures.problems.append(f"{where}: answered version {version} is not in the log "
                                        f"of {len(log)}")
                continue
            for event in events:
                stored = log.get(event["version"])
                if stored is None or any(stored.get(k) != event.get(k)
                                         for k in ("type", "data", "timestamp")):
                    figures.problems.append(f"{where}: the answered event of version "
                                            f"{event['version']} differs from the log's")


def crash_test(storage: str, folder: Path, seconds: float = 20.0, kills: int = 8,
               workers: int = 2, clients: int = 4, seed: int = 1) -> CrashFigures:
    """Load, kill and check one store; its figures."""
    figures = CrashFigures(storage)
    answered = Answered()
    players: list[MirrorPlayer] = []
    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    with store(storage, folder) as env:
        with served_gruft(env, folder, workers, "crash-serve.log") as served:
            def make(i: int, recorder: Recorder) -> MirrorPlayer:
                player = MirrorPlayer(Connection(served.port, recorder, timeout=REQUEST_TIMEOUT),
                                      seed * 100 + i,
                                      options=lambda key: dict(game_class(key).SHORT_OPTIONS),
                                      answered=answered)
                players.append(player)
                return player

            stop, done = threading.Event(), [0]
            thread = threading.Thread(target=killer, args=(
                served, kills, seconds, workers, done, stop, random.Random(seed)), daemon=True)
            thread.start()
            try:
                run = drive(clients, seconds, 10**9, make)
            finally:
                stop.set()
                thread.join()
            figures.kills, figures.load_seconds = done[0], run.seconds
            figures.commands_unanswered = run.statuses.get("command 0", 0)
        figures.commands_answered = answered.count
        # Served again on the same store: what was answered must have been stored, not cached.
        with served_gruft(env, folder, workers, "check-serve.log") as again:
            check_games(again.port, [g for p in players for g in p.started], answered, figures)
    figures.seconds = time.perf_counter() - started
    return figures


def report(figures: CrashFigures, out=print) -> None:
    """The figures of one store, and its first problems."""
    f = figures
    out(f"{f.storage:<9} {f.commands_answered:>6} commands answered ({f.commands_unanswered} lost "
        f"to kills, unchecked), {f.kills} kills, {f.games_checked} games and {f.events_checked} "
        f"events checked, problems {len(f.problems)}  ({f.load_seconds:.0f} s of load, "
        f"{f.seconds:.0f} s in all)")
    for problem in f.problems[:10]:
        out(f"  {problem}")


def run(storages: list[str], seconds: float, kills: int, workers: int, clients: int,
        seed: int) -> int:
    """The crash test on each store; 0 when every planned kill happened and nothing was lost."""
    results = []
    with tempfile.TemporaryDirectory(prefix="gruft-crash-") as tmp:
        for storage in storages:
            figures = crash_test(storage, Path(tmp) / storage, seconds, kills, workers, clients,
                                 seed)
            report(figures, lambda line: print(line, flush=True))
            results.append(figures)
    print(json.dumps({"crash_test": [f.as_json() for f in results]}), flush=True)
    failed = any(f.problems or f.kills < kills or not f.commands_answered for f in results)
    return 1 if failed else 0


def add_arguments(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """The crash test's options (`prefix` names them under `gruft bench`)."""
    parser.add_argument(f"--{prefix}storage", action="append", choices=("sqlite", "postgres"),
                        help="store to test (repeatable; default both)")
    parser.add_argument(f"--{prefix}seconds", type=float, default=20.0,
                        help="load per store, in seconds (default 20)")
    parser.add_argument(f"--{prefix}kills", type=int, default=8,
                        help="workers killed per store (default 8)")
    parser.add_argument(f"--{prefix}workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument(f"--{prefix}clients", type=int, default=4, help="client threads (4)")


def check_bounds(parser: argparse.ArgumentParser, seconds: float, kills: int, workers: int,
                 clients: int) -> None:
    """The bounds that keep a run short."""
    if not 1 <= seconds <= 600:
        parser.error("the load lasts from 1 to 600 seconds")
    if not 0 <= kills <= 100 or not 1 <= workers <= 8 or not 1 <= clients <= 64:
        parser.error("kills from 0 to 100, workers from 1 to 8, clients from 1 to 64")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--seed", type=int, default=1, help="seed of the games played (1)")
    args = parser.parse_args(argv)
    exit_on_sigterm()
    check_bounds(parser, args.seconds, args.kills, args.workers, args.clients)
    return run(args.storage or ["sqlite", "postgres"], args.seconds, args.kills, args.workers,
               args.clients, args.seed)


if __name__ == "__main__":
    sys.exit(main())
