"""The read side as the read routes use it: the game index and the statistics.

The worker's owner (api/worker.py) keeps its read models (service.readmodels);
``GET /games``, the viewer's list of games and the statistics
routes all reach them here, caught up the same way before each read.
"""

from __future__ import annotations

from typing import Any

from api.worker import worker
from domain import available_games
from domain.core.names import seated_form
from service.readmodels import ReadModels


def read_models() -> ReadModels:
    """This worker's read models, caught up (bounded) with everything stored before the request."""
    found = worker().read_models()
    found.catch_up()
    return found


def games_page(game: str | None, status: str | None, player: str | None, after: int,
               limit: int, newest: bool = False) -> tuple[list[dict[str, Any]], int | None]:
    """A page of the game index, oldest (or `newest`) first, and the cursor of the next page.

    An index range on a monotonic key, in time independent of how many games exist; a game
    key that names no game lists nothing, without waiting for the views.
    """
    if game is not None and game not in available_games():
        return [], None
    if player is not None:
        player = seated_form(player)  # as seated: a name typed in another Unicode form finds it
    return read_models().view.games_page(game, status, player, after, limit, newest)
