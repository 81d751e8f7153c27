"""Bots that play any gruft game: one small interface, a random bot and a heuristic bot per game.

A bot is handed the game, the seat it plays and that seat's legal moves, and answers one of
those moves. Heuristic bots read only what their seat may see — ``game.public_state()`` and
``game.private_state(player)`` (see ``Seat``) — never another player's secrets.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bots import vampir, vampire_queen, vampiring, voodoo_prince
from bots.base import Bot, FirstBot, HeuristicBot, Move, RandomBot, Seat, best, least

# Game key (read from each game's own class) -> its heuristic bot.
HEURISTICS: dict[str, type[HeuristicBot]] = {
    module.HEURISTIC.GAME.KEY: module.HEURISTIC
    for module in (vampire_queen, voodoo_prince, vampir, vampiring)
}

BotFactory = Callable[[random.Random], Bot]


def bots_for(game_key: str) -> dict[str, BotFactory]:
    """The bots that can play a game: name -> factory taking the bot's own random generator."""
    bots: dict[str, BotFactory] = {"random": RandomBot, "first": FirstBot}
    if game_key in HEURISTICS:
        bots["heuristic"] = HEURISTICS[game_key]
    return bots


def make_bot(name: str, game_key: str, rng: random.Random) -> Bot:
    """A bot by name for a game, or ValueError naming the bots there are."""
    bots = bots_for(game_key)
    if name not in bots:
        raise ValueError(f"no bot {name!r} for {game_key}; bots: {', '.join(bots)}")
    return bots[name](rng)


__all__ = ["HEURISTICS", "Bot", "BotFactory", "FirstBot", "HeuristicBot", "Move", "RandomBot",
           "Seat", "best", "bots_for", "least", "make_bot"]
