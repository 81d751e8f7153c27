"""Games with a clock: found by the clock runner (service/runners/clock_runner.py) without reading every game.

A game created with a clock (domain.core.clocks) is recorded as such beside it, in the same
transaction, by a small `Clocked` aggregate (as bot seats are, service.table.seats): the runner finds
the clocked games by that event's topic when it starts, and learns of new ones from the log.
The clock itself is in the game's creation event; this record only points at the game.

Clocks that wait for the table (domain.core.clocks, `"start": "ready"`) start, among other ways,
when every seat a person holds has the game open (`table_ready`, from service.live.presence): the
Application asks whenever a game's present seats change (Games.table_changed).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import get_topic

from bots import make_bot
from service.store.topics import stored_as

CLOCK_BOT = "heuristic"  # docs/api.md: the move of a seat out of time is the heuristic bot's


@stored_as("service.clocks")
class Clocked(Aggregate):
    """The record that a game has a clock."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:clocked:{game_id}")

    @event("Started")
    def __init__(self, game_id: UUID) -> None:
        self.game_id = game_id


CLOCKED_TOPIC = get_topic(Clocked.Started)  # type: ignore[attr-defined]


def table_ready(game: Any, present: list[str], bot_seats: dict[str, str]) -> bool:
    """Whether every seat a person holds has `game` open (`present`): the seats no bot plays
    (bot seats of the creation, `bot_seats` for games stored before it recorded them, and seats
    handed to a bot). A table of bots only is never ready this way (the host starts it)."""
    people = [p for p in game.players if game.bot_kind(p, bot_seats) is None]
    return bool(people) and set(people) <= set(present)


def clock_move(rng: random.Random) -> Callable[[Any, str, list[dict[str, Any]]], dict[str, Any]]:
    """The clock's move for a seat out of time: the heuristic bot's choice among `moves`, its
    choices among moves it rates alike drawn from `rng` (secret, as the bot runner's are)."""
    def choose(game: Any, player: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
        return make_bot(CLOCK_BOT, game.KEY, rng).choose(game, player, moves)
    return choose
