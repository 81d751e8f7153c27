"""Games with a clock: found by the clock runner (service/runners/clock_runner.py) without reading every game.

A game created with a clock (domain.core.clocks) is recorded as such beside it, in the same
transaction, by a small `Clocked` aggregate (as bot seats are, service.table.seats): the runner finds
the clocked games by that event's topic when it starts, and learns of new ones from the log.
The clock itself is in the game's creation event; this record only points at the game.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import get_topic

from service.store.topics import stored_as


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
