"""Helpers that play whole games through the rules, the service or the REST API, with random
legal moves."""

from __future__ import annotations

import random
from typing import Any

from domain import available_games, game_class

# Options that keep a test game short, per game key (each game's own SHORT_OPTIONS).
SHORT_OPTIONS = {key: dict(game_class(key).SHORT_OPTIONS) for key in available_games()}
NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou"]


def seats(key: str, count: int | None = None) -> list[str]:
    """Player names for a game: its minimum count unless given."""
    cls = game_class(key)
    return NAMES[: count or max(cls.MIN_PLAYERS, 3 if cls.MAX_PLAYERS >= 3 else 2)]


def played_document(game: Any, rng: random.Random, key: Any) -> dict[str, Any]:
    """A started game played to its end through the rules alone, exported as a replay document
    signed with `key` (a service.signing.SigningKey: a test's own, or the server's)."""
    from domain.core import event_record
    from replays.document import build_document

    while not game.finished:
        player = rng.choice(game.to_act)
        game.execute(player, rng.choice(game.legal_moves(player)))
    records = [event_record(e) for e in game.collect_events()]
    return build_document(game, records, key.sign, key.public_pem)


def play_out(games: Any, game_id: Any, rng: random.Random, max_commands: int = 5000) -> int:
    """Finish a stored game with random legal moves through the service; answers commands run."""
    from domain.core import HOST

    count = 0
    while True:
        game = games.game(game_id)
        if game.finished:
            return count
        player = rng.choice(game.to_act)
        move = rng.choice(game.legal_moves(player))
        games.run_command(game_id, HOST, {**move, "player": player})
        count += 1
        assert count < max_commands, "game did not finish"


def play_over_rest(client: Any, created: dict, rng: random.Random, max_commands: int = 5000
                   ) -> int:
    """Finish a game over REST, each seat acting with its own token; answers commands sent."""
    game_id = created["game_id"]
    tokens = {p: {"Authorization": f"Bearer {t}"} for p, t in created["player_tokens"].items()}
    count = 0
    while True:
        view = client.get(f"/games/{game_id}").get_json()
        if view["status"] == "finished":
            return count
        player = rng.choice(view["to_act"])
        moves = client.get(f"/games/{game_id}/legal-moves", headers=tokens[player]).get_json()
        assert moves["player"] == player and moves["moves"], moves
        answer = client.post(f"/games/{game_id}/commands", headers=tokens[player],
                             json={**rng.choice(moves["moves"]), "expected_version": view["version"]})
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["version"] > view["version"]
        count += 1
        assert count < max_commands, "game did not finish"
