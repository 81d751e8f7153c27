"""The read models in PostgreSQL: imported only when the views are configured there.

psycopg comes with the ``postgres`` extra (``pip install '.[postgres]'``); a plain install
serves on SQLite, and nothing imports this module unless the views' factory is PostgreSQL's
(service.readmodels.projection.open_view).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError
from eventsourcing.postgres import PostgresTrackingRecorder
from eventsourcing.utils import retry

from service.readmodels.views import TABLES, ReadModelView
from service.store.ddl import retry_concurrent_ddl


class PostgresReadModelView(ReadModelView, PostgresTrackingRecorder):
    """The read models in PostgreSQL, in the games' database and schema."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unhurried: weakref.WeakSet[Any] = weakref.WeakSet()  # synchronous_commit off

    def _names(self) -> dict[str, str]:
        schema = _quoted(self.datastore.schema)
        return {key: f"{schema}.{_quoted(table)}" for key, table in TABLES.items()}

    def create_table(self) -> None:
        retry_concurrent_ddl(super().create_table)
        self.create_view_tables()

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.1)
    def apply(self, updates: Any, tracking: Any) -> None:
        """ReadModelView's, tried again at once when its connection was lost (nothing of a
        failed transaction is kept, and its tracking record makes a second try exact).

        After a PostgreSQL restart the views' pool hands out each of its dead connections once
        (psycopg_pool does not check them first): without this, each cost the follower's
        RETRY_SECONDS, and readers waited up to GRUFT_VIEWS_WAIT for the views to catch up."""
        super().apply(updates, tracking)

    @contextmanager
    def _transaction(self, *, commit: bool) -> Iterator[Any]:
        if not commit:
            with self.datastore.transaction(commit=False) as cursor:
                yield cursor
            return
        with self.datastore.get_connection() as conn:
            if conn not in self._unhurried:
                # Like the SQLite views' synchronous=NORMAL: no wait for the WAL flush of each
                # commit; a server crash may lose the last updates, each with its tracking
                # record, never one alone. Set once per connection (the views' own pool,
                # never the games'), not in every transaction: one round trip fewer each.
                conn.execute("SET synchronous_commit TO OFF")
                self._unhurried.add(conn)
            with conn.transaction():
                yield conn.cursor()

    def _moved(self, c: Any, moved: dict[Any, tuple[int, Any]]) -> None:
        """Each game's newest version and time, in one statement whatever their number."""
        if len(moved) <= 1:
            super()._moved(c, moved)
            return
        ids, versions, times = zip(*((game_id, version, at)
                                     for game_id, (version, at) in moved.items()), strict=True)
        c.execute(self.sql(
            "UPDATE {games} AS g SET version = m.version, updated_at = m.at"
            " FROM unnest(%s::text[], %s::bigint[], %s::text[]) AS m(game_id, version, at)"
            " WHERE g.game_id = m.game_id"), (list(ids), list(versions), list(times)))

    def _forget_statement(self) -> str:
        table = f"{_quoted(self.datastore.schema)}.{_quoted(self.tracking_table_name)}"
        return f"DELETE FROM {table} WHERE application_name = %s"


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'
