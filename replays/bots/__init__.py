"""Bots that play any gruft game: one small interface, a random bot and a heuristic bot per game.

A bot is handed the game, the seat it plays and that seat's legal moves, and answers one of
those moves. Heuristic bots read only what their seat may see — ``game.public_state()`` and
``game.private_state(player)`` (see ``Seat``) — never another player's secrets.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any, Protocol

Move = dict[str, Any]

# Game key -> module whose HEURISTIC is that game's heuristic bot class.
HEURISTIC_MODULES = {
    "vampire-queen": "replays.bots.vampire_queen",
    "voodoo-prince": "replays.bots.voodoo_prince",
    "vampir": "replays.bots.vampir",
    "vampiring": "replays.bots.vampiring",
}


class Bot(Protocol):
    """Anything that picks one of the legal moves of a seat."""

    name: str

    def choose(self, game: Any, player: str, moves: list[Move]) -> Move:
        """One of `moves` (never empty) for `player` in `game`."""
        ...


class Seat:
    """What one seat may see of a game: the public state and its own private state, nothing else."""

    def __init__(self, game: Any, player: str) -> None:
        self.public = game.public_state()
        self.private = game.private_state(player)
        self.player = player
        self.players = list(game.players)
        self.options = dict(game.options)  # public: every view shows them


class HeuristicBot:
    """Base of the per-game heuristic bots: an only move is played at once, else `decide`."""

    name = "heuristic"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Any, player: str, moves: list[Move]) -> Move:
        """The only move, or the game's heuristic over what this seat may see."""
        if len(moves) == 1:
            return moves[0]
        return self.decide(Seat(game, player), moves)

    def decide(self, seat: Seat, moves: list[Move]) -> Move:
        """One of two or more legal moves, from the seat's own view."""
        raise NotImplementedError


class RandomBot:
    """Uniform over the legal moves."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Any, player: str, moves: list[Move]) -> Move:
        """Any legal move, each equally likely."""
        return moves[self.rng.randrange(len(moves))]


class FirstBot:
    """Always the first legal move (deterministic; useful for debugging and golden runs)."""

    name = "first"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Any, player: str, moves: list[Move]) -> Move:
        """The first legal move in the game's own order."""
        return moves[0]


BotFactory = Callable[[random.Random], Bot]


def bots_for(game_key: str) -> dict[str, BotFactory]:
    """The bots that can play a game: name -> factory taking the bot's own random generator."""
    bots: dict[str, BotFactory] = {"random": RandomBot, "first": FirstBot}
    module = HEURISTIC_MODULES.get(game_key)
    if module is not None:
        bots["heuristic"] = importlib.import_module(module).HEURISTIC
    return bots


def make_bot(name: str, game_key: str, rng: random.Random) -> Bot:
    """A bot by name for a game, or ValueError naming the bots there are."""
    bots = bots_for(game_key)
    if name not in bots:
        raise ValueError(f"no bot {name!r} for {game_key}; bots: {', '.join(bots)}")
    return bots[name](rng)


def best(moves: list[Move], score: Callable[[Move], float]) -> Move:
    """The move with the highest score; ties go to the earliest in the game's order."""
    top, top_score = moves[0], score(moves[0])
    for move in moves[1:]:
        value = score(move)
        if value > top_score:
            top, top_score = move, value
    return top
