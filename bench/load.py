"""Load test: many concurrent games played over HTTP against a served gruft, on loopback only.

Starts `gruft serve --workers N` on a fresh store (a temporary SQLite file, or a fresh schema on
the PostgreSQL server, dropped afterwards), or uses `--url` of a server already running on this
machine. Client threads create games and play them to the end with random legal moves, each
seat with its own token, the way a table of players would: read the view, ask for the legal
moves, send a command with `expected_version`. With `--contend K`, K clients play each game at
once, so commands race and some answer 409.

Bounded in count (`--games`) and time (`--seconds`). Prints throughput and latency percentiles
per kind of request, and one JSON line for the record.

    .venv/bin/python bench/load.py --storage sqlite --workers 2
    .venv/bin/python bench/load.py --storage postgres --workers 4 --clients 16 --contend 2
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import json
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.suite import gruft_argv, listening_socket, server  # noqa: E402
from domain import available_games, game_class  # noqa: E402

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve"]
MAX_COMMANDS_PER_GAME = 2000
POSTGRES_DEFAULTS = {"POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": "5432",
                     "POSTGRES_DBNAME": "test", "POSTGRES_USER": "postgres",
                     "POSTGRES_PASSWORD": ""}


class Stats:
    """Latencies per kind of request and counts of outcomes, shared by the client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[str, int] = defaultdict(int)
        self.counts: dict[str, int] = defaultdict(int)

    def record(self, kind: str, seconds: float, status: int) -> None:
        """One answered request."""
        with self.lock:
            self.latency[kind].append(seconds)
            self.statuses[f"{kind} {status}"] += 1

    def count(self, what: str) -> None:
        """One more of `what`."""
        with self.lock:
            self.counts[what] += 1


class Client:
    """One keep-alive connection (reopened when the server closes it) that times requests."""

    def __init__(self, host: str, port: int, stats: Stats) -> None:
        self.host, self.port, self.stats = host, port, stats
        self.conn = http.client.HTTPConnection(host, port, timeout=60)

    def call(self, kind: str, method: str, path: str, body: Any = None,
             token: str | None = None) -> tuple[int, Any]:
        """A request; its status and JSON answer (the latency goes to the stats)."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body)
        started = time.perf_counter()
        for attempt in range(2):
            try:
                self.conn.request(method, path, data, headers)
                answer = self.conn.getresponse()
                payload = answer.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()  # the server closed a kept-alive connection: reopen once
                if attempt:
                    raise
        elapsed = time.perf_counter() - started
        self.stats.record(kind, elapsed, answer.status)
        if answer.getheader("Connection", "").lower() == "close":
            self.conn.close()
        return answer.status, json.loads(payload or b"null")


def seats(key: str) -> list[str]:
    """Players for a game of `key`: three where allowed."""
    cls = game_class(key)
    return NAMES[: max(cls.MIN_PLAYERS, min(3, cls.MAX_PLAYERS))]


def play_game(client: Client, created: dict[str, Any], rng: random.Random, deadline: float,
              stats: Stats) -> bool:
    """Play one game to its end as its players would; False if the deadline came first."""
    gid = created["game_id"]
    tokens = created["player_tokens"]
    for _ in range(MAX_COMMANDS_PER_GAME):
        if time.monotonic() > deadline:
            return False
        status, view = client.call("view", "GET", f"/games/{gid}")
        if status != 200:
            stats.count("errors")
            return False
        if view["status"] == "finished":
            return True
        player = rng.choice(view["to_act"])
        status, moves = client.call("legal-moves", "GET", f"/games/{gid}/legal-moves",
                                    token=tokens[player])
        if status != 200:
            stats.count("errors")
            continue
        if not moves["moves"]:
            continue  # another client moved first (contention)
        body = {**rng.choice(moves["moves"]), "expected_version": view["version"]}
        status, _ = client.call("command", "POST", f"/games/{gid}/commands", body,
                                token=tokens[player])
        if status == 200:
            stats.count("commands accepted")
        elif status == 409:
            stats.count("commands 409")
        else:
            stats.count("errors")
    return False


def run_load(host: str, port: int, args: argparse.Namespace) -> dict[str, Any]:
    """Create and play `args.games` games with `args.clients` threads; the figures."""
    stats = Stats()
    keys = args.game or available_games()
    deadline = time.monotonic() + args.seconds
    # Each game is played by `contend` clients at once; clients take games from a shared list.
    plan = [(n, keys[n % len(keys)]) for n in range(args.games)]
    boards: dict[int, dict[str, Any]] = {}
    claims: dict[int, int] = defaultdict(int)
    finished: set[int] = set()
    lock = threading.Lock()
    creating = {n: threading.Lock() for n, _ in plan}

    def next_game() -> int | None:
        with lock:
            for n, _ in plan:
                if n not in finished and claims[n] < args.contend:
                    claims[n] += 1
                    return n
        return None

    def client_loop(seed: int) -> None:
        rng = random.Random(seed)
        client = Client(host, port, stats)
        while time.monotonic() < deadline:
            n = next_game()
            if n is None:
                return
            with creating[n]:  # the first of a game's clients creates it
                created = boards.get(n)
                if created is None:
                    key = plan[n][1]
                    status, created = client.call("create", "POST", "/games", {
                        "game": key, "players": seats(key), "seed": f"load-{n}",
                        "options": game_class(key).SHORT_OPTIONS})
                    if status != 201:
                        stats.count("errors")
                        return
                    boards[n] = created
            if play_game(client, created, rng, deadline, stats):
                with lock:
                    if n not in finished:
                        finished.add(n)
                        stats.count("games finished")

    started = time.perf_counter()
    threads = [threading.Thread(target=client_loop, args=(seed,), daemon=True)
               for seed in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(args.seconds + 60)
    elapsed = time.perf_counter() - started
    return summarise(stats, elapsed, args)


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank, in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def summarise(stats: Stats, elapsed: float, args: argparse.Namespace) -> dict[str, Any]:
    """The figures of a run."""
    requests = sum(len(v) for v in stats.latency.values())
    latency = {kind: {"n": len(v), "p50_ms": round(percentile(v, 0.5), 1),
                      "p90_ms": round(percentile(v, 0.9), 1),
                      "p99_ms": round(percentile(v, 0.99), 1),
                      "max_ms": round(1000 * max(v), 1)}
               for kind, v in sorted(stats.latency.items()) if v}
    return {"storage": args.storage, "workers": args.workers, "clients": args.clients,
            "contend": args.contend, "games": args.games,
            "games_finished": stats.counts.get("games finished", 0),
            "commands_accepted": stats.counts.get("commands accepted", 0),
            "commands_409": stats.counts.get("commands 409", 0),
            "errors": stats.counts.get("errors", 0),
            "statuses": dict(sorted(stats.statuses.items())),
            "seconds": round(elapsed, 1),
            "commands_per_s": round(stats.counts.get("commands accepted", 0) / elapsed, 1),
            "requests_per_s": round(requests / elapsed, 1),
            "latency": latency,
            "load_average_1m": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()}


def print_report(result: dict[str, Any]) -> None:
    """The figures as a small table."""
    print(f"\n{result['storage']}, {result['workers']} worker(s), {result['clients']} clients, "
          f"{result['contend']} per game: {result['games_finished']}/{result['games']} games "
          f"finished in {result['seconds']} s")
    print(f"  commands accepted {result['commands_accepted']} ({result['commands_per_s']}/s), "
          f"409 {result['commands_409']}, errors {result['errors']}, "
          f"requests {result['requests_per_s']}/s")
    print(f"  {'request':<12}{'n':>7}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for kind, row in result["latency"].items():
        print(f"  {kind:<12}{row['n']:>7}{row['p50_ms']:>9}{row['p90_ms']:>9}"
              f"{row['p99_ms']:>9}{row['max_ms']:>9}")
    print(f"  (load average {result['load_average_1m']} on {result['cpus']} CPUs)")
    print(json.dumps(result, separators=(",", ":")))


def loopback_only(url: str) -> tuple[str, int]:
    """Host and port of a loopback URL; anything else is refused (this tool never leaves the box)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if parts.scheme != "http" or not ok:
        raise SystemExit(f"refusing {url!r}: the load test runs against loopback http only")
    return host, parts.port or 80


@contextmanager
def postgres_schema() -> Iterator[dict[str, str]]:
    """A fresh schema on the PostgreSQL server (POSTGRES_* or the defaults), dropped after."""
    import psycopg

    env = {k: os.environ.get(k, v) for k, v in POSTGRES_DEFAULTS.items()}
    schema = f"gruft_load_{uuid.uuid4().hex[:10]}"
    dsn = (f"host={env['POSTGRES_HOST']} port={env['POSTGRES_PORT']} "
           f"dbname={env['POSTGRES_DBNAME']} user={env['POSTGRES_USER']}")
    if env["POSTGRES_PASSWORD"]:
        dsn += f" password={env['POSTGRES_PASSWORD']}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield {**env, "PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_SCHEMA": schema}
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def served(args: argparse.Namespace) -> Iterator[tuple[str, int]]:
    """`gruft serve --workers N` on a fresh store in a temporary folder; its host and port.

    Started, awaited and stopped as `gruft bench` starts its server (bench.suite.server)."""
    with tempfile.TemporaryDirectory(prefix="gruft-load-") as tmp:
        folder = Path(tmp)
        sqlite = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                  "SQLITE_DBNAME": str(folder / "games.sqlite")}
        with (postgres_schema() if args.storage == "postgres" else nullcontext(sqlite)) as store, \
                listening_socket() as sock:
            env = {**os.environ, **store, "GRUFT_DATA_DIR": str(folder / "data")}
            with server(gruft_argv(sock, args.workers), sock, env, folder / "serve.log",
                        "/signing-key") as port:
                yield "127.0.0.1", port


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a gruft already served on loopback (else one is started)")
    parser.add_argument("--storage", choices=("sqlite", "postgres"), default="sqlite",
                        help="store of the server this tool starts (default sqlite)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--clients", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--games", type=int, default=40, help="games to play (default 40)")
    parser.add_argument("--contend", type=int, default=1,
                        help="clients playing each game at once (default 1: no races)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time bound (default 60)")
    parser.add_argument("--game", action="append", choices=available_games(),
                        help="game kind to play (repeatable; default every game)")
    args = parser.parse_args(argv)
    for name in ("workers", "clients", "games", "contend"):
        if not 1 <= getattr(args, name) <= 256:
            parser.error(f"--{name} must be from 1 to 256")
    if not 1 <= args.seconds <= 3600:
        parser.error("--seconds must be from 1 to 3600")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run one load test and print its figures."""
    args = parse_args(argv)
    if args.url:
        host, port = loopback_only(args.url)
        args.storage, args.workers = "external", 0
        result = run_load(host, port, args)
    else:
        with served(args) as (host, port):
            result = run_load(host, port, args)
    print_report(result)
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
