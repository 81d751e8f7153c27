"""gruft's pure rules: no I/O, no Flask, no storage. One package per game on a shared core."""

from __future__ import annotations

import importlib
from typing import Any

from domain.core import BadSetup, Game
from domain.core.narration import describe

# Game key -> module that defines GAME (its aggregate class). Imported on first use.
GAME_MODULES = {
    "vampire-queen": "domain.vampire_queen",
    "voodoo-prince": "domain.voodoo_prince",
    "vampir": "domain.vampir",
    "vampiring": "domain.vampiring",
}


def game_class(key: str) -> type[Game]:
    """The aggregate class of a game key, or BadSetup naming the keys there are."""
    module = GAME_MODULES.get(key) if isinstance(key, str) else None
    if module is None:
        raise BadSetup(f"unknown game {key!r}; games: {', '.join(GAME_MODULES)}")
    return importlib.import_module(module).GAME


def available_games() -> list[str]:
    """Every game key, in the order of GAME_MODULES."""
    return list(GAME_MODULES)


def describe_events(key: str, records: list[dict[str, Any]], players: list[str],
                    options: dict[str, Any], *, strict: bool = False) -> list[dict[str, Any]]:
    """Each event of a game in plain words (and as each player saw it); see domain.core.narration."""
    return describe(game_class(key), records, players, options, strict=strict)
