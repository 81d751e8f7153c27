"""What every bot shares: the Bot interface, what a seat may see, the random and first bots."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

Move = dict[str, Any]
T = TypeVar("T")


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
    GAME: Any = None  # the domain Game class this bot plays; each game's bot sets it

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


def best(moves: list[T], score: Callable[[T], Any], rng: random.Random) -> T:
    """One of the moves with the highest score; among several so rated, `rng` chooses.

    A served bot's `rng` is secret (service.runners.bot_runner): where a strategy rates moves alike, an observer
    who knows the strategy and the table guesses no better than one in as many (issue 23)."""
    scores = [score(move) for move in moves]
    top = max(scores)
    return rng.choice([move for move, value in zip(moves, scores, strict=True) if value == top])


def least(moves: list[T], score: Callable[[T], Any], rng: random.Random) -> T:
    """One of the moves with the lowest score; among several so rated, `rng` chooses."""
    scores = [score(move) for move in moves]
    low = min(scores)
    return rng.choice([move for move, value in zip(moves, scores, strict=True) if value == low])
