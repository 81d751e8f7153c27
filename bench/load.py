"""The load generator: client threads playing games over HTTP against a served gruft, on loopback.

One generator for every benchmark that loads a server: `gruft bench`'s API and stream figures,
the crash test and the standalone load test below. Client threads (`drive`) each repeat a
player's `step()` until time or count runs out; every request goes through a `Connection`,
which times it into one shared `Recorder`. Two kinds of player:

- `MirrorPlayer` creates games with known seeds and replays each deal in-process, so it knows
  every legal move without asking the server: only `POST /games/{id}/commands` is timed (the
  host token acting for the seat to act). `gruft bench` and the crash test use it.
- `TablePlayer` plays as a table of people would, each seat with its own token: read the view,
  ask for the legal moves, send a command with `expected_version`. With `--contend K`, K clients
  play each game at once, so commands race and some answer 409.

The standalone load test starts `gruft serve --workers N` on a fresh store (a temporary SQLite
file, or a fresh schema on the PostgreSQL server, dropped afterwards), or uses `--url` of a
server already running on this machine, and plays `--games` games with table players. It is
bounded in count (`--games`) and time (`--seconds`), prints throughput and latency percentiles
per kind of request, and one JSON line for the record.

    .venv/bin/python -m bench.load --storage sqlite --workers 2
    .venv/bin/python -m bench.load --storage postgres --workers 4 --clients 16 --contend 2
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import json
import os
import random
import statistics
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from domain import available_games, game_class
from domain.core import Game
from service.runners.simulate import default_players

NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve"]
MAX_COMMANDS_PER_GAME = 2000
IDLE_RECONNECT_S = 1.0  # a kept-alive connection idle longer may have been closed by the server


# -- requests ----------------------------------------------------------------------------------

class Recorder:
    """Latencies per kind of request and counts of outcomes, shared by the client threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency_ms: dict[str, list[float]] = defaultdict(list)
        self.statuses: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()

    def record(self, kind: str, ms: float, status: int) -> None:
        """One request, answered (its status) or failed (status 0)."""
        with self.lock:
            self.latency_ms[kind].append(ms)
            self.statuses[f"{kind} {status}"] += 1

    def count(self, what: str, n: int = 1) -> None:
        """`n` more of `what`."""
        with self.lock:
            self.counts[what] += n


class Connection:
    """HTTP/1.1 to 127.0.0.1:`port`; each request timed into the recorder.

    With `keep_alive` the connection is kept between requests (and reopened when the server
    closes it); without, every request opens its own and asks the server to close it, so the
    kernel spreads the requests over the server's workers.
    """

    def __init__(self, port: int, recorder: Recorder, keep_alive: bool = False,
                 host: str = "127.0.0.1", timeout: float = 60.0) -> None:
        self.host, self.port, self.recorder = host, port, recorder
        self.keep_alive, self.timeout = keep_alive, timeout
        self.conn: http.client.HTTPConnection | None = None
        self.used_at = 0.0

    def close(self) -> None:
        """Close the connection (the next request opens another)."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, kind: str, method: str, path: str, body: Any = None,
             token: str | None = None) -> tuple[int, Any]:
        """A request: its status and JSON answer. Raises OSError when it got no answer.

        A GET on a kept-alive connection the server had closed is retried once on a new one;
        a POST never is (it may have been applied: its outcome is unknown).
        """
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if not self.keep_alive:
            headers["Connection"] = "close"
        data = None if body is None else json.dumps(body)
        started = time.perf_counter()
        if self.conn is not None and started - self.used_at > IDLE_RECONNECT_S:
            self.close()
        for attempt in range(2):
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.conn.request(method, path, data, headers)
                answer = self.conn.getresponse()
                payload = answer.read()
                break
            except (http.client.HTTPException, OSError):
                self.close()
                if attempt or not reused or method != "GET":
                    self.recorder.record(kind, (time.perf_counter() - started) * 1000, 0)
                    raise OSError(f"{method} {path}: no answer") from None
        self.used_at = time.perf_counter()
        self.recorder.record(kind, (self.used_at - started) * 1000, answer.status)
        if not self.keep_alive or answer.getheader("Connection", "").lower() == "close":
            self.close()
        if answer.getheader("Content-Type", "").startswith("application/json"):
            return answer.status, json.loads(payload or b"null")
        return answer.status, payload


# -- driving client threads --------------------------------------------------------------------

class Player(Protocol):
    """A client thread's work: one step at a time."""

    def step(self) -> bool:
        """Do one unit of work (at most one timed command); False when there is nothing left."""


@dataclass
class Run:
    """What a load run measured; its main figure is the requests of kind `main` per second."""

    seconds: float
    latency_ms: dict[str, list[float]]
    statuses: Counter[str]
    counts: Counter[str]
    main: str = "command"
    rounds: list[float] = field(default_factory=list)  # main requests per second, round by round

    @property
    def requests(self) -> int:
        """Requests of the main kind."""
        return len(self.latency_ms.get(self.main, []))

    @property
    def per_s(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    @property
    def errors(self) -> int:
        """Steps that went wrong: a refused command, no answer, an unexpected status."""
        return self.counts.get("errors", 0)

    def percentile(self, q: float, kind: str | None = None) -> float:
        """The q-th percentile latency (0 < q < 100) in ms, of the main kind unless told."""
        return percentile(self.latency_ms.get(kind or self.main, []), q)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0 < q < 100) of `values`, 0 when there are none."""
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def drive(clients: int, seconds: float, max_steps: int,
          make_player: Callable[[int, Recorder], Player], main: str = "command") -> Run:
    """`clients` threads each repeating its player's step until time or count runs out.

    Players are made (their first games created) before the clock starts.
    """
    recorder = Recorder()
    players = [make_player(i, recorder) for i in range(clients)]
    lock = threading.Lock()
    taken = [0]
    barrier = threading.Barrier(clients + 1)
    deadline: list[float] = []

    def worker(player: Player) -> None:
        barrier.wait()
        while time.perf_counter() < deadline[0]:
            with lock:
                if taken[0] >= max_steps:
                    return
                taken[0] += 1
            if not player.step():
                return

    threads = [threading.Thread(target=worker, args=(p,), daemon=True) for p in players]
    for thread in threads:
        thread.start()
    start = time.perf_counter()
    deadline.append(start + seconds)
    barrier.wait()
    for thread in threads:
        thread.join(timeout=seconds + 60)
    elapsed = time.perf_counter() - start
    return Run(elapsed, dict(recorder.latency_ms), recorder.statuses, recorder.counts, main)


# -- players -----------------------------------------------------------------------------------

def seats(key: str) -> list[str]:
    """Players for a game of `key`: three where allowed."""
    return NAMES[:default_players(game_class(key))]


@dataclass
class MirroredGame:
    """A game served by the server and replayed in-process from the same seed."""

    game_id: str
    host_token: str
    player_tokens: dict[str, str]
    local: Game


def create_mirrored(conn: Connection, key: str, seed: int,
                    options: dict[str, Any] | None = None) -> MirroredGame:
    """Create a game of `key` with `seed` over the API, and its twin in-process."""
    cls = game_class(key)
    players = seats(key)
    body: dict[str, Any] = {"game": key, "players": players, "seed": seed}
    if options:
        body["options"] = options
    for attempt in range(3):  # a dropped connection is retried, then reported
        try:
            status, answer = conn.call("create", "POST", "/games", body)
            break
        except OSError:
            if attempt == 2:
                raise
            time.sleep(0.2)
    if status != 201:
        raise RuntimeError(f"POST /games answered {status}: {answer!r}")
    local = cls.start(players, seed=seed, options=dict(options or {}))
    local.collect_events()
    return MirroredGame(answer["game_id"], answer["host_token"], answer["player_tokens"], local)


Answered = Callable[[MirroredGame, dict[str, Any], dict[str, Any], float], None]


class MirrorPlayer:
    """Plays random legal commands on its games in turn, mirroring each game in-process.

    It starts a new game (a `create` request, not a `command`) whenever none of its games is
    left in play. A refused command or one without an answer takes its game out of play: its
    outcome on the server is then unknown or different from the mirror's. `answered(game, move,
    answer, at)` hears of every command answered 200, `at` being when its answer was read.
    """

    def __init__(self, conn: Connection, seed: int, games: list[MirroredGame] | None = None,
                 keys: list[str] | None = None, options: Callable[[str], dict] | None = None,
                 answered: Answered | None = None) -> None:
        self.conn = conn
        self.rng = random.Random(seed)
        self.seed = seed
        self.keys = keys or available_games()
        self.options = options
        self.answered = answered
        self.games_started = 0
        self.games: list[MirroredGame] = list(games or [])
        self.started: list[MirroredGame] = []  # the games this player created
        self.turn = 0
        if not self.games:
            self.new_game()

    def new_game(self) -> MirroredGame:
        """Start the next game of this player's rotation of game kinds."""
        key = self.keys[self.games_started % len(self.keys)]
        self.games_started += 1
        game = create_mirrored(self.conn, key, self.seed * 1000 + self.games_started,
                               self.options(key) if self.options else None)
        self.games.append(game)
        self.started.append(game)
        return game

    def step(self) -> bool:
        """Send one random legal command to the next game in turn."""
        if not self.games:
            try:
                self.new_game()
            except (OSError, RuntimeError):  # the server could not create it (or answer)
                self.conn.recorder.count("errors")
                return True
        self.turn = (self.turn + 1) % len(self.games)
        game = self.games[self.turn]
        local = game.local
        player = local.to_act[0]
        moves = local.legal_moves(player)
        move = moves[self.rng.randrange(len(moves))]
        try:
            status, answer = self.conn.call("command", "POST", f"/games/{game.game_id}/commands",
                                            {**move, "player": player}, token=game.host_token)
        except OSError:
            status, answer = 0, None
        at = time.perf_counter()
        if status != 200:
            self.conn.recorder.count("errors")
            self.games.remove(game)
            return True
        self.conn.recorder.count("commands accepted")
        local.execute(player, move)
        local.collect_events()
        if self.answered is not None:
            self.answered(game, move, answer, at)
        if local.finished:
            self.conn.recorder.count("games finished")
            self.games.remove(game)
        return True


class Table:
    """The games table players share: which game each client plays next, and who created it."""

    def __init__(self, games: int, keys: list[str], contend: int) -> None:
        self.plan = [keys[n % len(keys)] for n in range(games)]
        self.contend = contend
        self.lock = threading.Lock()
        self.claims: Counter[int] = Counter()
        self.finished: set[int] = set()
        self.created: dict[int, dict[str, Any]] = {}
        self.creating = [threading.Lock() for _ in self.plan]

    def claim(self) -> int | None:
        """A game not finished that fewer than `contend` clients play, or None."""
        with self.lock:
            for n in range(len(self.plan)):
                if n not in self.finished and self.claims[n] < self.contend:
                    self.claims[n] += 1
                    return n
        return None

    def finish(self, n: int) -> bool:
        """Mark game `n` finished; True for the client that saw it first."""
        with self.lock:
            first = n not in self.finished
            self.finished.add(n)
            return first


class TablePlayer:
    """Plays the table's games as their seats would: view, legal moves, command with its version."""

    def __init__(self, conn: Connection, table: Table, seed: int) -> None:
        self.conn, self.table = conn, table
        self.rng = random.Random(seed)
        self.game: dict[str, Any] | None = None
        self.number = -1
        self.turns = 0

    def _claim(self) -> bool:
        n = self.table.claim()
        if n is None:
            return False
        with self.table.creating[n]:  # the first of a game's clients creates it
            if n not in self.table.created:
                key = self.table.plan[n]
                status, created = self.conn.call("create", "POST", "/games", {
                    "game": key, "players": seats(key), "seed": f"load-{n}",
                    "options": game_class(key).SHORT_OPTIONS})
                if status != 201:
                    self.conn.recorder.count("errors")
                    self.table.finish(n)  # not to be claimed again
                    return True
                self.table.created[n] = created
        self.game, self.number, self.turns = self.table.created[n], n, 0
        return True

    def step(self) -> bool:
        """One turn of the game in play: view, legal moves, command."""
        count = self.conn.recorder.count
        try:
            if self.game is None:
                return self._claim()
            gid, tokens = self.game["game_id"], self.game["player_tokens"]
            self.turns += 1
            status, view = self.conn.call("view", "GET", f"/games/{gid}")
            if status != 200 or self.turns > MAX_COMMANDS_PER_GAME:
                count("errors")
                self.game = None
                return True
            if view["status"] != "in_progress":
                if self.table.finish(self.number):
                    count("games finished")
                self.game = None
                return True
            player = self.rng.choice(view["to_act"])
            status, moves = self.conn.call("legal-moves", "GET", f"/games/{gid}/legal-moves",
                                           token=tokens[player])
            if status != 200:
                count("errors")
                return True
            if not moves["moves"]:
                return True  # another client moved first (contention)
            body = {**self.rng.choice(moves["moves"]), "expected_version": view["version"]}
            status, _ = self.conn.call("command", "POST", f"/games/{gid}/commands", body,
                                       token=tokens[player])
        except OSError:
            count("errors")
            self.game = None
            return True
        count("commands accepted" if status == 200 else "commands 409" if status == 409
              else "errors")
        return True


# -- the standalone load test ------------------------------------------------------------------

def table_load(port: int, args: argparse.Namespace, host: str = "127.0.0.1") -> dict[str, Any]:
    """Create and play `args.games` games with `args.clients` table players; the figures."""
    table = Table(args.games, args.game or available_games(), args.contend)

    def make(i: int, recorder: Recorder) -> TablePlayer:
        return TablePlayer(Connection(port, recorder, keep_alive=True, host=host), table, i)

    run = drive(args.clients, args.seconds, 10**9, make)
    return summarise(run, args)


def summarise(run: Run, args: argparse.Namespace) -> dict[str, Any]:
    """The figures of a run."""
    requests = sum(len(v) for v in run.latency_ms.values())
    latency = {kind: {"n": len(v), "p50_ms": round(percentile(v, 50), 1),
                      "p90_ms": round(percentile(v, 90), 1),
                      "p99_ms": round(percentile(v, 99), 1), "max_ms": round(max(v), 1)}
               for kind, v in sorted(run.latency_ms.items()) if v}
    accepted = run.counts.get("commands accepted", 0)
    return {"storage": args.storage, "workers": args.workers, "clients": args.clients,
            "contend": args.contend, "games": args.games,
            "games_finished": run.counts.get("games finished", 0),
            "commands_accepted": accepted,
            "commands_409": run.counts.get("commands 409", 0),
            "errors": run.errors,
            "statuses": dict(sorted(run.statuses.items())),
            "seconds": round(run.seconds, 1),
            "commands_per_s": round(accepted / run.seconds, 1),
            "requests_per_s": round(requests / run.seconds, 1),
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
    from bench.servers import exit_on_sigterm, served_gruft, store

    args = parse_args(argv)
    exit_on_sigterm()
    if args.url:
        host, port = loopback_only(args.url)
        args.storage, args.workers = "external", 0
        result = table_load(port, args, host)
    else:
        with tempfile.TemporaryDirectory(prefix="gruft-load-") as tmp, \
                store(args.storage, Path(tmp)) as store_env, \
                served_gruft(store_env, Path(tmp), args.workers) as running:
            result = table_load(running.port, args)
    print_report(result)
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
