"""The games' PostgreSQL writes (service/store/postgres.py): one statement that locks, inserts and
commits in the server; the log stays in commit order; a skipped version is refused; the
NOTIFY channel is the schema's own; POSTGRES_SYNCHRONOUS_COMMIT is read and checked."""

from __future__ import annotations

import threading
from uuid import uuid4

import pytest

from domain.core import HOST
from service import Games
from service.settings import Settings, SettingsError, storage_env
from tests.conftest import (
    POSTGRES_DSN,
    postgres_schema,
    postgres_settings,
    terminate_backends,
)

pytest.importorskip("psycopg")


@pytest.fixture
def games(postgres_env) -> Games:
    app = Games(env=postgres_env)
    yield app
    app.close()


def statements_of(recorder, action) -> list[str]:
    """The statements `action` sends from this thread (the follower's thread sends its own
    meanwhile): through psycopg's cursors, and through libpq itself (service/store/postgres.py)."""
    import psycopg

    sent: list[str] = []
    original, run = psycopg.Cursor.execute, recorder._run
    caller = threading.current_thread()

    def execute(self, query, params=None, **kwargs):
        if threading.current_thread() is caller:
            sent.append(query.as_string(self.connection) if hasattr(query, "as_string")
                        else str(query))
        return original(self, query, params, **kwargs)

    def run_through_libpq(conn, statement, params, binary=False):
        if threading.current_thread() is caller:
            sent.append(statement.decode())
        return run(conn, statement, params, binary)

    psycopg.Cursor.execute, recorder._run = execute, run_through_libpq
    try:
        action()
    finally:
        psycopg.Cursor.execute = original
        del recorder._run
    return sent


def stored_event(recorder, originator_id, version: int):
    from eventsourcing.persistence import StoredEvent

    return StoredEvent(originator_id=originator_id, originator_version=version,
                       topic="tests:Thing", state=b"{}")


def test_a_write_is_one_statement_that_takes_the_lock(games):
    recorder = games.recorder
    gid = uuid4()
    sent = statements_of(recorder, lambda: recorder.insert_events(
        [stored_event(recorder, gid, 1), stored_event(recorder, gid, 2)]))
    assert len(sent) == 1 and "gruft_insert_events" in sent[0]
    # ... and the function it calls takes eventsourcing's lock before inserting
    with recorder.datastore.get_connection() as conn:
        body = conn.execute("SELECT prosrc FROM pg_proc WHERE proname = 'gruft_insert_events'"
                            " AND pronamespace = %s::regnamespace",
                            (recorder.datastore.schema,)).fetchone()["prosrc"]
    assert body.index("IN EXCLUSIVE MODE") < body.index("INSERT INTO")
    assert [n.originator_version for n in recorder.select_notifications(1, 10)] == [1, 2]


def test_a_command_writes_through_the_function(games):
    new = games.create_game("vampiring", ["Ann", "Ben"], seed=3)
    game = games.game(new.game_id)
    move = game.legal_moves("Ann")[0]
    sent = statements_of(games.recorder, lambda: games.command(
        new.game_id, HOST, {**move, "player": "Ann"}))
    writes = [s for s in sent if "INSERT" in s.upper() or "gruft_insert_events" in s]
    assert len(writes) == 1 and "gruft_insert_events" in writes[0]
    assert not any("LOCK TABLE" in s for s in sent)  # no lock taken from the client's side


def test_a_statement_is_prepared_again_on_a_connection_that_dropped_it(postgres_env):
    # One connection in the pool: the write's statement is prepared on it, then dropped there
    # (as DISCARD ALL or a connection pooler's reset drops it).
    games = Games(env={**postgres_env, "POSTGRES_POOL_SIZE": "1", "POSTGRES_MAX_OVERFLOW": "0"})
    try:
        recorder, gid = games.recorder, uuid4()
        recorder.insert_events([stored_event(recorder, gid, 1)])
        with recorder.datastore.get_connection() as conn:
            conn.execute("DEALLOCATE ALL")
        # Check the next write is stored all the same.
        assert len(recorder.insert_events([stored_event(recorder, gid, 2)])) == 1
        assert [e.originator_version for e in recorder.select_events(gid)] == [1, 2]
        # ... and a statement prepared there by someone else (another recorder on the pool)
        # under its name is used.
        from service.store.postgres import statement_name

        recorder._prepared.clear()
        with recorder.datastore.get_connection() as conn:
            conn.pgconn.prepare(statement_name(recorder.insert_statement),
                                recorder.insert_statement)
        assert len(recorder.insert_events([stored_event(recorder, gid, 3)])) == 1
        assert [e.originator_version for e in recorder.select_events(gid)] == [1, 2, 3]
    finally:
        games.close()


def test_reads_through_prepared_statements_answer_as_eventsourcing_s_own(games):
    import itertools

    from eventsourcing.postgres import PostgresApplicationRecorder

    recorder, gid, other = games.recorder, uuid4(), uuid4()
    recorder.insert_events([stored_event(recorder, gid, v) for v in range(1, 7)])
    recorder.insert_events([stored_event(recorder, other, 1)])
    # Check every combination of bounds a read may ask (each its own statement) reads the
    # same events as eventsourcing's own statement, on a pool of connections.
    for gt, lte, desc, limit in itertools.product((None, 0, 2), (None, 5, 1), (False, True),
                                                  (None, 2)):
        asked = {"gt": gt, "lte": lte, "desc": desc, "limit": limit}
        for _ in range(2):  # prepared, then run again
            assert recorder.select_events(gid, **asked) == (
                PostgresApplicationRecorder.select_events(recorder, gid, **asked)), asked
    head = recorder.max_notification_id()
    for start in (0, 1, head - 1, head):
        mine = recorder.select_notifications(start, 4, inclusive_of_start=False)
        theirs = PostgresApplicationRecorder.select_notifications(
            recorder, start, 4, inclusive_of_start=False)
        assert [vars(n) for n in mine] == [vars(n) for n in theirs] and len(mine) == min(
            4, head - start)


def test_a_skipped_version_is_refused_and_nothing_is_written(games):
    from eventsourcing.persistence import IntegrityError

    from service.store.gaps import GAP_MESSAGE, is_gap

    recorder, gid = games.recorder, uuid4()
    recorder.insert_events([stored_event(recorder, gid, 1)])
    other = uuid4()
    with pytest.raises(IntegrityError, match=GAP_MESSAGE) as refused:
        # one aggregate follows on, the other skips version 2: the whole write is refused
        recorder.insert_events([stored_event(recorder, other, 1), stored_event(recorder, gid, 3)])
    assert is_gap(refused.value)
    assert [e.originator_version for e in recorder.select_events(gid)] == [1]
    assert recorder.select_events(other) == []


def test_a_version_stored_twice_is_still_a_lost_race(games):
    from eventsourcing.persistence import IntegrityError

    from service.store.gaps import is_gap

    recorder, gid = games.recorder, uuid4()
    recorder.insert_events([stored_event(recorder, gid, 1)])
    with pytest.raises(IntegrityError, match="a version is already stored") as refused:
        recorder.insert_events([stored_event(recorder, gid, 1)])
    assert not is_gap(refused.value)


def test_a_worker_ahead_of_the_store_forgets_its_copy_and_runs_the_command_again(games):
    new = games.create_game("vampiring", ["Ann", "Ben"], seed=5)
    game = games.game(new.game_id)
    ahead = games.repository.game(new.game_id, for_update=True)
    ahead.execute("Ann", ahead.legal_moves("Ann")[0])  # a version the store never kept
    ahead.collect_events()
    games.repository.offer(ahead.id, ahead)
    move = game.legal_moves("Ben")[0]
    outcome = games.command(new.game_id, HOST, {**move, "player": "Ben"})
    assert outcome.version == game.version + 1  # on the stored game, not the phantom
    stored = [e.originator_version for e in games.recorder.select_events(game.id)]
    assert stored == list(range(1, game.version + 2))


def test_concurrent_writers_are_logged_in_commit_order(games):
    """Threads write at once; a reader tailing the log by id, as the followers do, never passes
    an id that a slower transaction fills later: it ends with every event, none skipped."""
    recorder = games.recorder
    writers, writes = 6, 25
    seen: list[int] = []
    done = threading.Event()

    def tail() -> None:
        position = 0
        while True:
            finished = done.is_set()
            notes = recorder.select_notifications(position, 500, inclusive_of_start=False)
            seen.extend(n.id for n in notes)
            if notes:
                position = notes[-1].id
            elif finished:
                return

    def write() -> None:
        gid = uuid4()
        for version in range(1, writes + 1):
            recorder.insert_events([stored_event(recorder, gid, version)])

    reader = threading.Thread(target=tail)
    reader.start()
    threads = [threading.Thread(target=write) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    reader.join()
    stored = [n.id for n in recorder.select_notifications(1, 10_000)]
    assert len(stored) == writers * writes
    assert seen == stored  # every id, in order, none passed over


def test_each_schema_notifies_on_its_own_channel(tmp_path):
    from service.store.follower import listening_connection

    schemas = [postgres_schema(), postgres_schema()]
    made = []
    try:
        for schema in (next(schemas[0]), next(schemas[1])):
            made.append(Games(env=postgres_settings(schema, str(tmp_path / schema))))
        first, second = made
        assert first.recorder.channel_name != second.recorder.channel_name
        with listening_connection(first.recorder) as conn:
            first.create_game("vampiring", ["Ann", "Ben"], seed=1)
            notices = list(conn.notifies(timeout=30, stop_after=1))
        assert [n.channel for n in notices] == [first.recorder.channel_name]
    finally:
        for app in made:
            app.close()
        for schema in schemas:
            next(schema, None)  # drops it


def test_a_follower_takes_every_notice_that_arrived_in_one_go(games):
    from service.store.follower import listening_connection
    from service.store.postgres import heard_in, notices

    with listening_connection(games.recorder) as conn:
        # Check nothing heard is nothing, once the wait is over.
        assert notices(conn, 0.01) == []
        created = [games.create_game("vampiring", ["Ann", "Ben"], seed=n).game_id
                   for n in range(3)]
        # Check all three writes' notices, in their order, each naming its game.
        said: list[str] = []
        while len(said) < 3:
            said += notices(conn, 30)
        assert [str(g) in dict(heard_in(payload)) for payload, g in zip(said, created,
                                                                        strict=True)] == [True] * 3
        assert notices(conn, 0.01) == []
        # Check a connection gone raises rather than hearing nothing for ever (libpq reads the
        # server's farewell first, and fails at the next look).
        import psycopg

        terminate_backends([conn.info.backend_pid])
        with pytest.raises(psycopg.OperationalError,
                           match="server closed the connection|terminating connection"):
            for _ in range(3):
                assert notices(conn, 30) == []


@pytest.mark.parametrize("value", ["on", "off"])
def test_both_durabilities_store_and_replay_a_game(postgres_env, value):
    app = Games(env={**postgres_env, "POSTGRES_SYNCHRONOUS_COMMIT": value})
    try:
        assert app.recorder.synchronous_commit == value
        new = app.create_game("vampiring", ["Ann", "Ben"], seed=2)
        game = app.game(new.game_id)
        app.command(new.game_id, HOST, {**game.legal_moves("Ann")[0], "player": "Ann"})
    finally:
        app.close()
    again = Games(env={**postgres_env, "AGGREGATE_CACHE_MAXSIZE": ""})
    try:
        assert again.game(new.game_id).version == game.version + 1
    finally:
        again.close()


def test_synchronous_commit_is_on_or_off():
    assert Settings.read({}).postgres_synchronous_commit == "on"
    assert Settings.read({"POSTGRES_SYNCHRONOUS_COMMIT": " off "}
                         ).postgres_synchronous_commit == "off"
    with pytest.raises(SettingsError, match="POSTGRES_SYNCHRONOUS_COMMIT='local' cannot work"):
        storage_env({"POSTGRES_SYNCHRONOUS_COMMIT": "local"})


def test_postgres_stores_get_gruft_s_recorder():
    env = storage_env({"PERSISTENCE_MODULE": "eventsourcing.postgres"})
    assert env["APPLICATION_RECORDER_TOPIC"] == "service.store.postgres:GamesRecorder"
    assert "APPLICATION_RECORDER_TOPIC" not in storage_env({"SQLITE_DBNAME": ":memory:"})


def test_a_version_already_stored_is_refused_without_waiting_for_the_lock(games):
    import psycopg
    from eventsourcing.persistence import IntegrityError


    recorder, gid = games.recorder, uuid4()
    recorder.insert_events([stored_event(recorder, gid, 1)])
    outcome: list[object] = []

    def stale_write() -> None:
        try:
            recorder.insert_events([stored_event(recorder, gid, 1)])
        except IntegrityError as exc:
            outcome.append(exc)

    table = f'"{recorder.datastore.schema}"."{recorder.events_table_name}"'
    with psycopg.connect(POSTGRES_DSN) as holder:  # another writer holds the lock meanwhile
        holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        writer = threading.Thread(target=stale_write)
        writer.start()
        writer.join(60)
        refused_while_held = not writer.is_alive()
        holder.rollback()
    writer.join()
    assert refused_while_held and len(outcome) == 1


def test_topics_and_states_with_an_array_literals_own_characters_come_back_as_stored(games):
    # The write sends each column as an array literal (service/store/postgres.py): quotes,
    # backslashes, commas, braces, blanks and any byte must survive it.
    from eventsourcing.persistence import StoredEvent

    gid = uuid4()
    odd = ['tests:Th"ing', "tests:a\\b", "tests:{x,y}", "tests: NULL ", "tests:"]
    states = [b"", b"\x00\\\"{},", bytes(range(256)), b"NULL", '{"é": 1}'.encode()]
    events = [StoredEvent(originator_id=gid, originator_version=v + 1, topic=topic, state=state)
              for v, (topic, state) in enumerate(zip(odd, states, strict=True))]
    ids = games.recorder.insert_events(events)
    assert len(ids) == len(events)
    back = games.recorder.select_events(gid)
    assert [(e.originator_version, e.topic, e.state) for e in back] == [
        (e.originator_version, e.topic, e.state) for e in events]
    notes = games.recorder.select_notifications(start=ids[0] - 1, limit=10,
                                                inclusive_of_start=False)
    assert [(n.id, n.topic, n.state) for n in notes] == [
        (i, e.topic, e.state) for i, e in zip(ids, events, strict=True)]
