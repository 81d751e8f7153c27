"""Where each phase, round, trick or turn of a game begins: the viewer's jumps and the reports.

Pure: computed from the event records (``{"version", "type", "data"}``) with the units each
game names in its events (domain.core.eventfilter.units) and the tricks a game declares
(Game.TRICKS: the event that plays to a trick, the event that ends one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.core.eventfilter import UNITS, units


def starts(game_cls: Any, records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each unit's first event, in log order: ``{"version", "unit", "label", "depth"}``.

    The setup (``Created``) starts nothing; a trick starts with its first card played (after
    the previous trick ended, or as the first play of its round). `depth` is 0 for the
    outermost unit the game has, 1 for a unit within it.
    """
    labels = units(records, game_cls.DEAL_EVENTS, set(game_cls.COMMAND_EVENTS))
    present = [u for u in UNITS if any(u in label for label in labels)]
    tricks = game_cls.TRICKS
    out: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    trick, trick_open, scope = 0, False, None
    for record, label in zip(records, labels, strict=True):
        if record.get("type") == "Created":
            continue
        for depth, unit in enumerate(present):
            if unit not in label:
                continue
            key = tuple((u, label.get(u)) for u in present[:depth + 1])
            if key not in seen:
                seen.add(key)
                out.append({"version": record["version"], "unit": unit, "depth": depth,
                            "label": _label(key)})
        if tricks is None:
            continue
        outer = tuple(label.get(u) for u in present)
        if outer != scope:  # a new round: its tricks count from one
            scope, trick, trick_open = outer, 0, False
        if record.get("type") == tricks[0] and not trick_open:
            trick, trick_open = trick + 1, True
            key = (*tuple((u, label.get(u)) for u in present if u in label), ("trick", trick))
            out.append({"version": record["version"], "unit": "trick", "depth": len(present),
                        "label": _label(key)})
        elif record.get("type") == tricks[1]:
            trick_open = False
    return out


def _label(key: tuple) -> str:
    """'Phase 2 · round 3', 'Round 1 · trick 4', 'Turn 7'."""
    words = [f"{unit} {number}" for unit, number in key]
    text = " · ".join(words)
    return text[:1].upper() + text[1:]
