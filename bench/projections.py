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
import uuid
from itertools import product
from pathlib import Path

from service.readmodels import open_view, read_models, rebuild, views_env

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


def list_times(env_of) -> None:
    """Median page time per filter, 10 vs 10,000 games."""
    from tests.service.readmodels.kit import fill_index_rows

    views = {}
    for count in (10, 10_000):
        env = env_of(count)
        views[count] = view = open_view(views_env(env))
        if count == 10:  # ten games that all match every filter: the same page size
            fill_index_rows(view, count, ["vampir"], ["player07", "a", "b"])
        else:
            fill_index_rows(view, count, KINDS, CROWD)
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
    from service.app import Games
    from service.readmodels import projection
    from tests.service.readmodels.kit import populate

    games = Games(env)
    populate(games, random.Random(3), per_game=games_count, unfinished=1)
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
    read_models(app.extensions["gruft"]).close()


def sqlite_env(folder: Path, name: str) -> dict[str, str]:
    """A storage environment on a fresh SQLite file."""
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / f"{name}.sqlite"), "GRUFT_DATA_DIR": str(folder)}


def main() -> None:
    """Print every figure."""
    folder = Path(tempfile.mkdtemp(prefix="gruft-bench-"))
    print("SQLite")
    list_times(lambda count: sqlite_env(folder, f"list{count}"))
    projection_rate(sqlite_env(folder, "rate"), 4)
    read_your_writes(sqlite_env(folder, "ryw"))
    if os.environ.get("GRUFT_POSTGRES") == "1":
        import psycopg

        from tests.conftest import POSTGRES_DSN, postgres_settings

        schemas = [f"gruft_bench_{uuid.uuid4().hex[:8]}" for _ in range(4)]
        with psycopg.connect(POSTGRES_DSN, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'CREATE SCHEMA "{schema}"')
        try:
            print("PostgreSQL")
            by_count = {10: schemas[0], 10_000: schemas[1]}
            list_times(lambda count: postgres_settings(by_count[count], str(folder)))
            projection_rate(postgres_settings(schemas[2], str(folder)), 4)
            read_your_writes(postgres_settings(schemas[3], str(folder)))
        finally:
            with psycopg.connect(POSTGRES_DSN, autocommit=True) as conn:
                for schema in schemas:
                    conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


if __name__ == "__main__":
    main()
