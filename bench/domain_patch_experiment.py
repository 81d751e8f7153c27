"""Measure two proposed domain/core speed-ups without editing domain/ (owned by the game engineers).

Runs random-bot games through every game twice in one process — as the code stands, then with
the patches below applied in memory — and prints commands per CPU second and the gain:

1. ``Game.legal_moves`` de-duplicates and sorts by ``canonical()`` (a ``json.dumps`` per move);
   a key of nested tuples does the same job without JSON.
2. ``canonical()`` builds a new ``JSONEncoder`` on every call; one prepared encoder with the same
   settings gives byte-identical text (the hash chain is unchanged — checked below).

Run: ``.venv/bin/python bench/domain_patch_experiment.py [cpu-seconds-per-game]``.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

import domain.core.chain as chain
import domain.core.game as core_game
from domain import available_games, game_class
from replays.bench import domain_game

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fast_canonical(value: Any) -> str:
    """The canonical JSON text with one prepared encoder (same output as chain.canonical)."""
    return _ENCODER.encode(value)


def _key(value: Any) -> Any:
    """A hashable, totally ordered stand-in for a JSON-native command."""
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return (1, tuple(_key(v) for v in value))
    return (0, value)


def fast_legal_moves(self: Any, player: str) -> list[dict[str, Any]]:
    """Game.legal_moves with a tuple key instead of canonical JSON (same set, stable order)."""
    if self.finished or player not in self.to_act:
        return []
    distinct = {_key(m): m for m in self.list_moves(player)}
    return [distinct[k] for k in sorted(distinct)]


def rate(key: str, cpu_seconds: float) -> float:
    """Random-bot commands per CPU second for one game."""
    rng = random.Random(1)
    steps, seed = 0, 0
    start = time.process_time()
    while time.process_time() - start < cpu_seconds:
        steps += domain_game(key, seed, rng)
        seed += 1
    return steps / (time.process_time() - start)


def positions(key: str, games: int = 4) -> list[tuple[Any, str]]:
    """Deep copies of games at every step of a few random-bot games, with the seat to act."""
    import copy

    cls, rng, out = game_class(key), random.Random(2), []
    for seed in range(games):
        game = cls.start([f"p{i}" for i in range(3)], seed=seed)
        while not game.finished:
            player = game.to_act[0]
            out.append((copy.deepcopy(game), player))
            moves = game.legal_moves(player)
            game.execute(player, moves[rng.randrange(len(moves))])
    return out


def listing_cost(spots: list[tuple[Any, str]], listing: Any) -> float:
    """Microseconds of CPU per legal-move listing over the same positions."""
    start = time.process_time()
    for game, player in spots:
        listing(game, player)
    return (time.process_time() - start) / len(spots) * 1e6


def main() -> None:
    """Before/after per game, with checks that the patched code answers the same."""
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    sample = {"b": [3, "é", {"z": None, "a": True}], "a": 1.5}
    assert fast_canonical(sample) == chain.canonical(sample)
    stock_listing = core_game.Game.legal_moves
    print("1. legal-move listing, CPU per call on the same positions")
    for key in available_games():
        spots = positions(key)
        for game, player in spots[:50]:
            # Check the patched listing is the same set of moves.
            assert sorted(map(chain.canonical, fast_legal_moves(game, player))) == sorted(
                map(chain.canonical, stock_listing(game, player)))
        before = listing_cost(spots, stock_listing)
        after = listing_cost(spots, fast_legal_moves)
        print(f"   {key:<15} {before:7.1f} -> {after:7.1f} us ({after / before - 1:+.0%})")
    # The encoder patch leaves every text, so every game, exactly as it was: same trajectories.
    print("2. one prepared JSON encoder: random-bot commands per CPU second, same games")
    before = {k: rate(k, budget) for k in available_games()}
    original = chain.canonical
    chain.canonical = fast_canonical  # event_hash looks canonical up in its module
    try:
        after = {k: rate(k, budget) for k in available_games()}
    finally:
        chain.canonical = original
    for key in before:
        print(f"   {key:<15} {before[key]:>9,.0f} -> {after[key]:>9,.0f} ({after[key] / before[key] - 1:+.0%})")


if __name__ == "__main__":
    main()
