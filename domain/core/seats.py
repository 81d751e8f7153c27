"""Seats and clockwise order, shared by every game (VQ-1, VP-1, VA-1: seats in creation order)."""

from __future__ import annotations

from collections.abc import Sequence


def seat_of(players: Sequence[str], player: str) -> int:
    """The seat index of a player."""
    return players.index(player)


def clockwise(players: Sequence[str], player: str, steps: int = 1) -> str:
    """The player `steps` seats clockwise (increasing seat index, wrapping) from `player`."""
    return players[(players.index(player) + steps) % len(players)]


def clockwise_from(players: Sequence[str], player: str) -> list[str]:
    """All players in clockwise order, beginning with `player`."""
    start = players.index(player)
    return [players[(start + i) % len(players)] for i in range(len(players))]
