"""Snapshots of long games: the state with and without snapshots is identical at every version."""

from __future__ import annotations

import dataclasses
import random

import pytest

from domain import available_games
from domain.core import HOST, SPECTATOR, Viewer
from service import Games, settings
from tests.service.storage.kit import advance, check_log, new_game, state_of

INTERVAL = 3  # small, so a short game has many snapshots and many versions between them


def test_snapshots_are_on_by_default(sqlite_env):
    env = settings.storage_env(dict(sqlite_env))
    assert env["SNAPSHOT_INTERVAL"] == str(settings.DEFAULT_SNAPSHOT_INTERVAL)
    assert Games(env=sqlite_env).snapshots is not None
    assert Games(env={**sqlite_env, "SNAPSHOT_INTERVAL": "0"}).snapshots is None


@pytest.mark.parametrize("key", available_games())
def test_state_with_and_without_snapshots_is_identical_at_every_version(make_games, key):
    snapshotting = make_games(SNAPSHOT_INTERVAL=str(INTERVAL))
    plain = make_games(SNAPSHOT_INTERVAL="0")  # same store, events only
    game_id = new_game(snapshotting, key, seed=11)
    advance(snapshotting, game_id, random.Random(11), 10_000)
    game = snapshotting.game(game_id)
    assert game.finished
    check_log(snapshotting, game_id)
    # Check a snapshot was taken at every multiple of the interval.
    taken = [s.originator_version for s in snapshotting.snapshots.get(game_id)]
    assert taken == list(range(INTERVAL, game.version + 1, INTERVAL))
    viewers = [SPECTATOR] + [Viewer(player=p) for p in game.players]
    without = None
    for event in plain.repository.event_store.get(game_id):
        without = event.mutate(without)  # the game rebuilt from its stored events alone
        version = event.originator_version
        with_snapshots = snapshotting.repository.get(game_id, version=version)
        assert state_of(with_snapshots) == state_of(without), f"differs at version {version}"
        assert with_snapshots.chain_hash == without.chain_hash
        for viewer in viewers:
            assert with_snapshots.view(viewer) == without.view(viewer)
        for player in game.players:
            assert with_snapshots.legal_moves(player) == without.legal_moves(player)
    assert without.version == game.version
    # Check the replay steps the API serves agree too (they load through the snapshots).
    for version in range(0, game.version + 1, 5):
        assert snapshotting.reads.replay(game_id, HOST, version) == plain.reads.replay(game_id, HOST, version)


def test_a_snapshot_that_fails_to_store_does_not_fail_its_stored_command(make_games, caplog):
    games = make_games(SNAPSHOT_INTERVAL=str(INTERVAL))
    game_id = new_game(games, available_games()[0], seed=5)
    game = games.game(game_id)
    # Occupy the next snapshot slots, so storing the command's snapshot fails in the store.
    taken = type(game).Snapshot.take(game)
    blockers = [dataclasses.replace(taken, originator_version=v)
                for v in range(game.version + 1, game.version + 40) if v % INTERVAL == 0]
    games.snapshots.put(blockers)
    before = len(games.reads.records(game_id))
    # Check the command is answered as stored (not 409, not 500), and it is stored, whole.
    player = sorted(game.to_act)[0]
    version, events = games.run_command(
        game_id, HOST, {**game.legal_moves(player)[0], "player": player})
    records = check_log(games, game_id)
    assert len(records) == version > before
    assert [e["version"] for e in events] == list(range(before + 1, version + 1))
    assert "snapshot" in caplog.text
