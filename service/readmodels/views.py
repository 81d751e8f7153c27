"""The materialised views: plain tables updated in the same transaction as the tracking position.

Each view class is one of eventsourcing's tracking recorders extended with the read models'
tables, so the updates of a batch of events and the record of how far they go commit or roll
back together, and the single-row tracking table refuses a position it has already passed: an
event is applied exactly once, whatever crashes in between.

Tables (the same on SQLite and PostgreSQL):
- ``readmodel_games``: one row per game, keyed by ``position`` (the notification id of its
  creation event — monotonic, the cursor of ``GET /games``), indexed for each filter.
- ``readmodel_game_players``: (player, position) with the game's kind and status copied, so
  the ``player`` filter, alone or with the others, is an index range too.
- ``readmodel_game_samples``: per-game metric samples of games still being played.
- ``readmodel_player_stats`` / ``readmodel_player_metrics``: finished games per player and
  game kind, with running sums so averages never rescan games.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteTrackingRecorder

from service.readmodels.stat_kinds import Sample, score_sign
from service.store.ddl import retry_concurrent_ddl
from service.store.internals import insert_tracking

PAGE_MAX = 200
TOP = 2**62  # above every position: a newest-first listing with no cursor starts below it

TABLES = {
    "games": "readmodel_games",
    "players": "readmodel_game_players",
    "samples": "readmodel_game_samples",
    "stats": "readmodel_player_stats",
    "metrics": "readmodel_player_metrics",
    "origins": "readmodel_game_origins",
    "counted": "readmodel_counted_origins",
}

# `{pk}` is SQLite's rowid alias (INTEGER PRIMARY KEY) or PostgreSQL's BIGINT PRIMARY KEY;
# DOUBLE PRECISION and BIGINT have the intended affinity in SQLite as well.
DDL = (
    "CREATE TABLE IF NOT EXISTS {games} ("
    " position {pk}, game_id TEXT NOT NULL UNIQUE, game TEXT NOT NULL, players TEXT NOT NULL,"
    " status TEXT NOT NULL, version BIGINT NOT NULL, created_at TEXT NOT NULL,"
    " updated_at TEXT NOT NULL, finished_at TEXT, scores TEXT, winners TEXT)",
    "CREATE INDEX IF NOT EXISTS readmodel_games_by_game ON {games} (game, position)",
    "CREATE INDEX IF NOT EXISTS readmodel_games_by_status ON {games} (status, position)",
    "CREATE INDEX IF NOT EXISTS readmodel_games_by_game_status ON {games} "
    "(game, status, position)",
    "CREATE TABLE IF NOT EXISTS {players} ("
    " player TEXT NOT NULL, position BIGINT NOT NULL, game TEXT NOT NULL, status TEXT NOT NULL,"
    " PRIMARY KEY (player, position))",
    "CREATE INDEX IF NOT EXISTS readmodel_players_by_game ON {players} (player, game, position)",
    "CREATE INDEX IF NOT EXISTS readmodel_players_by_status ON {players} "
    "(player, status, position)",
    "CREATE INDEX IF NOT EXISTS readmodel_players_by_game_status ON {players} "
    "(player, game, status, position)",
    "CREATE TABLE IF NOT EXISTS {samples} ("
    " game_id TEXT NOT NULL, player TEXT NOT NULL, metric TEXT NOT NULL,"
    " total DOUBLE PRECISION NOT NULL, samples BIGINT NOT NULL,"
    " PRIMARY KEY (game_id, player, metric))",
    "CREATE TABLE IF NOT EXISTS {stats} ("
    " player TEXT NOT NULL, game TEXT NOT NULL, played BIGINT NOT NULL, won BIGINT NOT NULL,"
    " score_total BIGINT NOT NULL, average_score DOUBLE PRECISION NOT NULL,"
    " rank_score DOUBLE PRECISION NOT NULL, PRIMARY KEY (player, game))",
    "CREATE INDEX IF NOT EXISTS readmodel_stats_ranking ON {stats} "
    "(game, won DESC, rank_score DESC, player)",
    "CREATE TABLE IF NOT EXISTS {metrics} ("
    " player TEXT NOT NULL, game TEXT NOT NULL, metric TEXT NOT NULL,"
    " total DOUBLE PRECISION NOT NULL, samples BIGINT NOT NULL,"
    " PRIMARY KEY (player, game, metric))",
    # A game's origin is the hash of its creation event, which an import re-creates exactly
    # (same setup, same recorded timestamp): a game and every imported copy share it.
    "CREATE TABLE IF NOT EXISTS {origins} (game_id TEXT PRIMARY KEY, origin TEXT NOT NULL)",
    # The origins whose game was counted in the statistics: the first copy to finish.
    "CREATE TABLE IF NOT EXISTS {counted} (origin TEXT PRIMARY KEY, game_id TEXT NOT NULL)",
)


@dataclass(frozen=True)
class GameUpdate:
    """What one game event changes in the views (computed by the projection)."""

    game_id: str
    game: str
    version: int
    at: str  # the event's timestamp, ISO 8601
    position: int  # the event's place in the log (a new game's index position)
    players: list[str] | None = None  # set by the creation event only
    origin: str | None = None  # the creation event's hash, set by it only
    samples: Sequence[Sample] = ()
    finished: bool = False
    aborted: bool = False  # the host aborted it: over, but counted in no statistics
    scores: dict[str, int] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)


class ReadModelView:
    """The read models' commands and queries, shared by the SQLite and PostgreSQL views.

    The PostgreSQL view is in service/readmodels/postgres.py, imported only when configured.
    """

    datastore: Any
    placeholder = "%s"
    primary_key = "BIGINT PRIMARY KEY"

    def _names(self) -> dict[str, str]:
        return dict(TABLES)

    def sql(self, template: str) -> str:
        """A statement with this database's table names and parameter style."""
        cache = self.__dict__.setdefault("_sql_cache", {})
        text = cache.get(template)
        if text is None:
            text = template.format(pk=self.primary_key, **self._names())
            text = cache[template] = text.replace("%s", self.placeholder)
        return text

    def view_ddl(self) -> list[str]:
        """The statements that create the views' tables and indexes."""
        return [self.sql(s) for s in DDL]

    @contextmanager
    def _transaction(self, *, commit: bool) -> Iterator[Any]:
        with self.datastore.transaction(commit=commit) as cursor:
            yield cursor

    # -- commands (the projection's write path) ---------------------------------------------

    def apply(self, updates: Sequence[GameUpdate], tracking: Tracking) -> None:
        """Apply game events in log order and record the position `tracking`, atomically."""
        with self._transaction(commit=True) as c:
            moved: dict[Any, tuple[int, Any]] = {}
            for update in updates:
                self.apply_in(c, update, moved)
            self._moved(c, moved)
            insert_tracking(self, c, tracking)

    @contextmanager
    def bulk(self) -> Iterator[Callable[[GameUpdate], None]]:
        """Many updates in one transaction through the statements of `apply`, untracked."""
        # For bulk loads and benchmarks only: following the log always goes through `apply`.
        with self._transaction(commit=True) as c:
            yield lambda update: self.apply_in(c, update)

    def apply_in(self, c: Any, update: GameUpdate,
                 moved: dict[Any, tuple[int, Any]] | None = None) -> None:
        """The statements of one game event, inside the caller's transaction. With `moved`,
        a game's new version and time are kept there for `_moved` to write once per game:
        a batch holds several events of a game (most commands store more than one), and no
        other statement reads them."""
        if update.players is not None:
            self._created(c, update)
        elif moved is not None:
            moved[update.game_id] = (update.version, update.at)
        else:
            self._moved(c, {update.game_id: (update.version, update.at)})
        for player, metric, value in update.samples:
            c.execute(self.sql(
                "INSERT INTO {samples} (game_id, player, metric, total, samples) "
                "VALUES (%s, %s, %s, %s, 1) ON CONFLICT (game_id, player, metric) DO UPDATE "
                "SET total = {samples}.total + excluded.total, samples = {samples}.samples + 1"),
                (update.game_id, player, metric, value))
        if update.aborted:
            self._aborted(c, update)
        elif update.finished:
            self._finished(c, update)

    def _moved(self, c: Any, moved: dict[Any, tuple[int, Any]]) -> None:
        """Each game's newest version and when it was stored."""
        statement = self.sql("UPDATE {games} SET version = %s, updated_at = %s WHERE game_id = %s")
        rows = [(version, at, game_id) for game_id, (version, at) in moved.items()]
        if len(rows) == 1:
            c.execute(statement, rows[0])
        elif rows:
            c.executemany(statement, rows)

    def _created(self, c: Any, update: GameUpdate) -> None:
        players, position = update.players or [], update.position
        c.execute(self.sql(
            "INSERT INTO {games} (position, game_id, game, players, status, version, created_at,"
            " updated_at) VALUES (%s, %s, %s, %s, 'in_progress', %s, %s, %s)"),
            (position, update.game_id, update.game, json.dumps(players), update.version,
             update.at, update.at))
        if update.origin is not None:
            c.execute(self.sql("INSERT INTO {origins} (game_id, origin) VALUES (%s, %s)"),
                      (update.game_id, update.origin))
        for player in players:
            c.execute(self.sql("INSERT INTO {players} (player, position, game, status) "
                               "VALUES (%s, %s, %s, 'in_progress')"),
                      (player, position, update.game))

    def _aborted(self, c: Any, update: GameUpdate) -> None:
        # Listed as aborted; no played, won, score or average counts it (docs/api.md: stats leave
        # it out), so the samples it gathered are dropped.
        c.execute(self.sql(
            "UPDATE {games} SET status = 'aborted', finished_at = %s "
            "WHERE game_id = %s RETURNING position, players"), (update.at, update.game_id))
        row = c.fetchone()
        for player in json.loads(row["players"]):
            c.execute(self.sql("UPDATE {players} SET status = 'aborted' "
                               "WHERE player = %s AND position = %s"), (player, row["position"]))
        c.execute(self.sql("DELETE FROM {samples} WHERE game_id = %s"), (update.game_id,))

    def _finished(self, c: Any, update: GameUpdate) -> None:
        c.execute(self.sql(
            "UPDATE {games} SET status = 'finished', finished_at = %s, scores = %s, winners = %s "
            "WHERE game_id = %s RETURNING position, players"),
            (update.at, json.dumps(update.scores), json.dumps(update.winners), update.game_id))
        row = c.fetchone()
        sign = score_sign(update.game)
        counts = self._first_of_its_origin(c, update.game_id)
        for player in json.loads(row["players"]):
            # by primary key, one row per player: never a scan of the table
            c.execute(self.sql("UPDATE {players} SET status = 'finished' "
                               "WHERE player = %s AND position = %s"), (player, row["position"]))
            if not counts:
                continue
            score = int(update.scores.get(player, 0))
            won = 1 if player in update.winners else 0
            c.execute(self.sql(
                "INSERT INTO {stats} (player, game, played, won, score_total, average_score,"
                " rank_score) VALUES (%s, %s, 1, %s, %s, %s, %s)"
                " ON CONFLICT (player, game) DO UPDATE SET"
                " played = {stats}.played + 1, won = {stats}.won + excluded.won,"
                " score_total = {stats}.score_total + excluded.score_total,"
                " average_score = CAST({stats}.score_total + excluded.score_total"
                " AS DOUBLE PRECISION) / ({stats}.played + 1),"
                " rank_score = %s * CAST({stats}.score_total + excluded.score_total"
                " AS DOUBLE PRECISION) / ({stats}.played + 1)"),
                (player, update.game, won, score, float(score), float(sign * score), sign))
        if counts:
            c.execute(self.sql(
                "INSERT INTO {metrics} (player, game, metric, total, samples)"
                " SELECT player, %s, metric, total, samples FROM {samples} WHERE game_id = %s"
                " ON CONFLICT (player, game, metric) DO UPDATE SET"
                " total = {metrics}.total + excluded.total,"
                " samples = {metrics}.samples + excluded.samples"),
                (update.game, update.game_id))
        c.execute(self.sql("DELETE FROM {samples} WHERE game_id = %s"), (update.game_id,))

    def _first_of_its_origin(self, c: Any, game_id: str) -> bool:
        """Whether a finished game counts: no other copy of it (an import of it, or the game
        it was imported from) was counted before (docs/read-models.md)."""
        c.execute(self.sql("SELECT origin FROM {origins} WHERE game_id = %s"), (game_id,))
        found = c.fetchone()
        if found is None:  # projected before origins were kept: counted as it always was
            return True
        c.execute(self.sql("INSERT INTO {counted} (origin, game_id) VALUES (%s, %s) "
                           "ON CONFLICT (origin) DO NOTHING RETURNING game_id"),
                  (found["origin"], game_id))
        return c.fetchone() is not None

    # -- queries ----------------------------------------------------------------------------

    def games_query(self, game: str | None, status: str | None, player: str | None,
                    after: int, limit: int, newest: bool = False) -> tuple[str, list[Any]]:
        """The SQL of one page of the index: an index range on a monotonic key, never a scan.

        With `player`, the page's positions come first from the players' index (a range of
        at most `limit` rows), then their rows by primary key; the caller orders that page.
        `newest`: newest first, `after` then the position the page starts below (0: the top).
        """
        columns = "g.position, g.game_id, g.game, g.players, g.status, g.version, g.created_at"
        key = "p" if player is not None else "g"
        where, params = [], []
        for column, value in (("player", player), ("game", game), ("status", status)):
            if value is not None:
                where.append(f"{key}.{column} = %s")
                params.append(value)
        if newest:
            where.append(f"{key}.position < %s")
            params += [after or TOP, limit]
        else:
            where.append(f"{key}.position > %s")
            params += [after, limit]
        condition = " AND ".join(where)
        order = "DESC" if newest else "ASC"
        if player is None:
            text = (f"SELECT {columns} FROM {{games}} g WHERE {condition} "
                    f"ORDER BY g.position {order} LIMIT %s")
        else:
            text = (f"SELECT {columns} FROM (SELECT p.position FROM {{players}} p "
                    f"WHERE {condition} ORDER BY p.position {order} LIMIT %s) page "
                    "JOIN {games} g ON g.position = page.position")
        return self.sql(text), params

    def games_page(self, game: str | None = None, status: str | None = None,
                   player: str | None = None, after: int = 0, limit: int = 50,
                   newest: bool = False) -> tuple[list[dict[str, Any]], int | None]:
        """A page of game summaries, oldest (or `newest`) first, and the `after` of the next."""
        limit = max(1, min(limit, PAGE_MAX))
        text, params = self.games_query(game, status, player, after, limit + 1, newest)
        with self._transaction(commit=False) as c:
            c.execute(text, params)
            rows = sorted(c.fetchall(), key=lambda row: int(row["position"]), reverse=newest)
        page = [summary(row) for row in rows[:limit]]
        cursor = int(rows[limit - 1]["position"]) if len(rows) > limit else None
        return page, cursor

    def game_row(self, game_id: str) -> dict[str, Any] | None:
        """The index row of one game (with times, scores and winners), or None."""
        with self._transaction(commit=False) as c:
            c.execute(self.sql("SELECT * FROM {games} WHERE game_id = %s"), (game_id,))
            row = c.fetchone()
        if row is None:
            return None
        return {**summary(row), "position": int(row["position"]),
                "updated_at": row["updated_at"], "finished_at": row["finished_at"],
                "scores": _json(row["scores"]), "winners": _json(row["winners"]) or []}

    def player_stats(self, player: str) -> dict[str, dict[str, Any]]:
        """Finished games of one player per game kind, with the game's own averages."""
        with self._transaction(commit=False) as c:
            c.execute(self.sql("SELECT game, played, won, average_score FROM {stats} "
                               "WHERE player = %s ORDER BY game"), (player,))
            stats = c.fetchall()
            c.execute(self.sql("SELECT game, metric, total, samples FROM {metrics} "
                               "WHERE player = %s ORDER BY game, metric"), (player,))
            metrics = c.fetchall()
        out = {r["game"]: {"played": int(r["played"]), "won": int(r["won"]),
                           "average_score": float(r["average_score"])} for r in stats}
        for r in metrics:
            if r["game"] in out and r["samples"]:
                out[r["game"]][r["metric"]] = float(r["total"]) / int(r["samples"])
        return out

    def leaderboard(self, game: str, limit: int = 50) -> list[dict[str, Any]]:
        """Players of one game kind ranked by wins, then average score (best first)."""
        limit = max(1, min(limit, PAGE_MAX))
        with self._transaction(commit=False) as c:
            c.execute(self.sql(
                "SELECT player, played, won, average_score FROM {stats} WHERE game = %s "
                "ORDER BY won DESC, rank_score DESC, player LIMIT %s"), (game, limit))
            rows = c.fetchall()
        return [{"player": r["player"], "played": int(r["played"]), "won": int(r["won"]),
                 "average_score": float(r["average_score"])} for r in rows]

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every view table, sorted (rebuild-equals-incremental checks)."""
        out = {}
        with self._transaction(commit=False) as c:
            for key, table in self._names().items():
                c.execute(f"SELECT * FROM {table}")
                out[key] = sorted(tuple(_plain(v) for v in dict(r).values())
                                  for r in c.fetchall())
        return out

    # -- rebuilding -------------------------------------------------------------------------

    def drop_views(self, application_name: str) -> None:
        """Drop every view table and forget the position, in one transaction; then recreate."""
        with self._transaction(commit=True) as c:
            for table in self._names().values():
                c.execute(f"DROP TABLE IF EXISTS {table}")
            c.execute(self._forget_statement(), (application_name,))
        self.create_view_tables()

    def _forget_statement(self) -> str:
        raise NotImplementedError

    def create_view_tables(self) -> None:
        """Create the views' tables if they are missing (idempotent)."""
        def create() -> None:
            with self._transaction(commit=True) as c:
                for statement in self.view_ddl():
                    c.execute(statement)
        retry_concurrent_ddl(create)


def summary(row: Any) -> dict[str, Any]:
    """A `GET /games` summary from an index row."""
    return {"game_id": row["game_id"], "game": row["game"], "players": json.loads(row["players"]),
            "status": row["status"], "version": int(row["version"]),
            "created_at": row["created_at"]}


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _plain(value: Any) -> Any:
    return float(value) if isinstance(value, float) else value


class SQLiteReadModelView(ReadModelView, SQLiteTrackingRecorder):
    """The read models in SQLite (by default a file beside the games' own)."""

    placeholder = "?"
    primary_key = "INTEGER PRIMARY KEY"

    def construct_create_table_statements(self) -> list[str]:
        return [*super().construct_create_table_statements(), *self.view_ddl()]

    def create_table(self) -> None:
        # Two workers starting on a new file both record the tracking table's migration row;
        # the loser retries and then finds it (a failed boot stopped gunicorn in CI).
        retry_concurrent_ddl(super().create_table)

    def _forget_statement(self) -> str:
        return "DELETE FROM tracking WHERE application_name = ?"


__all__ = ["GameUpdate", "ReadModelView", "SQLiteReadModelView", "summary"]
