"""10,000 games list with the same work as 10: index ranges on a monotonic key, never scans.

The games go straight into the views through the projection's own statements (one bulk
transaction). The work of a query is counted, not timed: SQLite's virtual-machine steps (a
scan over 10,000 rows costs tens of thousands), PostgreSQL's plan and rows read. Timings are
printed by bench/projections.py.
"""

from __future__ import annotations

import json
import sqlite3
from itertools import product

from bench.projections import fill_index
from service.readmodels import open_view, views_env
from tests.service.readmodels.kit import fill_index_rows

KINDS = ["vampire-queen", "voodoo-prince", "vampir", "vampiring"]
CROWD = [f"player{i:02d}" for i in range(50)]
FILTERS = list(product([None, "vampir"], [None, "finished", "in_progress"], [None, "player07"]))
PAGE = 2


def sqlite_work(path: str, text: str, params: list) -> tuple[list, list[str], int]:
    """Rows, query plan and virtual-machine steps of one query on a fresh connection."""
    conn = sqlite3.connect(path)
    try:
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + text, params)]
        steps = [0]

        def count() -> int:
            steps[0] += 1
            return 0

        conn.set_progress_handler(count, 1)
        rows = conn.execute(text, params).fetchall()
        return rows, plan, steps[0]
    finally:
        conn.close()


def sqlite_views(folder, count: int, kinds: list[str], players: list[str]):
    """A views file holding `count` games."""
    env = views_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                     "SQLITE_DBNAME": str(folder / f"g{count}.sqlite")})
    view = open_view(env)
    fill_index_rows(view, count, kinds, players)
    return view, env["READMODELS_SQLITE_DBNAME"]


def test_the_bulk_fixture_writes_what_the_projection_writes(tmp_path):
    # Check the fast fixture's rows are exactly the projection's own, game by game
    projected, _ = sqlite_views(tmp_path, 0, KINDS, CROWD)
    fill_index(projected, 40, KINDS, CROWD)
    direct, _ = sqlite_views(tmp_path, 40, KINDS, CROWD)
    try:
        ours, theirs = projected.dump(), direct.dump()
        assert ours["games"] == theirs["games"] and ours["players"] == theirs["players"]
        assert {row[4] for row in ours["games"]} == {"finished", "in_progress"}
    finally:
        projected.factory.close()
        direct.factory.close()


def test_sqlite_lists_10000_games_with_the_work_of_10(tmp_path):
    # 10 games that all match every filter used; 10,000 games of four kinds and 50 players
    small, small_path = sqlite_views(tmp_path, 10, ["vampir"], ["player07", "a", "b"])
    large, large_path = sqlite_views(tmp_path, 10_000, KINDS, CROWD)
    try:
        for (game, status, player), after, newest in product(FILTERS, [0, 5000], [False, True]):
            text, params = large.games_query(game, status, player, after, PAGE + 1, newest)
            rows, plan, steps = sqlite_work(large_path, text, params)
            small_rows, _, small_steps = sqlite_work(
                small_path, *small.games_query(game, status, player, 0, PAGE + 1, newest))
            where = (game, status, player, after, newest)
            # Check a full page from an index range: no scan, no sort of all matches
            assert len(rows) == len(small_rows) == PAGE + 1, where
            # (the only scan allowed is of the at most PAGE + 1 positions picked first)
            assert [s for s in plan if s.startswith("SCAN") and s != "SCAN page"] == [], plan
            assert not any("TEMP B-TREE" in step for step in plan), (where, plan)
            # Check the work is that of the 10-game store (a deeper B-tree, not more rows)
            assert steps <= 2 * small_steps, (where, steps, small_steps)
        # Check the cursor still pages exactly through the large store
        page, cursor = large.games_page(game="vampir", player="player07", limit=50)
        seen = [g["game_id"] for g in page]
        while cursor is not None:
            page, cursor = large.games_page(game="vampir", player="player07", after=cursor,
                                            limit=50)
            seen += [g["game_id"] for g in page]
        text, params = large.games_query("vampir", None, "player07", 0, 100_000)
        assert seen == [row[1] for row in sqlite_work(large_path, text, params)[0]]
        # Check newest first pages through the same games, backwards
        page, cursor = large.games_page(game="vampir", player="player07", limit=50, newest=True)
        backwards = [g["game_id"] for g in page]
        while cursor is not None:
            page, cursor = large.games_page(game="vampir", player="player07", after=cursor,
                                            limit=50, newest=True)
            backwards += [g["game_id"] for g in page]
        assert backwards == seen[::-1]
    finally:
        small.factory.close()
        large.factory.close()


def plan_nodes(plan: dict) -> list[dict]:
    """Every node of a PostgreSQL JSON plan."""
    out, todo = [], [plan]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += node.get("Plans", [])
    return out


def test_postgres_lists_10000_games_from_index_ranges(postgres_env):
    view = open_view(views_env(postgres_env))
    try:
        fill_index_rows(view, 10_000, KINDS, CROWD)
        with view._transaction(commit=True) as c:
            for table in ("readmodel_games", "readmodel_game_players"):
                c.execute(f'ANALYZE "{postgres_env["POSTGRES_SCHEMA"]}"."{table}"')
        for (game, status, player), after, newest in product(FILTERS, [0, 5000], [False, True]):
            text, params = view.games_query(game, status, player, after, PAGE + 1, newest)
            with view._transaction(commit=False) as c:
                c.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + text, params)
                plan = c.fetchone()["QUERY PLAN"]
            nodes = plan_nodes((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"])
            kinds = [n["Node Type"] for n in nodes]
            where = (game, status, player, after, newest)
            # Check index scans under a limit that read no more rows than the page holds
            assert "Seq Scan" not in kinds and "Sort" not in kinds, (where, kinds)
            assert max(n["Actual Rows"] for n in nodes) <= PAGE + 1, (where, kinds)
    finally:
        view.factory.close()
