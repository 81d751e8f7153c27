"""service.live.watches: waiters and listeners learn of every stored change, from this Application and
from others on the same store (another worker's on SQLite, another server's on PostgreSQL)."""

from __future__ import annotations

import random
import threading
import uuid

import pytest

from domain.core import HOST
from service import Games
from service.live.watches import Live
from service.store import follower as service_follower
from service.store.follower import Follower
from tests.service.storage.kit import new_game, random_command

WAIT = 20.0  # seconds a test waits for a wake that must come; it returns as soon as it does


class Recorded:
    """A listener that keeps what it was told, and can wait for a version of a game."""

    def __init__(self) -> None:
        self.calls: list[tuple[uuid.UUID, int]] = []
        self.cond = threading.Condition()

    def __call__(self, game_id: uuid.UUID, version: int) -> None:
        with self.cond:
            self.calls.append((game_id, version))
            self.cond.notify_all()

    def wait_for(self, game_id: uuid.UUID, version: int) -> bool:
        with self.cond:
            return self.cond.wait_for(
                lambda: any(g == game_id and v >= version for g, v in self.calls), WAIT)


def test_a_watch_wakes_on_a_newer_version_only():
    live = Live(Follower(None))
    game = uuid.uuid4()
    with live.watch(game) as watch:
        assert watch.wait(0, 0.01) is False  # nothing announced: times out
        live.announce([(game, 3)])
        assert watch.wait(2, 0.01) is True
        assert watch.wait(3, 0.01) is False  # 3 is known to the waiter: no news
        live.announce([(uuid.uuid4(), 9)])  # another game wakes nobody here
        assert watch.wait(3, 0.01) is False


def test_a_waiter_in_another_thread_is_woken():
    live = Live(Follower(None))
    game, woke = uuid.uuid4(), []
    with live.watch(game) as watch:
        waiter = threading.Thread(target=lambda: woke.append(watch.wait(5, WAIT)))
        waiter.start()
        live.announce([(game, 6)])
        waiter.join(WAIT)
    assert woke == [True]


def test_listeners_hear_each_new_version_once_until_unsubscribed():
    live, heard = Live(Follower(None)), Recorded()
    game = uuid.uuid4()
    stop = live.subscribe(heard)
    live.announce([(game, 2)])
    live.announce([(game, 2)])  # the same change again (saved here, then read from the log)
    live.announce([(game, 1)])  # an older one
    live.announce([(game, 4)])
    stop()
    live.announce([(game, 5)])
    assert heard.calls == [(game, 2), (game, 4)]


def test_a_failing_listener_does_not_stop_the_others():
    live, heard = Live(Follower(None)), Recorded()

    def broken(game_id, version):
        raise RuntimeError("boom")

    live.subscribe(broken)
    live.subscribe(heard)
    game = uuid.uuid4()
    live.announce([(game, 1)])
    assert heard.calls == [(game, 1)]


def test_a_closed_watch_forgets_its_game():
    live = Live(Follower(None))
    game = uuid.uuid4()
    with live.watch(game), live.watch(game):
        assert game in live._slots
    assert game not in live._slots


def test_a_save_here_wakes_a_watch_at_once(sqlite_env):
    games = Games(env=sqlite_env)
    try:
        gid = new_game(games, "vampir")
        version = games.game(gid).version
        heard = Recorded()
        games.live.subscribe(heard)
        with games.live.watch(gid) as watch:
            command = random_command(games.game(gid), random.Random(1))
            games.run_command(gid, HOST, command)
            assert watch.wait(version, WAIT)
        assert heard.calls[-1] == (gid, games.game(gid).version)
    finally:
        games.close()


def wakes_across_applications(env: dict[str, str]) -> None:
    """A command stored through one Application wakes a watch and a listener of another."""
    writer, reader = Games(env=env), Games(env=env)
    try:
        gid = new_game(writer, "vampir")
        reader.game(gid)
        heard = Recorded()
        reader.live.subscribe(heard)
        with reader.live.watch(gid) as watch:
            version = reader.game(gid).version
            writer.run_command(gid, HOST, random_command(writer.game(gid), random.Random(2)))
            stored = writer.game(gid).version
            # Check the reader's watcher learnt of it from the store (not from the writer).
            assert watch.wait(version, WAIT), "the other Application's command woke nobody"
        assert heard.wait_for(gid, stored)
        assert reader.game(gid).version == stored
        # Check token hashes (another aggregate) are no game change.
        assert {g for g, _ in heard.calls} == {gid}
    finally:
        writer.close()
        reader.close()


def test_a_command_through_another_application_wakes_on_sqlite(sqlite_env):
    wakes_across_applications(sqlite_env)


@pytest.mark.postgres
def test_a_command_through_another_application_wakes_on_postgres(postgres_env):
    wakes_across_applications(postgres_env)


def test_the_follower_stops_with_its_application(sqlite_env):
    games = Games(env=sqlite_env)
    with games.live.watch(uuid.uuid4()):
        thread = games.follower._thread
        assert thread is not None and thread.is_alive()
    games.close()
    assert not thread.is_alive()


def test_an_in_memory_store_needs_no_feed_from_the_log():
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    with games.live.watch(uuid.uuid4()):
        assert games.live._feed is None  # its own announcements are every change
    games.close()


def test_the_streams_share_of_the_log_is_the_log(sqlite_env):
    """Delivery.stored_between (the events all streams of a worker share) answers exactly what
    the store holds, for any range, whether the tail holds it, part of it, or none of it."""
    from service.live import delivery as service_delivery

    games = Games(env=sqlite_env)
    try:
        gid = new_game(games, "vampir")
        rng = random.Random(3)
        for _ in range(service_delivery.TAIL_EVENTS + 20):
            command = random_command(games.game(gid), rng)
            if command is None:
                break
            games.run_command(gid, HOST, command)
        head = games.game(gid).version
        assert head > service_delivery.TAIL_EVENTS  # the tail no longer holds the first events

        def stored(after: int, upto: int) -> list:
            return [(e.originator_version, type(e).__name__) for e in
                    games.repository.event_store.get(gid, gt=after, lte=upto)]

        for after, upto in ((head - 1, head), (head - 5, head), (0, head), (3, 10),
                            (head - 2, head - 1), (0, 1)):
            shared = games.delivery.stored_between(gid, after, upto)
            assert [(e.originator_version, type(e).__name__) for e in shared] == stored(
                after, upto), (after, upto)
    finally:
        games.close()


def test_another_workers_events_are_read_once_for_the_game_and_its_streams(sqlite_env):
    """The refresh that brings a cached game up to another Application's command keeps the
    events it read in the game's tail: the streams' messages need no second read, and they are
    what the store holds."""
    writer, reader = Games(env=sqlite_env), Games(env=sqlite_env)
    try:
        gid = new_game(writer, "vampir")
        before = reader.delivery.current(gid).version
        reader.access.bot_seats(gid)  # read once per game and kept
        rng = random.Random(5)
        for _ in range(3):
            writer.run_command(gid, HOST, random_command(writer.game(gid), rng))
        head = writer.game(gid).version
        reads = []
        real_get = reader.repository.event_store.get

        def counted(*args, **kwargs):
            reads.append(kwargs.get("gt"))
            return real_get(*args, **kwargs)

        reader.repository.event_store.get = counted
        game = reader.delivery.current(gid, head)
        assert game.version == head and len(reads) == 1
        events, _ = reader.delivery.update_of(game, HOST, before)
        assert len(reads) == 1  # from the tail
        assert [e["version"] for e in events] == list(range(before + 1, head + 1))
        page, _ = writer.reads.log(gid, HOST, after=before)
        assert events == page
    finally:
        writer.close()
        reader.close()


def forwards_watched_games(env: dict[str, str]) -> None:
    """A command another Application stores reaches a watched game's cached copy through the
    watcher's own read of the log: the streams find the game and its events at hand, and they
    are what the store holds (the same state, the same chain)."""
    writer, reader = Games(env=env), Games(env=env)
    try:
        gid = new_game(writer, "vampiring")
        unwatched = new_game(writer, "vampir")
        before = reader.delivery.current(gid).version
        reader.delivery.current(unwatched)
        reader.access.bot_seats(gid)  # read once per game and kept
        reads = []
        real_get = reader.repository.event_store.get

        def counted(*args, **kwargs):
            reads.append(args or kwargs)
            return real_get(*args, **kwargs)

        reader.repository.event_store.get = counted
        rng = random.Random(6)
        with reader.live.watch(gid) as watch:
            for _ in range(4):
                writer.run_command(gid, HOST, random_command(writer.game(gid), rng))
                writer.run_command(unwatched, HOST, random_command(writer.game(unwatched), rng))
                head = writer.game(gid).version
                assert watch.wait(head - 1, WAIT) and watch.latest == head
                game = reader.delivery.current(gid, head)
                events, view = reader.delivery.update_of(game, HOST, before)
                assert reads == [], "the watched game was read from the store again"
                stored = writer.game(gid)
                assert (game.version, game.chain_hash) == (stored.version, stored.chain_hash)
                assert game.full_state() == stored.full_state()
                assert view == writer.reads.view(gid, HOST)
                assert events == writer.reads.log(gid, HOST, after=before)[0]
        # An unwatched game is left for whoever reads it next (on PostgreSQL the worker knows
        # it is stale: service/store/freshness.py).
        assert reader.repository.cache.get(unwatched).version < writer.game(unwatched).version
        assert reader.game(unwatched).full_state() == writer.game(unwatched).full_state()
    finally:
        writer.close()
        reader.close()


def test_the_watcher_brings_a_watched_game_up_to_date_on_sqlite(sqlite_env):
    forwards_watched_games(sqlite_env)


@pytest.mark.postgres
def test_the_watcher_brings_a_watched_game_up_to_date_on_postgres(postgres_env):
    forwards_watched_games(postgres_env)


def test_stopping_wakes_every_watch_for_good():
    live = Live(Follower(None))
    game, woke = uuid.uuid4(), []
    with live.watch(game) as watch:
        waiter = threading.Thread(target=lambda: woke.append(watch.wait(0, WAIT)))
        waiter.start()
        live.stop_watches()
        waiter.join(WAIT)
        assert woke == [True] and watch.stopping
        assert watch.wait(0, WAIT) is True  # at once from now on


def test_the_poll_interval_comes_from_the_applications_settings(sqlite_env):
    # GRUFT_LIVE_POLL (docs/deployment.md) as the Application is given it, not only os.environ.
    games = Games(env={**sqlite_env, "GRUFT_LIVE_POLL": "0.25"})
    try:
        assert games.follower._poll == 0.25
    finally:
        games.close()
    games = Games(env=sqlite_env)
    try:
        assert games.follower._poll == service_follower.POLL_SECONDS
    finally:
        games.close()
