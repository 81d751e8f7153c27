"""The read models in PostgreSQL: imported only when the views are configured there.

psycopg comes with the ``postgres`` extra (``pip install '.[postgres]'``); a plain install
serves on SQLite, and nothing imports this module unless the views' factory is PostgreSQL's
(service.readmodels.projection.open_view).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eventsourcing.postgres import PostgresTrackingRecorder

from service.ddl import retry_concurrent_ddl
from service.readmodels.views import TABLES, ReadModelView


class PostgresReadModelView(ReadModelView, PostgresTrackingRecorder):
    """The read models in PostgreSQL, in the games' database and schema."""

    def _names(self) -> dict[str, str]:
        schema = _quoted(self.datastore.schema)
        return {key: f"{schema}.{_quoted(table)}" for key, table in TABLES.items()}

    def create_table(self) -> None:
        retry_concurrent_ddl(super().create_table)
        self.create_view_tables()

    @contextmanager
    def _transaction(self, *, commit: bool) -> Iterator[Any]:
        if not commit:
            with self.datastore.transaction(commit=False) as cursor:
                yield cursor
            return
        with self.datastore.get_connection() as conn, conn.transaction():
            cursor = conn.cursor()
            # Like the SQLite views' synchronous=NORMAL: no wait for the WAL flush of each commit; a server
            # crash may lose the last updates, each with its tracking record, never one alone.
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
            yield cursor

    def _forget_statement(self) -> str:
        table = f"{_quoted(self.datastore.schema)}.{_quoted(self.tracking_table_name)}"
        return f"DELETE FROM {table} WHERE application_name = %s"


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'
