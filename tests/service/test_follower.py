"""The one follower of the log (service/store/follower.py): every subscriber gets every notification
after its position, in order, once; a failing or lagging subscriber holds up no other; and no
module but the follower reads the log to learn what changed."""

from __future__ import annotations

import ast
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from domain.core import HOST
from service import Games
from service.store import follower as service_follower
from tests.kit import wait_until
from tests.service.storage.kit import random_command

ROOT = Path(__file__).resolve().parents[2]


class Recorder:
    """A subscriber that keeps what it is handed."""

    def __init__(self, position: int = 0, fail_first: int = 0) -> None:
        self.position = position
        self.ids: list[int] = []
        self.fail_first = fail_first  # how many calls raise before taking anything
        self.calls = 0
        self.lock = threading.Lock()

    def receive(self, notifications) -> None:
        with self.lock:
            self.calls += 1
            if self.calls <= self.fail_first:
                raise RuntimeError("a subscriber that fails")
            self.ids.extend(n.id for n in notifications)
            self.position = notifications[-1].id


def store_some(games: Games, count: int) -> None:
    """`count` games created (each a few notifications) and a command in each."""
    rng = random.Random(count)
    for _ in range(count):
        gid = games.create_game("vampiring", ["a", "b"], seed=rng.randrange(10**6)).game_id
        games.run_command(gid, HOST, random_command(games.game(gid), rng))


@pytest.fixture(params=["sqlite", "memory"])
def games(request, sqlite_env):
    env = sqlite_env if request.param == "sqlite" else {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    made = Games(env=env)
    yield made
    made.close()


def test_each_subscriber_gets_every_notification_after_its_position_in_order(games):
    store_some(games, 3)
    head = games.follower.head()
    # Check a subscriber from 0 gets the whole log, one from the head only what comes later
    whole, later = Recorder(0), Recorder(head)
    games.follower.subscribe(whole)
    games.follower.subscribe(later)
    store_some(games, 2)
    now = games.follower.head()
    wait_until(lambda: whole.position == now and later.position == now, "both caught up")
    assert whole.ids == list(range(1, now + 1))
    assert later.ids == list(range(head + 1, now + 1))


def test_a_subscriber_far_behind_gets_pages_and_holds_up_nobody(games, monkeypatch):
    monkeypatch.setattr(service_follower, "PAGE", 4)
    store_some(games, 4)
    at_head, behind = Recorder(games.follower.head()), Recorder(0)
    games.follower.subscribe(at_head)
    games.follower.subscribe(behind)
    store_some(games, 1)
    now = games.follower.head()
    wait_until(lambda: behind.position == now and at_head.position == now, "both caught up")
    # Check the one behind was handed pages of at most PAGE, in order, nothing twice
    assert behind.ids == list(range(1, now + 1)) and behind.calls >= now // 4
    assert at_head.ids[-1] == now


def test_a_failing_subscriber_is_handed_the_same_again_and_stops_no_other(games, monkeypatch):
    monkeypatch.setattr(service_follower, "RETRY_SECONDS", 0.05)
    start = games.follower.head()
    failing, fine = Recorder(start, fail_first=2), Recorder(start)
    games.follower.subscribe(failing)
    games.follower.subscribe(fine)
    store_some(games, 2)
    now = games.follower.head()
    wait_until(lambda: fine.position == now, "the other subscriber")
    wait_until(lambda: failing.position == now, "the failing one, once it takes them")
    # Check the failing one lost nothing and got nothing twice once it took them
    assert failing.ids == fine.ids == list(range(start + 1, now + 1))
    assert failing.calls >= 3


def test_an_unsubscribed_subscriber_is_called_no_more(games):
    gone = Recorder(games.follower.head())
    unsubscribe = games.follower.subscribe(gone)
    unsubscribe()
    store_some(games, 1)
    stays = Recorder(0)
    games.follower.subscribe(stays)
    wait_until(lambda: stays.position == games.follower.head(), "the other subscriber")
    assert gone.ids == []


@contextmanager
def two_workers(env: dict[str, str]) -> Iterator[tuple[Games, Games, Recorder]]:
    """A reader and a writer on the same store, and a subscriber of the reader's follower."""
    reader, writer = Games(env=env), Games(env=env)
    try:
        heard = Recorder(reader.follower.head())
        reader.follower.subscribe(heard)
        yield reader, writer, heard
    finally:
        reader.close()
        writer.close()


def hears_a_write(writer: Games, heard: Recorder, why: str) -> None:
    """The writer stores some; wait until the subscriber has taken it."""
    store_some(writer, 1)
    now = writer.follower.head()
    wait_until(lambda: heard.position == now, why)


def test_another_applications_writes_reach_the_subscribers(sqlite_env):
    # Check the follower of one worker hears what another worker stored (SQLite: its poll)
    with two_workers(sqlite_env) as (_, writer, heard):
        hears_a_write(writer, heard, "the reader's subscriber")


@pytest.mark.postgres
def test_another_applications_writes_reach_the_subscribers_on_postgres(postgres_env):
    with two_workers(postgres_env) as (reader, writer, heard):
        assert reader.follower.kind == "postgres"
        hears_a_write(writer, heard, "the reader's subscriber (LISTEN)")


def listening_backends(channel: str) -> set[int]:
    """The PostgreSQL backends LISTENing on `channel` (their last statement)."""
    import psycopg

    from tests.conftest import POSTGRES_DSN

    with psycopg.connect(POSTGRES_DSN, autocommit=True) as admin:
        return {pid for (pid,) in admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE query = %s",
            (f'LISTEN "{channel}"',)).fetchall()}


@pytest.mark.postgres
def test_a_follower_whose_listening_connection_drops_listens_again(postgres_env):
    from tests.conftest import terminate_backends

    with two_workers(postgres_env) as (reader, writer, heard):
        channel = reader.recorder.channel_name
        # Both Applications' followers listen on the schema's channel.
        wait_until(lambda: len(listening_backends(channel)) == 2, "both followers to listen")
        before = listening_backends(channel)
        terminate_backends(before)
        # Check each follower listens again on a new connection, and the reader hears a write.
        wait_until(lambda: len(listening_backends(channel) - before) == 2,
                   "both followers to listen again")
        hears_a_write(writer, heard, "the reader's subscriber, listening again")


def is_super(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")


def test_one_follower_per_application_and_no_other_reader_of_the_log():
    # Check the log is read for changes in service/store/follower.py alone.
    readers = []
    for package in ("service", "api", "bots", "replays", "cli"):
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            readers.extend(where for node in ast.walk(ast.parse(path.read_text(), where))
                           if isinstance(node, ast.Attribute)
                           and node.attr == "select_notifications"
                           and where != "service/store/follower.py"
                           and not is_super(node.value))  # a recorder's own, extended
    # Reads of a topic's notifications once, not polling: the bot and clock runners' starts
    # (the bot games and clocked games stored so far; then the follower feeds them), the game
    # log's catch-up (the games that ended since its position, when a change wakes it), and
    # `gruft archive` listing every game once.
    assert sorted(readers) == ["replays/archive.py", "service/audit/gamelog.py",
                               "service/runners/bot_runner.py",
                               "service/runners/clock_runner.py"]


class Blocking(Recorder):
    """A subscriber whose `receive` waits until it is let go (a statement still running)."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = threading.Event()
        self.release = threading.Event()
        self.returned = threading.Event()

    def receive(self, notifications) -> None:
        self.inside.set()
        self.release.wait(60)
        super().receive(notifications)
        self.returned.set()


def test_unsubscribing_waits_for_a_receive_under_way(games):
    # The read models close their views' connection right after unsubscribing: closing an
    # SQLite connection under a running statement crashed the process (seen in CI).
    blocking = Blocking()
    unsubscribe = games.follower.subscribe(blocking)
    store_some(games, 1)
    assert blocking.inside.wait(60), "the follower hands the subscriber what was stored"
    seen = []  # whether receive() had returned when unsubscribe() did
    waiter = threading.Thread(target=lambda: (unsubscribe(), seen.append(
        blocking.returned.is_set())))
    waiter.start()
    waiter.join(0.2)  # a moment for unsubscribe() to return early, were it to
    blocking.release.set()
    waiter.join(60)
    assert seen == [True]


def test_an_application_closed_from_its_followers_thread_closes_its_store_after_the_round(
        games, monkeypatch):
    # An Application let go is collected in whichever thread the collector runs in; in its
    # follower's own thread, between a query's statement and its rows, closing the store there
    # and then crashed the process (SQLite; seen in CI). Its store closes once the thread ends.
    order = []

    class ClosingSubscriber(Recorder):
        def receive(self, notifications) -> None:
            super().receive(notifications)
            games.close()  # what Application.__del__ does when collected in this thread
            order.append("receive returned")

    real_close = games.factory.close
    monkeypatch.setattr(games.factory, "close", lambda: (order.append("store closed"),
                                                         real_close()))
    store_some(games, 1)
    closing = ClosingSubscriber()
    games.follower.subscribe(closing)
    thread = games.follower._thread
    wait_until(lambda: not thread.is_alive(), "the follower's thread to end")
    assert order == ["receive returned", "store closed"]
    assert closing.ids  # the round it closed in was handed over first


def test_a_patient_subscriber_waits_its_patience_unless_hurried(games):
    # The read models are patient (GRUFT_VIEWS_PATIENCE): fewer, larger transactions; a reader
    # waiting for them hurries the follower.
    patient, eager = Recorder(), Recorder()
    patient.patience = 3600.0  # handed once at once, then not again within the test unless hurried
    store_some(games, 1)
    games.follower.subscribe(patient)
    games.follower.subscribe(eager)
    first = games.follower.head()
    wait_until(lambda: patient.position == eager.position == first, "both to take the log")
    store_some(games, 2)
    head = games.follower.head()
    games.follower.nudge()
    wait_until(lambda: eager.position == head, "the eager subscriber to take what is new")
    assert patient.position == first  # in that round too (handed before the eager one), not due
    games.follower.hurry()
    wait_until(lambda: patient.position == head, "the hurried patient subscriber to catch up")
    assert patient.ids == eager.ids  # the same notifications, in order, once


def test_a_patient_subscriber_comes_due_without_a_nudge(storage_env):
    games = Games(env=storage_env)
    try:
        patient = Recorder()
        patient.patience = 0.01
        games.follower.subscribe(patient)
        for _ in range(3):  # nothing nudges: a PostgreSQL follower wakes when it comes due
            store_some(games, 1)
            head = games.follower.head()
            wait_until(lambda h=head: patient.position == h, "the patient subscriber to catch up")
    finally:
        games.close()
