"""Helpers for VampiRing scenarios: stacked rings, whole turns, fights read back from events."""

from __future__ import annotations

from typing import Any

from domain.core import event_data
from domain.vampiring import GAME
from domain.vampiring.rules import ring_cards
from tests.domain.kit import Table

SHAPE_NAMES = {"M": "Man", "W": "Wolf", "B": "Bat"}


def ring(players: list[str], placed: dict[int, str]) -> dict[str, Any]:
    """A stacked deal: the cards `placed` at their positions, the rest in a fixed order.

    Scenarios place every card a vampire can stop on; the rest only fill the ring.
    """
    rest = ring_cards(players)
    for card in placed.values():
        rest.remove(card)
    size = len(ring_cards(players))
    assert all(0 <= p < size for p in placed)
    cards = [placed[p] if p in placed else rest.pop(0) for p in range(size)]
    return {"ring": cards}


def table(players: list[str], placed: dict[int, str], **options: Any) -> Table:
    """A game on a stacked ring (options by name)."""
    return Table(GAME, players, seed="stacked", options=options, deal=ring(players, placed))


def command(move: str) -> dict[str, str]:
    """'a cw' -> the move command."""
    metamorphosis, direction = move.split()
    return {"type": "move", "metamorphosis": metamorphosis, "direction": direction}


def play_turn(table: Table, moves: dict[str, str]) -> dict[str, Any]:
    """Every living player submits (in the order given); the turn's TurnResolved data, with
    the detail (paths, fights, wounds) the game derives from it."""
    events = []
    for player, move in moves.items():
        events += table.act(player, command(move))
    resolved = [event_data(e) for e in events if type(e).__name__ == "TurnResolved"]
    assert len(resolved) == 1, "the last move in resolves the turn"
    table.check_rebuilt()
    return {**resolved[0], **table.game.turn_detail()}


def label(resolution: dict[str, Any], player: str, vid: str) -> str:
    """'Blue Man': a vampire by family and the shape it took this turn."""
    return f"{player} {SHAPE_NAMES[resolution['vampires'][player][vid]['shape']]}"


def fight_at(resolution: dict[str, Any], position: int) -> dict[str, int] | None:
    """The wounds dealt on one card, by vampire label (None: no fight there)."""
    for fight in resolution["fights"]:
        if fight["position"] == position:
            return {label(resolution, w["player"], w["id"]): w["wounds"] for w in fight["wounds"]}
    return None


def standing_at(resolution: dict[str, Any], position: int) -> list[str]:
    """The vampires that stopped on one card, by label, sorted."""
    return sorted(label(resolution, p, vid) for p, family in resolution["vampires"].items()
                  for vid, v in family.items() if v["position"] == position)


def where(resolution: dict[str, Any], player: str) -> dict[str, list[int]]:
    """Each of a family's vampires, by shape name, with the path it took."""
    return {SHAPE_NAMES[v["shape"]]: v["path"] for v in resolution["vampires"][player].values()}
