"""Read-model figures (printed, never asserted): `python -m bench.projections`.

- GET /games query time on 10 and on 10,000 games, per filter (SQLite; PostgreSQL too when
  GRUFT_POSTGRES=1);
- projection throughput: a rebuild of a store of random games, events per second, and how
  much of it is the per-game state the projection keeps (applying each event to its copy);
- read-your-writes: the GET /games right after a POST /games, with the embedded runner.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from itertools import product
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_OID, uuid5

from bench.servers import postgres_schema, sqlite_store
from service.readmodels import GameUpdate, open_view, rebuild, views_env

KINDS = ["vampire-queen", "voodoo-prince", "vampir", "vampiring"]
CROWD = [f"player{i:02d}" for i in range(50)]
FILTERS = list(product([None, "vampir"], [None, "finished"], [None, "player07"]))


def timed(func, repeat: int = 30) -> float:
    """Median milliseconds of `func()`."""
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        runs.append((time.perf_counter() - started) * 1000)
    return statistics.median(runs)


def index_updates(count: int, kinds: list[str], players: list[str], seed: int = 1
                  ) -> Iterator[GameUpdate]:
    """What `count` games change in the index: kinds and players drawn at random, half finished."""
    rng = random.Random(seed)
    for position in range(1, count + 1):
        key = rng.choice(kinds)
        seats = rng.sample(players, 3) if len(players) > 3 else list(players)
        game_id = str(uuid5(NAMESPACE_OID, f"{seed}:{position}"))
        at = f"2025-01-01T00:00:{position % 60:02d}+00:00"
        yield GameUpdate(game_id, key, 1, at, position, players=seats)
        if rng.random() < 0.5:
            scores = {p: rng.randrange(100) for p in seats}
            yield GameUpdate(game_id, key, 40, at, position, finished=True, scores=scores,
                             winners=[seats[0]])


def fill_index(view: Any, count: int, kinds: list[str], players: list[str]) -> None:
    """`count` games written into the views through the projection's own statements, in one
    transaction (no log, no tracking)."""
    with view.bulk() as apply:
        for update in index_updates(count, kinds, players):
            apply(update)


def list_times(env_of) -> None:
    """Median page time per filter, 10 vs 10,000 games."""
    views = {}
    for count in (10, 10_000):
        env = env_of(count)
        views[count] = view = open_view(views_env(env))
        if count == 10:  # ten games that all match every filter: the same page size
            fill_index(view, count, ["vampir"], ["player07", "a", "b"])
        else:
            fill_index(view, count, KINDS, CROWD)
        if env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
            with view._transaction(commit=True) as c:  # as autovacuum would, soon after
                for table in ("readmodel_games", "readmodel_game_players"):
                    c.execute(f'ANALYZE "{env["POSTGRES_SCHEMA"]}"."{table}"')
    print(f"  a page of 5 by {'filter':<26} {'10 games':>10} {'10,000 games':>13}")
    for game, status, player in FILTERS:
        label = ",".join(f"{n}={v}" for n, v in (("game", game), ("status", status),
                                                  ("player", player)) if v) or "(none)"
        query = {"game": game, "status": status, "player": player, "limit": 5}
        cells = [timed(lambda v=views[c], q=query: v.games_page(**q)) for c in (10, 10_000)]
        print(f"  {label:<41} {cells[0]:>8.2f}ms {cells[1]:>11.2f}ms")
    for view in views.values():
        view.factory.close()


def projection_rate(env: dict[str, str], games_count: int) -> None:
    """Store random games, rebuild their views, and time the parts."""
    from bots import RandomBot
    from domain import available_games, game_class
    from service.app import Games
    from service.readmodels import projection
    from service.runners.simulate import default_players, play_game

    games = Games(env)
    rng = random.Random(3)
    for key in available_games():  # finished short games of every kind, 3 players
        cls = game_class(key)
        players = CROWD[:default_players(cls)]
        for _ in range(games_count):
            game, _ = play_game(cls, players, {p: RandomBot(rng) for p in players},
                                seed=rng.randrange(10**6), options=dict(cls.SHORT_OPTIONS),
                                keep_events=True)
            games.store_imported(game)
    spent = [0.0]
    follow = projection.GameViews._follow

    def timed_follow(self, event):
        started = time.perf_counter()
        try:
            return follow(self, event)
        finally:
            spent[0] += time.perf_counter() - started

    projection.GameViews._follow = timed_follow
    try:
        done = rebuild(env)
    finally:
        projection.GameViews._follow = follow
    print(f"  rebuild: {done.events} events in {done.seconds:.2f} s = "
          f"{done.events / done.seconds:.0f} events/s; keeping each game's state: "
          f"{spent[0]:.2f} s ({100 * spent[0] / done.seconds:.0f}%)")
    games.close()


def read_your_writes(env: dict[str, str]) -> None:
    """GET /games right after POST /games (embedded runner, warm)."""
    from api import create_app

    app = create_app({"TESTING": True, "GRUFT_ENV": env})
    client = app.test_client()
    client.get("/games")  # start the runner
    waits = []
    for _ in range(20):
        created = client.post("/games", json={"game": "vampiring", "players": ["a", "b"]}).json
        started = time.perf_counter()
        listed = client.get("/games?limit=200&game=vampiring").json["games"]
        waits.append((time.perf_counter() - started) * 1000)
        assert listed[-1]["game_id"] == created["game_id"]
    print(f"  GET /games right after POST /games: median {statistics.median(waits):.1f} ms, "
          f"max {max(waits):.1f} ms")
    app.extensions["gruft"].close()  # the worker, through its owner (api/worker.py)


def sqlite_env(folder: Path, name: str) -> dict[str, str]:
    """A storage environment on a fresh SQLite file."""
    (folder / name).mkdir()
    return sqlite_store(folder / name)


def main() -> None:
    """Print every figure."""
    folder = Path(tempfile.mkdtemp(prefix="gruft-bench-"))
    print("SQLite")
    list_times(lambda count: sqlite_env(folder, f"list{count}"))
    projection_rate(sqlite_env(folder, "rate"), 4)
    read_your_writes(sqlite_env(folder, "ryw"))
    if os.environ.get("GRUFT_POSTGRES") == "1":
        with ExitStack() as stack:
            envs = [stack.enter_context(postgres_schema(folder / str(n))) for n in range(4)]
            print("PostgreSQL")
            by_count = {10: envs[0], 10_000: envs[1]}
            list_times(lambda count: by_count[count])
            projection_rate(envs[2], 4)
            read_your_writes(envs[3])


if __name__ == "__main__":
    main()
