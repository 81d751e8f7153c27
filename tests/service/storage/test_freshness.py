"""A command's first run on PostgreSQL trusts the worker's cached game as far as the log follower
heard (service/store/freshness.py): no read of the store when it heard of nothing newer, the newer
events only when a write's notice said the game changed; a stale copy still ends as if the store
had been asked (re-run, 409 or re-judged); reads always ask."""

from __future__ import annotations

from types import SimpleNamespace
from uuid import uuid4

import pytest

from domain.core import HOST
from service import Games
from service.errors import Conflict
from service.store.freshness import Freshness
from tests.kit import wait_until
from tests.service.storage.kit import check_log, new_game, two_applications
from tests.service.storage.test_postgres_writes import statements_of, stored_event


@pytest.fixture
def two(postgres_env):
    yield from two_applications(postgres_env)


def heard(app: Games) -> None:
    head = app.recorder.max_notification_id()
    wait_until(lambda: app.follower.listening and app.repository.freshness.position >= head,
               "the follower hears of everything stored")


def vampiring(app: Games):
    """A VampiRing game (both seats move at once), cached in `app`."""
    game_id = new_game(app, "vampiring")
    return game_id, app.game(game_id)


def move_of(game, player: str) -> dict:
    return {**game.legal_moves(player)[0], "player": player}


def test_a_command_on_a_game_heard_of_reads_nothing_from_the_store(two):
    first, _ = two
    game_id, game = vampiring(first)
    heard(first)
    sent = statements_of(first.recorder, lambda: first.command(game_id, HOST,
                                                              move_of(game, "Ann")))
    assert len(sent) == 1 and "gruft_insert_events" in sent[0]


def test_another_worker_s_command_is_heard_of_and_only_the_newer_events_are_read(two):
    first, second = two
    game_id, game = vampiring(first)
    second.game(game_id)  # cached there, at the game's version
    first.command(game_id, HOST, move_of(game, "Ann"))
    # the write's notice says the game's newest version: second's copy is stale from then on
    wait_until(lambda: not second.repository.freshness.current(game_id, game.version),
               "second to hear of first's write")
    assert second.repository.cache.get(game_id).version == game.version  # left as it was
    sent = statements_of(second.recorder, lambda: second.command(game_id, HOST,
                                                                move_of(game, "Ben")))
    assert len(sent) == 2 and "originator_version >" in sent[0]  # the newer events only
    assert "gruft_insert_events" in sent[1]
    assert len(check_log(first, game_id)) == game.version + 2


def test_a_write_s_notice_names_its_games_and_their_newest_versions(postgres_env):
    from service.store.follower import listening_connection
    from service.store.postgres import heard_in

    games = Games(env=postgres_env)
    try:
        with listening_connection(games.recorder) as conn:
            game_id = new_game(games, "vampiring")
            version = games.game(game_id).version
            said = [heard_in(n.payload) for n in conn.notifies(timeout=5, stop_after=1)]
            assert said and (str(game_id), version) in said[0]
            # a write of more games than a notice holds says nothing: followers read at once
            many = [uuid4() for _ in range(300)]
            games.recorder.insert_events([stored_event(games.recorder, g, 1) for g in many])
            notices = list(conn.notifies(timeout=5, stop_after=1))
            assert [n.payload for n in notices] == [""]
    finally:
        games.close()


def test_reads_still_ask_the_store(two):
    first, second = two
    game_id, game = vampiring(first)
    second.game(game_id)  # cached there
    second.command(game_id, HOST, move_of(game, "Ann"))
    # a read right after another worker's write sees it, heard of or not
    assert first.game(game_id).version == game.version + 1


def pretend_heard_nothing(app: Games) -> None:
    """Make `app` trust its cache as if its follower had heard of nothing newer."""
    app.repository.freshness.current = lambda game_id, version: True


def test_a_stale_copy_that_loses_the_race_runs_again_on_the_stored_game(two):
    first, second = two
    game_id, game = vampiring(first)
    second.game(game_id)
    pretend_heard_nothing(second)
    first.command(game_id, HOST, move_of(game, "Ann"))  # second's copy is now stale
    outcome = second.command(game_id, HOST, move_of(game, "Ben"))
    assert outcome.version > game.version + 1
    assert len(check_log(first, game_id)) == outcome.version


def test_a_stale_copy_and_the_client_s_expected_version(two):
    first, second = two
    game_id, game = vampiring(first)
    second.game(game_id)
    pretend_heard_nothing(second)
    first.command(game_id, HOST, move_of(game, "Ann"))
    # the client is behind the store: 409, as when the store is asked first
    # (the copy agrees with the client, so the write goes to the store, which has the newer)
    with pytest.raises(Conflict, match="another command was stored first"):
        second.command(game_id, HOST, move_of(game, "Ben"), expected_version=game.version)
    # the client knows a version newer than the copy: the store is asked, and it goes through
    outcome = second.command(game_id, HOST, move_of(game, "Ben"),
                             expected_version=game.version + 1)
    assert outcome.version > game.version + 1


def test_a_stale_copy_that_the_rules_refuse_is_judged_again_on_the_stored_game(two):
    first, second = two
    game_id = new_game(first, "vampire-queen")
    game = second.game(game_id)
    pretend_heard_nothing(second)
    player = game.to_act[0]
    first.command(game_id, HOST, move_of(game, player))
    after = first.game(game_id)
    mover = after.to_act[0]
    assert mover != player  # on second's stale copy it is not this player's turn
    outcome = second.command(game_id, HOST, move_of(after, mover))
    assert outcome.version > after.version


def test_trust_only_while_the_follower_listens():
    listening = [False]
    freshness = Freshness(lambda: listening[0], lambda game_id: None, 0)
    assert not freshness.current(uuid4(), 5)
    listening[0] = True
    game_id = uuid4()
    assert freshness.current(game_id, 0)
    freshness.receive([SimpleNamespace(id=1, topic="domain.x:Game.Started",
                                       originator_id=game_id, originator_version=3)])
    assert not freshness.current(game_id, 2) and freshness.current(game_id, 3)
    assert freshness.position == 1


def test_a_game_no_longer_heard_of_is_dropped_from_the_cache():
    forgotten = []
    freshness = Freshness(lambda: True, forgotten.append, 0, size=2)
    ids = [uuid4() for _ in range(3)]
    freshness.receive([SimpleNamespace(id=n + 1, topic="domain.x:Game.Moved",
                                       originator_id=gid, originator_version=2)
                       for n, gid in enumerate(ids)])
    assert forgotten == [ids[0]]
    # the token hashes' aggregates are not games: never counted
    freshness.receive([SimpleNamespace(id=4, topic="service.tokens:Credentials.Created",
                                       originator_id=uuid4(), originator_version=1)])
    assert forgotten == [ids[0]] and freshness.position == 4


def test_a_notice_s_games_count_at_once_and_other_ids_are_let_be():
    freshness = Freshness(lambda: True, lambda game_id: None, 0)
    game_id = uuid4()
    freshness.heard([(str(game_id), 4), ("not-a-game", 9)])
    assert not freshness.current(game_id, 3) and freshness.current(game_id, 4)


@pytest.mark.parametrize(("payload", "said"), [
    ("", None), ("a:1 b:22", [("a", 1), ("b", 22)]), ("x:y:3", [("x:y", 3)]),
    ("a:1 b", None), ("a:one", None)])
def test_what_a_notice_says(payload, said):
    from service.store.postgres import heard_in

    assert heard_in(payload) == said
