"""Rematches (docs/api.md, (table)): a game that is over links to the one game that follows it.

The link is a small aggregate of its own beside the finished game, keyed by that game's id and
saved in the same transaction as the rematch: whoever asks second (the host and a seat at once,
two workers) loses that race, nothing written, and is answered the rematch that won. The
rematch's credentials carry the tokens of the game before (service.table.tokens, `carried`): the same
people keep their seats' links.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from service.store.topics import stored_as


@stored_as("service.rematch")
class RematchLink(Aggregate):
    """The rematch of one game that is over."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:rematch:{game_id}")

    @event("Linked")
    def __init__(self, game_id: UUID, rematch_id: UUID) -> None:
        self.game_id = game_id
        self.rematch_id = rematch_id


def rotated(players: list[str]) -> list[str]:
    """The seats of a rematch: the same names, rotated by one (the second seat leads)."""
    return [*players[1:], *players[:1]]
