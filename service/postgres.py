"""The games' PostgreSQL recorder: each write is one statement, locked, inserted and committed
by the server without a round trip in between.

Imported only when the games are stored in PostgreSQL (psycopg comes with the ``postgres``
extra); eventsourcing's factory builds it through ``APPLICATION_RECORDER_TOPIC``, which
service.settings sets.

Why. eventsourcing orders the log by taking the events table's EXCLUSIVE lock in each insert's
transaction, so that notification ids are committed in the order they are drawn (a reader
never passes a gap that a slower transaction fills later). Its insert sends BEGIN, the lock,
NOTIFY and the INSERT, waits for their answers, then sends COMMIT: the lock is held over two
round trips and whatever the worker's Python does in between (under load, waiting for the GIL
while other threads run), and every other writer of every worker and server queues behind it.
Here one call of a function the recorder creates (``gruft_insert_events``) does all of it in
the implicit transaction of a single statement: the lock is taken, the rows inserted, and the
transaction committed inside the server, in the time the database itself needs.

It also refuses a gap in a game's versions: the first new event of each aggregate must follow
its last stored one (or be its first). Optimistic concurrency is unchanged: a version already
stored is a unique violation, as before.

``POSTGRES_SYNCHRONOUS_COMMIT`` (docs/deployment.md) says whether a write waits for the disk:
``on`` (default, PostgreSQL's own) or ``off``, the durability of SQLite's default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier, Literal

from service.gaps import GAP_MESSAGE

FUNCTION = "gruft_insert_events"
SYNCHRONOUS_COMMIT = ("on", "off")
GAP_STATE = "23514"  # check_violation: the driver raises it as an integrity error


class GamesRecorder(PostgresApplicationRecorder):
    """eventsourcing's application recorder; `insert_events` is one call of a function."""

    synchronous_commit = "on"

    def __init__(self, datastore: PostgresDatastore, *,
                 events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        # The NOTIFY channel of this schema's table alone: eventsourcing names it by the table,
        # so installations sharing a database (POSTGRES_SCHEMA) would wake each other's
        # followers on every write.
        self.channel_name = channel_name(datastore.schema, self.events_table_name)
        schema, table = Identifier(datastore.schema), Identifier(self.events_table_name)
        kind = SQL(datastore.originator_id_type)
        self.sql_create_statements.append(SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}("
            " ids {kind}[], versions bigint[], topics text[], states bytea[], durable text)"
            " RETURNS SETOF bigint LANGUAGE plpgsql AS $body$"
            " DECLARE gap record;"
            " BEGIN"
            "  PERFORM set_config('synchronous_commit', durable, true);"
            "  SET LOCAL lock_timeout = {lock_timeout};"
            "  LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE;"
            # The first new event of each aggregate follows its last stored one (or is its
            # first): a game's versions never skip.
            "  SELECT n.id, n.version INTO gap"
            "   FROM (SELECT u.id, min(u.version) AS version"
            "         FROM unnest(ids, versions) AS u(id, version) GROUP BY u.id) AS n"
            "   WHERE n.version > 1 AND NOT EXISTS (SELECT 1 FROM {schema}.{table} AS e"
            "    WHERE e.originator_id = n.id AND e.originator_version = n.version - 1)"
            "   LIMIT 1;"
            "  IF FOUND THEN"
            "   RAISE EXCEPTION 'version % of % {gap_message}',"
            "    gap.version, gap.id USING ERRCODE = {gap_state};"
            "  END IF;"
            "  NOTIFY {channel};"
            "  RETURN QUERY INSERT INTO {schema}.{table}"
            "   (originator_id, originator_version, topic, state)"
            "   SELECT * FROM unnest(ids, versions, topics, states)"
            "   RETURNING notification_id;"
            " END $body$").format(
                schema=schema, table=table, function=Identifier(FUNCTION), kind=kind,
                lock_timeout=Literal(f"{datastore.lock_timeout}s"),
                channel=Identifier(self.channel_name), gap_state=Literal(GAP_STATE),
                gap_message=SQL(GAP_MESSAGE)))
        self.insert_statement = SQL("SELECT * FROM {schema}.{function}(%s::{kind}[], %s::bigint[], %s::text[],"
                                    " %s::bytea[], %s)"
                                    ).format(schema=schema, function=Identifier(FUNCTION), kind=kind)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any
                      ) -> Sequence[int] | None:
        """Store the events in one statement (its own transaction); their notification ids."""
        if not stored_events:
            return []
        columns = ([e.originator_id for e in stored_events],
                   [e.originator_version for e in stored_events],
                   [e.topic for e in stored_events], [e.state for e in stored_events],
                   self.synchronous_commit)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.insert_statement, columns, prepare=True)
            return [row[FUNCTION] for row in curs.fetchall()]


def channel_name(schema: str, table: str) -> str:
    """The NOTIFY channel of `table` in `schema` (at most 63 bytes: PostgreSQL's identifiers)."""
    name = f"{schema}_{table}" if schema else table
    if len(name.encode()) <= 63:
        return name
    import hashlib

    return f"gruft_{hashlib.sha256(name.encode()).hexdigest()[:32]}"
