"""The per-worker aggregate cache: forwarded when another Application wrote, never mutated by a
command (accepted, refused or lost), on SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from copy import deepcopy
from typing import Any

import pytest

from domain import available_games, game_class
from domain.core import HOST, BadCommand, Refusal
from service import Conflict, Games
from tests.service.storage.kit import advance, check_log, fresh, new_game, state_of


def refused_commands(games: Games, game_id) -> list[tuple[dict, Any, str]]:
    """Commands the service must refuse now, each with the error it answers and what that
    error says (a pattern of its message)."""
    game = games.game(game_id)
    player = sorted(game.to_act)[0]
    move = game.legal_moves(player)[0]
    waiting = [p for p in game.players if p not in game.to_act]
    out = [({"type": "no_such_command", "player": player}, BadCommand,
            "has no command 'no_such_command'"),
           ({**move, "player": player, "unknown_field": 1}, BadCommand,
            "has no field 'unknown_field'")]
    garbled = {k: (v if k == "type" else "Z99") for k, v in move.items()}
    if garbled not in game.legal_moves(player):  # a move with fields: make them nonsense
        out.append(({**garbled, "player": player}, (BadCommand, Refusal),
                    r"'Z99' is not a card|field '\w+' must be"))
    if waiting:  # the ruling of turns cited last
        out.append(({**move, "player": waiting[0]}, Refusal,
                    rf"^It is not {waiting[0]}'s turn; .*\([A-Z]{{2}}-\d+\)$"))
    return out


@pytest.mark.parametrize("key", available_games())
def test_refused_commands_leave_cache_and_store_untouched(make_games, key):
    games = make_games()
    game_id = new_game(games, key, seed=3)
    advance(games, game_id, random.Random(3), 3)
    cached = games.repository.get(game_id, deepcopy_from_cache=False)
    before, records = deepcopy(state_of(cached)), games.reads.records(game_id)
    for command, error, says in refused_commands(games, game_id):
        # Fail to run a refused command: the cached game, the store and the answer stay put.
        with pytest.raises(error, match=says):
            games.run_command(game_id, HOST, command)
        assert state_of(cached) == before
        assert games.repository.get(game_id, deepcopy_from_cache=False) is cached
        assert games.reads.records(game_id) == records
    # Fail with a stale expected_version: 409 and nothing written.
    move = {**games.reads.legal_moves(game_id, HOST, sorted(cached.to_act)[0])["moves"][0],
            "player": sorted(cached.to_act)[0]}
    with pytest.raises(Conflict, match=f"expected version {cached.version - 1}, the game is "
                                       f"at {cached.version}"):
        games.run_command(game_id, HOST, move, expected_version=cached.version - 1)
    assert state_of(cached) == before and games.reads.records(game_id) == records


def test_commands_run_on_a_copy_and_cache_is_replaced_not_mutated(make_games):
    games = make_games()
    for n, key in enumerate(available_games()):
        game_id = new_game(games, key, seed=n)
        cached = games.repository.get(game_id, deepcopy_from_cache=False)
        before = deepcopy(state_of(cached))
        # Check a command's game is a copy of the cached one, not the cached object.
        assert games.repository.get(game_id) is not cached
        advance(games, game_id, random.Random(n), 2)
        # Check the old cached object never changed; the cache now holds the newer game.
        assert state_of(cached) == before
        now = games.repository.get(game_id, deepcopy_from_cache=False)
        assert now is not cached and now.version > cached.version
        assert state_of(now) == state_of(fresh(games, game_id))


def test_cache_is_forwarded_when_another_application_wrote(make_games):
    # Two Applications on one store stand for two workers (or two machines).
    first, second = make_games(), make_games()
    for n, key in enumerate(available_games()):
        game_id = new_game(first, key, seed=n)
        stale = first.game(game_id)  # cached in the first
        advance(second, game_id, random.Random(n), 5)
        # Check the first sees everything the second wrote, as rebuilt from the store.
        seen = first.game(game_id)
        assert seen.version == second.game(game_id).version > stale.version
        assert state_of(seen) == state_of(fresh(first, game_id))
        # Check a command in the first goes on from there, and the second sees it in turn.
        advance(first, game_id, random.Random(n + 100), 1)
        assert second.game(game_id).version == first.game(game_id).version
        check_log(second, game_id)


@pytest.mark.parametrize("key", available_games())
def test_a_copied_game_equals_the_original_and_shares_nothing_mutable(key):
    from service.store.repository import copy_game
    from tests.kit import SHORT_OPTIONS, seats

    game = game_class(key).start(seats(key), seed=3, options=SHORT_OPTIONS.get(key))
    game.collect_events()
    rng = random.Random(3)
    for _ in range(12):
        if game.finished:
            break
        player = game.to_act[0]
        moves = game.legal_moves(player)
        game.execute(player, moves[rng.randrange(len(moves))])
        game.collect_events()
    copy = copy_game(game)
    # Check the copy is the same game: state, chain, views and moves …
    assert type(copy) is type(game) and vars(copy) == vars(game)
    assert state_of(copy) == state_of(game) and copy.chain_hash == game.chain_hash
    for player in game.players:
        assert copy.legal_moves(player) == game.legal_moves(player)
    # … and nothing mutable is shared: a command on the copy leaves the original as it was
    before = deepcopy(vars(game))
    for name, value in vars(game).items():
        if isinstance(value, list | dict | set):
            assert vars(copy)[name] is not value, name
    if not copy.finished:
        player = copy.to_act[0]
        copy.execute(player, copy.legal_moves(player)[0])
        assert vars(game) == before
