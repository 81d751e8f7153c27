"""Bots: every choice is a legal move, every game finishes, and heuristic bots see only their seat."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bots import RandomBot, bots_for, make_bot
from domain import available_games, game_class
from domain.core import canonical

GAMES = available_games()


def seat_counts(key: str) -> list[int]:
    """The smallest and the largest table of a game."""
    cls = game_class(key)
    return sorted({cls.MIN_PLAYERS, cls.MAX_PLAYERS})


class SeatOnly:
    """A game as one seat may see it: the public state and that seat's private state, no more.

    Handing this to a heuristic bot proves it reads no other player's secrets: anything else it
    touches raises.
    """

    def __init__(self, game: Any, player: str) -> None:
        self._game = game
        self._player = player
        self.players = list(game.players)
        self.options = dict(game.options)

    def public_state(self) -> dict[str, Any]:
        return self._game.public_state()

    def private_state(self, player: str) -> dict[str, Any]:
        # Check it reads only its own seat's secrets.
        assert player == self._player, f"a bot for {self._player} read {player}'s secrets"
        return self._game.private_state(player)


def play_checked(key: str, bot_names: list[str], seed: int) -> tuple[Any, int]:
    """A whole game where every choice is checked against the legal moves before it is played."""
    cls = game_class(key)
    players = [f"{name}{i}" for i, name in enumerate(bot_names)]
    bots = {p: make_bot(name, key, random.Random(f"{seed}/{p}"))
            for p, name in zip(players, bot_names, strict=True)}
    game = cls.start(players, seed=seed)
    commands = 0
    while not game.finished:
        assert commands < 5_000, "the game did not finish"
        player = game.to_act[0]
        moves = game.legal_moves(player)
        assert moves, f"{player} is to act but has no legal move"
        choice = bots[player].choose(SeatOnly(game, player), player, moves)
        # Check the bot chose one of the listed moves, not merely one the rules would accept.
        assert canonical(choice) in {canonical(m) for m in moves}, choice
        game.execute(player, choice)
        game.collect_events()
        commands += 1
    return game, commands


def test_every_game_has_a_random_and_a_heuristic_bot():
    # Check the registry covers every game that has landed.
    for key in GAMES:
        assert {"random", "heuristic"} <= set(bots_for(key)), key
    # Fail to make a bot that does not exist, with a sentence naming those that do.
    with pytest.raises(ValueError, match="heuristic"):
        make_bot("clever", GAMES[0], random.Random(1))


@pytest.mark.parametrize("key", GAMES)
def test_random_bots_finish_every_table_size_with_legal_moves(key):
    for count in seat_counts(key):
        game, commands = play_checked(key, ["random"] * count, seed=11 + count)
        # Check the game ended with a result the rules allow.
        assert game.finished and commands > 0
        assert set(game.winners) <= set(game.players)


@pytest.mark.parametrize("key", GAMES)
def test_heuristic_bots_finish_every_table_size_with_legal_moves(key):
    for count in seat_counts(key):
        # A table of heuristic bots, and one heuristic bot among random ones.
        for names in (["heuristic"] * count, ["heuristic"] + ["random"] * (count - 1)):
            game, _ = play_checked(key, names, seed=23 + count)
            assert game.finished
            assert set(game.winners) <= set(game.players)


@pytest.mark.parametrize("key", GAMES)
def test_heuristic_bot_is_deterministic_given_its_generator(key):
    # Check the same seed and the same generators replay the very same game.
    count = game_class(key).MIN_PLAYERS
    first, _ = play_checked(key, ["heuristic"] + ["random"] * (count - 1), seed=5)
    again, _ = play_checked(key, ["heuristic"] + ["random"] * (count - 1), seed=5)
    assert first.full_state() == again.full_state()


def test_random_bot_is_uniform_over_the_moves():
    # Check every move is reachable and none is favoured grossly (600 draws over 3 moves).
    bot = RandomBot(random.Random(3))
    moves = [{"type": "a"}, {"type": "b"}, {"type": "c"}]
    picks = [bot.choose(None, "p", moves)["type"] for _ in range(600)]
    assert {picks.count(t) for t in "abc"} <= set(range(150, 251))
