"""The game log kept by the store: leaves in the order games end, once each, across restarts,
Applications and racing appenders, on SQLite, PostgreSQL and in memory."""

from __future__ import annotations

import random
import threading

import pytest

from domain import ENDINGS, available_games
from domain.core import HOST
from service import Games
from service.audit.gamelog import Appender, GameLog, leaf_bytes, leaf_of
from service.audit.merkle import leaf_hash, verify_consistency, verify_inclusion
from service.audit.signing import SigningKey, check_signature
from tests.kit import wait_until
from tests.service.storage.kit import advance, new_game


def finish(games: Games, game_id, seed: int = 1) -> None:
    advance(games, game_id, random.Random(seed), 5000)
    assert games.game(game_id).finished


def last_leaf(games: Games, game_id) -> dict:
    game = games.game(game_id)
    return leaf_of(str(game_id), game.version, game.chain_hash)


@pytest.fixture
def key(tmp_path) -> SigningKey:
    return SigningKey.load_or_create(tmp_path)


def test_every_game_that_ends_is_a_leaf_in_the_order_games_end(storage_env, key):
    games = Games(env=storage_env)
    try:
        game_log = GameLog(games, key)
        first, second, third = (new_game(games, k) for k in ("vampir", "vampiring", "vampir"))
        # Check a game in play is no leaf; the second game ends first, then the host aborts
        # the third, then the first ends.
        assert game_log.catch_up() == 0 and game_log.entry(first) is None
        finish(games, second)
        advance(games, third, random.Random(3), 2)
        games.abort(third, HOST, "the table was needed")
        finish(games, first)
        assert game_log.catch_up() == 3
        assert game_log.catch_up() == 0  # nothing twice
        order = [second, third, first]
        assert [game_log.entry(g)["index"] for g in order] == [0, 1, 2]
        assert [game_log.entry(g)["leaf"] for g in order] == [last_leaf(games, g) for g in order]
        # Check each leaf is proven in the signed checkpoint, and the log only grew.
        checkpoint = game_log.checkpoint()
        body = {k: v for k, v in checkpoint.items() if k != "signature"}
        from domain.core import canonical

        assert check_signature(key.public_pem, canonical(body).encode(), checkpoint["signature"])
        assert checkpoint["size"] == 3 and checkpoint["origin"] == game_log.origin
        assert checkpoint["key_id"] == key.key_id
        root = bytes.fromhex(checkpoint["root"])
        for game_id in order:
            proof = game_log.inclusion(game_id)
            assert verify_inclusion(leaf_hash(leaf_bytes(proof["leaf"])), proof["index"], 3,
                                    [bytes.fromhex(p) for p in proof["proof"]], root)
        older = game_log.checkpoint(1)
        consistency = game_log.consistency(1, 3)
        assert verify_consistency(1, 3, bytes.fromhex(older["root"]), root,
                                  [bytes.fromhex(p) for p in consistency["proof"]])
        assert game_log.inclusion(first, size=2) is None  # logged after the tree of two
    finally:
        games.close()


def test_a_store_that_predates_the_log_logs_its_games_over_first(sqlite_env, key):
    games = Games(env=sqlite_env)
    ended = [new_game(games, "vampir", seed=s) for s in (1, 2)]
    for n, game_id in enumerate(reversed(ended)):
        finish(games, game_id, seed=n)
    in_play = new_game(games, "vampir", seed=3)
    # Check the log, started after the fact (a restart with this version), logs the games
    # already over in the order they ended, and none in play.
    game_log = GameLog(games, key)
    assert game_log.catch_up() == 2
    assert [game_log.entry(g)["index"] for g in reversed(ended)] == [0, 1]
    assert game_log.entry(in_play) is None
    games.close()

    # Check a restarted Application keeps the log as it was, and appends after it.
    again = Games(env=sqlite_env)
    restarted = GameLog(again, key)
    assert restarted.origin == game_log.origin
    assert restarted.catch_up() == 0 and restarted.tree().size == 2
    finish(again, in_play)
    assert restarted.catch_up() == 1 and restarted.entry(in_play)["index"] == 2
    assert restarted.tree().root() == GameLog(again, key).tree().root()
    again.close()


def test_racing_appenders_append_each_game_once_without_a_gap(storage_env, key):
    games = Games(env=storage_env)
    ended = [new_game(games, "vampir", seed=s) for s in range(4)]
    for game_id in ended:
        finish(games, game_id)
    # Several Applications (as several workers) each with their log catch up at once.
    logs = [GameLog(Games(env=storage_env), key) for _ in range(4)]
    barrier = threading.Barrier(len(logs), timeout=30)
    errors: list[BaseException] = []

    def race(game_log: GameLog) -> None:
        try:
            barrier.wait()
            game_log.catch_up()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=race, args=(g,)) for g in logs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert [logs[0].entry(g)["index"] for g in ended] == [0, 1, 2, 3]
    assert {g.tree().root() for g in logs} == {logs[0].tree().root()}
    assert logs[0].tree().size == 4
    for game_log in logs:
        game_log.games.close()
    games.close()


def test_the_appender_thread_catches_up_when_woken(sqlite_env, key):
    games = Games(env=sqlite_env)
    game_log = GameLog(games, key)
    appender = Appender(game_log)  # it subscribes to the store's log follower
    try:
        game_id = new_game(games, "vampiring")
        finish(games, game_id)
        wait_until(lambda: game_log.entry(game_id) is not None, "the game to be logged")
        assert game_log.entry(game_id)["leaf"] == last_leaf(games, game_id)
    finally:
        appender.close()
        games.close()


def test_a_catch_up_ends_at_the_head_it_began_at_while_commands_keep_arriving(sqlite_env,
                                                                               key):
    games = Games(env=sqlite_env)
    game_log = GameLog(games, key)
    try:
        ended, busy = new_game(games, "vampiring"), new_game(games, "vampir", seed=2)
        finish(games, ended)
        read = games.recorder.select_notifications
        reads = []

        def read_while_a_command_arrives(*args, **kwargs):
            # Another client's command is stored each time the log reads: a steady flow (the
            # follower's thread reads through here too, and is left alone).
            if threading.current_thread() is threading.main_thread():
                reads.append(args)
                advance(games, busy, random.Random(len(reads)), 1)
            return read(*args, **kwargs)

        games.recorder.select_notifications = read_while_a_command_arrives
        # Check the catch-up logs the ended game and stops at the head it began at, one read.
        assert game_log.catch_up() == 1 and len(reads) == 1
        assert game_log.entry(ended)["leaf"] == last_leaf(games, ended)
    finally:
        games.close()


def test_every_game_ends_with_an_event_the_log_knows(sqlite_env, key):
    games = Games(env=sqlite_env)
    game_log = GameLog(games, key)
    for number, game_key in enumerate(sorted(available_games())):
        game_id = new_game(games, game_key)
        finish(games, game_id)
        records = games.reads.records(game_id)
        assert records[-1]["type"] in {ending.__name__ for ending in ENDINGS}
        assert game_log.catch_up() == 1
        assert game_log.entry(game_id) == {
            "index": number, "leaf": last_leaf(games, game_id),
            "ended_at": game_log.entry(game_id)["ended_at"]}
    games.close()


def test_the_in_memory_store_keeps_its_log_in_memory(tmp_path, key):
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo",
                       "GRUFT_DATA_DIR": str(tmp_path / "data")})
    game_log = GameLog(games, key)
    game_id = new_game(games, "vampir")
    finish(games, game_id)
    assert game_log.catch_up() == 1
    assert game_log.inclusion(game_id) == {"index": 0, "size": 1,
                                           "leaf": last_leaf(games, game_id), "proof": []}
    games.close()
