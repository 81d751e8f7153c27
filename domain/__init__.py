"""gruft's pure rules: no I/O, no Flask, no storage. One package per game on a shared core."""

from __future__ import annotations

from typing import Any

from domain import vampir, vampire_queen, vampiring, voodoo_prince
from domain.core import BadSetup, Game
from domain.core.narration import describe
from domain.core.words import N_

# The registry of games: each game declares its own key (Game.KEY); this is the only list of them.
GAMES: dict[str, type[Game]] = {
    module.GAME.KEY: module.GAME for module in (vampire_queen, voodoo_prince, vampir, vampiring)
}

# The events that end a game: the host's abort ends any (Game.GameAborted), and each game its own.
ENDINGS: tuple[type[Game.Event], ...] = (
    Game.GameAborted, vampire_queen.GAME.GameEnded, voodoo_prince.GAME.GameEnded,
    vampir.GAME.GameFinished, vampiring.GAME.GameEnded)


def game_class(key: str) -> type[Game]:
    """The aggregate class of a game key, or BadSetup naming the keys there are."""
    cls = GAMES.get(key) if isinstance(key, str) else None
    if cls is None:
        raise BadSetup(N_("unknown game %(key)r; games: %(games)s"), key=key,
                       games=', '.join(GAMES))
    return cls


def available_games() -> list[str]:
    """Every game key, in the order of GAMES."""
    return list(GAMES)


def describe_events(key: str, records: list[dict[str, Any]], players: list[str],
                    options: dict[str, Any], *, strict: bool = False,
                    **language: Any) -> list[dict[str, Any]]:
    """Each event of a game in plain words (and as each player saw it); see domain.core.narration.

    `language`: the reader's `gettext` and `ngettext` (English without them)."""
    return describe(game_class(key), records, players, options, strict=strict, **language)
