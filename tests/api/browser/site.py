"""The games the viewer tests open: random legal play through the domain, stored via Games."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from service import Games

# Short games keep the suite quick and still reach every kind of event (VP round 2 has the
# dealer choose trump; two VQ phases exercise VQ-3).
SETUPS: dict[str, tuple[list[str], dict[str, Any]]] = {
    "voodoo-prince": (["Nina", "Otto", "Paul"], {"rounds": 2}),
    "vampire-queen": (["Ann", "Bob", "Cid", "Dee"], {"phases": 2}),
    "vampir": (["Ann", "Bob", "Cid"], {"rounds": 1}),
    "vampiring": (["Ann", "Bob", "Cid"], {}),
}


@dataclass
class StoredGame:
    """A game in the store and what a test needs to open it."""

    key: str
    game_id: str
    host_token: str
    player_tokens: dict[str, str]
    players: list[str]
    finished: bool


def store_random_game(games: Games, key: str, seed: int, *, moves: int | None = None
                      ) -> StoredGame:
    """Create a game, play random legal moves (all of them, or `moves`), store it in one save."""
    players, options = SETUPS[key]
    new = games.create_game(key, players, seed=seed, options=options)
    game = games.repository.get(new.game_id)
    rng = random.Random(seed)
    played = 0
    while not game.finished and (moves is None or played < moves):
        player = rng.choice(game.to_act)
        game.execute(player, rng.choice(game.legal_moves(player)))
        played += 1
    games.save(game)
    return StoredGame(key, str(new.game_id), new.host_token, new.player_tokens, players,
                      game.finished)


@dataclass
class Site:
    """The app with its stored games: one finished game per kind, one still in progress."""

    app: Any
    finished: dict[str, StoredGame]
    in_progress: StoredGame
    base_url: str = ""
