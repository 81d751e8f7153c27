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
the implicit transaction of a single statement: the lock is taken, the rows inserted, the
NOTIFY that wakes the log followers queued, and the transaction committed inside the server,
in the time the database itself needs.

The NOTIFY is delivered at the commit, so another worker's follower hears of a write before
its writer has answered; its payload names each game written and its newest version, so the
next command, whichever worker takes it, knows whether that worker's copy of the game is
current without reading the log (service/store/freshness.py, `heard_in` below). PostgreSQL commits
notifying transactions one at a time in the whole cluster; those of one installation are one at
a time already (the table's lock), so this costs nothing more unless several installations
share one PostgreSQL (docs/deployment.md).

It also refuses a gap in a game's versions: the first new event of each aggregate must follow
its last stored one (or be its first). Optimistic concurrency is unchanged: a version already
stored is a unique violation, as before — found before the lock is taken, so a lost race or a
worker's stale copy (service/store/freshness.py) never waits for other writers to be refused.

``POSTGRES_SYNCHRONOUS_COMMIT`` (docs/deployment.md) says whether a write waits for the disk:
``on`` (default, PostgreSQL's own) or ``off``, the durability of SQLite's default.
"""

from __future__ import annotations

import hashlib
import select
import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.persistence import (
    InterfaceError,
    Notification,
    OperationalError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.errors import error_from_result
from psycopg.pq import ConnStatus, DiagnosticField, ExecStatus
from psycopg.sql import SQL, Identifier, Literal

from service.store.gaps import GAP_MESSAGE

FUNCTION = "gruft_insert_events"
UNPREPARED = b"26000"  # invalid_sql_statement_name: a statement dropped (DEALLOCATE ALL)
PREPARED_ALREADY = b"42P05"  # duplicate_prepared_statement
SYNCHRONOUS_COMMIT = ("on", "off")
GAP_STATE = "23514"  # check_violation: the driver raises it as an integrity error
HEARD_BYTES = 7900  # the longest NOTIFY payload a write sends (PostgreSQL takes under 8000)


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
            " DECLARE game record; last bigint; heard text := '';"
            " BEGIN"
            # Before the lock (as little as possible is done holding it), one probe of the
            # index per game: its first new event must follow its last stored one (or be its
            # first). A game's stored versions are 1 to its last, without a gap (this check
            # keeps them so, and stored rows never go), so a version already stored is one
            # this probe finds too: a lost race, or a worker's stale copy
            # (service/store/freshness.py), refused here without waiting for the lock, as the
            # unique key would refuse it after.
            "  FOR game IN SELECT u.id, min(u.version) AS first, max(u.version) AS newest"
            "   FROM unnest(ids, versions) AS u(id, version) GROUP BY u.id LOOP"
            "   SELECT e.originator_version INTO last FROM {schema}.{table} AS e"
            "    WHERE e.originator_id = game.id"
            "    ORDER BY e.originator_version DESC LIMIT 1;"
            "   IF coalesce(last, 0) >= game.first THEN"
            "    RAISE EXCEPTION 'a version is already stored' USING ERRCODE = 'unique_violation';"
            "   END IF;"
            "   IF coalesce(last, 0) < game.first - 1 THEN"
            "    RAISE EXCEPTION 'version % of % {gap_message}',"
            "     game.first, game.id USING ERRCODE = {gap_state};"
            "   END IF;"
            "   heard := heard || game.id || ':' || game.newest || ' ';"
            "  END LOOP;"
            "  IF durable <> 'on' THEN"
            "   PERFORM set_config('synchronous_commit', durable, true);"
            "  END IF;"
            "{lock_timeout}"
            # eventsourcing's ordering of the log: one inserting transaction at a time, from
            # its first id drawn to its commit, so ids are committed in the order drawn.
            "  LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE;"
            # delivered at the commit, to this schema's followers alone; it says each game's
            # newest version (service/store/freshness.py), or nothing when that would not fit
            # (a NOTIFY's payload is under 8000 bytes): the followers then read the log at once
            "  IF octet_length(heard) > {heard_bytes} THEN heard := ''; END IF;"
            "  PERFORM pg_notify({channel}, rtrim(heard));"
            "  RETURN QUERY INSERT INTO {schema}.{table}"
            "   (originator_id, originator_version, topic, state)"
            "   SELECT * FROM unnest(ids, versions, topics, states)"
            "   RETURNING notification_id;"
            " END $body$").format(
                schema=schema, table=table, function=Identifier(FUNCTION), kind=kind,
                lock_timeout=SQL("  SET LOCAL lock_timeout = {0};").format(
                    Literal(f"{datastore.lock_timeout}s")) if datastore.lock_timeout else SQL(""),
                gap_state=Literal(GAP_STATE),
                channel=Literal(self.channel_name), heard_bytes=Literal(HEARD_BYTES),
                gap_message=SQL(GAP_MESSAGE)))
        # The statements of every command and every follower's round, composed once, prepared
        # once per connection and run by libpq itself: psycopg's cursor composed, converted
        # and adapted again at each execute (sampled, docs/performance.md).
        self.notifications_after = SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state"
            " FROM {schema}.{table} WHERE notification_id > $1"
            " ORDER BY notification_id LIMIT $2").format(schema=schema, table=table).as_bytes()
        self.insert_statement = SQL(
            "SELECT * FROM {schema}.{function}($1::{kind}[], $2::bigint[], $3::text[],"
            " $4::bytea[], $5)").format(schema=schema, function=Identifier(FUNCTION),
                                        kind=kind).as_bytes()
        self._events_of = SQL(
            "SELECT originator_id, originator_version, topic, state FROM {schema}.{table}"
            " WHERE originator_id = $1").format(schema=schema, table=table).as_bytes()
        self._uuids = datastore.originator_id_type == "uuid"
        self._prepared: weakref.WeakKeyDictionary[Any, set[bytes]] = (
            weakref.WeakKeyDictionary())  # connection -> the names prepared on it
        self._lock = threading.Lock()

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any
                      ) -> Sequence[int] | None:
        """Store the events in one statement (its own transaction); their notification ids."""
        if not stored_events:
            return []
        # The columns as array literals (text the statement casts): psycopg's list adapter
        # inspected every list's items at each execute to choose their types.
        columns = [array_literal(quoted(str(e.originator_id)) for e in stored_events).encode(),
                   array_literal(str(e.originator_version) for e in stored_events).encode(),
                   array_literal(quoted(e.topic) for e in stored_events).encode(),
                   array_literal(f'"\\\\x{e.state.hex()}"' for e in stored_events).encode(),
                   self.synchronous_commit.encode()]
        with self.datastore.get_connection() as conn:
            result = self._run(conn, self.insert_statement, columns)
            return [int(result.get_value(row, 0)) for row in range(result.ntuples)]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(self, originator_id: Any, *, gt: int | None = None,
                      lte: int | None = None, desc: bool = False, limit: int | None = None
                      ) -> Sequence[StoredEvent]:
        """eventsourcing's, through statements prepared once (one for each combination of
        bounds asked): a command on a copy another worker's write made stale reads the newer
        events with it."""
        statement = self._events_of
        if gt is not None:
            statement += b" AND originator_version > $2"
        if lte is not None:
            statement += b" AND originator_version <= $%d" % (2 + (gt is not None))
        statement += b" ORDER BY originator_version DESC" if desc else (
            b" ORDER BY originator_version ASC")
        if limit is not None:
            statement += b" LIMIT $%d" % (2 + (gt is not None) + (lte is not None))
        params = [str(value).encode() for value in (originator_id, gt, lte, limit)
                  if value is not None]
        with self.datastore.get_connection() as conn:
            result = self._run(conn, statement, params, binary=True)
        return [StoredEvent(originator_id=self._id(result.get_value(row, 0)),
                            originator_version=integer(result.get_value(row, 1)),
                            topic=result.get_value(row, 2).decode(),
                            state=result.get_value(row, 3)) for row in range(result.ntuples)]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_notifications(self, start: int | None, limit: int, stop: int | None = None,
                             topics: Sequence[str] = (), *, inclusive_of_start: bool = True
                             ) -> Sequence[Notification]:
        """eventsourcing's, with the log followers' question (what came after a position)
        through a statement prepared once: the followers of every worker ask it after each
        commit."""
        if start is None or inclusive_of_start or stop is not None or topics:
            return super().select_notifications(start, limit, stop, topics,
                                                inclusive_of_start=inclusive_of_start)
        with self.datastore.get_connection() as conn:
            result = self._run(conn, self.notifications_after,
                               [str(start).encode(), str(limit).encode()], binary=True)
        return [Notification(id=integer(result.get_value(row, 0)),
                             originator_id=self._id(result.get_value(row, 1)),
                             originator_version=integer(result.get_value(row, 2)),
                             topic=result.get_value(row, 3).decode(),
                             state=result.get_value(row, 4)) for row in range(result.ntuples)]

    def _id(self, value: bytes) -> Any:
        """An originator id from its binary form."""
        return UUID(bytes=value) if self._uuids else value.decode()

    def _run(self, conn: Any, statement: bytes, params: list[bytes], binary: bool = False
             ) -> Any:
        """`statement` run on `conn` by libpq, prepared on the connection first if it is not
        yet; its result, its rows in binary when `binary`. A failure raises psycopg's error.

        psycopg prepares statements of its own on the same connections, and drops all of them
        (DEALLOCATE ALL) after a ROLLBACK there: a statement dropped is prepared again, and one
        found prepared already (by another recorder on the pool) is used. Its name is its
        text's hash, so a name always means the same statement."""
        name = statement_name(statement)
        result = self._exec(conn, name, statement, params, binary)
        if result.status == ExecStatus.FATAL_ERROR and (
                result.error_field(DiagnosticField.SQLSTATE) == UNPREPARED):
            with self._lock:
                self._prepared.pop(conn, None)
            result = self._exec(conn, name, statement, params, binary)
        if result.status not in (ExecStatus.TUPLES_OK, ExecStatus.COMMAND_OK):
            raise failure(conn, result)
        return result

    def _exec(self, conn: Any, name: bytes, statement: bytes, params: list[bytes],
              binary: bool) -> Any:
        with self._lock:  # one thread per connection, several on the mapping
            names = self._prepared.setdefault(conn, set())
        if name not in names:
            prepared = conn.pgconn.prepare(name, statement)
            if prepared.status != ExecStatus.COMMAND_OK and (
                    prepared.error_field(DiagnosticField.SQLSTATE) != PREPARED_ALREADY):
                raise failure(conn, prepared)
            names.add(name)
        return conn.pgconn.exec_prepared(name, params, result_format=1 if binary else 0)


def statement_name(statement: bytes) -> bytes:
    """The name `statement` is prepared under: `gruft_` and a hash of its text."""
    return b"gruft_" + hashlib.blake2b(statement, digest_size=10).hexdigest().encode()


def integer(value: bytes) -> int:
    """A bigint from its binary form."""
    return int.from_bytes(value, "big", signed=True)


def heard_in(payload: str) -> list[tuple[str, int]] | None:
    """The games and newest versions a write's notice says (`id:version`, space separated, as
    the write function builds it), or None when it says nothing (or nothing this reads)."""
    if not payload:
        return None
    try:
        return [(game_id, int(version)) for game_id, _, version in
                (item.rpartition(":") for item in payload.split(" "))]
    except ValueError:
        return None


def failure(conn: Any, result: Any) -> Exception:
    """The error psycopg would raise for a failed `result` on `conn`: the class its SQLSTATE
    names, or OperationalError when the connection is gone (no SQLSTATE then)."""
    if conn.pgconn.status == ConnStatus.BAD:
        return psycopg.OperationalError(
            (result.error_message or conn.pgconn.error_message).decode(errors="replace"))
    return error_from_result(result, encoding=conn.info.encoding)


def notices(conn: Any, timeout: float) -> list[str]:
    """The payloads of the notices that have reached `conn` (LISTENing, and running nothing
    else), waiting up to `timeout` seconds for the first: all that arrived, in one go.

    libpq's own calls rather than psycopg's `notifies()`, which sets up a wait for each notice:
    under load every worker hears every write, and that set-up was most of a follower's time
    (docs/performance.md). A connection gone raises (psycopg.OperationalError)."""
    pgconn = conn.pgconn
    said = drained(pgconn)
    if not said and select.select([pgconn.socket], [], [], timeout)[0]:
        pgconn.consume_input()
        said = drained(pgconn)
    return said


def drained(pgconn: Any) -> list[str]:
    """The payloads of the notices libpq has read and not yet handed over."""
    said = []
    while (notice := pgconn.notifies()) is not None:
        said.append(notice.extra.decode())
    return said


def array_literal(items: Iterable[str]) -> str:
    """PostgreSQL's text form of an array of `items` (each already in its text form, quoted
    where it must be)."""
    return "{" + ",".join(items) + "}"


def quoted(text: str) -> str:
    """`text` as a quoted item of an array literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def channel_name(schema: str, table: str) -> str:
    """The NOTIFY channel of `table` in `schema` (at most 63 bytes: PostgreSQL's identifiers)."""
    name = f"{schema}_{table}" if schema else table
    if len(name.encode()) <= 63:
        return name
    return f"gruft_{hashlib.sha256(name.encode()).hexdigest()[:32]}"
