"""Which events concern a player, and which phase, round or turn each event belongs to.

Pure functions over event records (``{"version", "type", "data", …}``), shared by the
step-through (``gruft replay --player/--round``) and the log's filters (GET /games/{id}/events).
A server filters what the viewer may see: redact first, then filter, so that whether a hidden
field names a player never decides what is listed.

The games name their units in their events' data: Vampire Queen ``phase`` (PhaseDealt,
RoundEnded, PhaseScored) and ``round`` (RoundEnded, counted within a phase); Voodoo Prince and
Vampir ``round`` (RoundDealt, RoundEnded / RoundScored); VampiRing ``turn`` (TurnResolved).
An event that names no unit belongs to the one whose marker follows it (a round's plays come
before its RoundEnded), except that a deal starts a unit: events after the last marker
belong to the unit a deal began, or, once a player has acted after an end marker, to the next.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

UNITS = ("phase", "round", "turn")  # outermost first: a round is counted within its phase


def names(value: Any, player: str) -> bool:
    """Whether `player` appears in a JSON value: as a string, or as a key of an object."""
    if isinstance(value, str):
        return value == player
    if isinstance(value, dict):
        return player in value or any(names(v, player) for v in value.values())
    if isinstance(value, list):
        return any(names(v, player) for v in value)
    return False


def concerns(record: dict[str, Any], player: str) -> bool:
    """Whether the event was made by `player` or names them (hands, scores, a winner, …)."""
    return names(record.get("data"), player)


def select(records: Iterable[dict[str, Any]], *, player: str | None = None,
           types: Collection[str] | None = None) -> list[dict[str, Any]]:
    """The records `player` made or is named in and whose type is one of `types` (None: any)."""
    return [r for r in records if _kept(r, player, types)]


def _kept(record: dict[str, Any], player: str | None, types: Collection[str] | None) -> bool:
    """Whether a record passes the player and type filters (None: no filter)."""
    return ((player is None or concerns(record, player))
            and (types is None or record.get("type") in types))


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def units(records: Sequence[dict[str, Any]], deal_events: Collection[str] = (),
          command_events: Collection[str] = ()) -> list[dict[str, int]]:
    """For each record, the units it belongs to, e.g. ``{"phase": 2, "round": 3}`` ({} if none).

    `deal_events` are the game's events that start a unit (Game.DEAL_EVENTS), `command_events`
    its players' actions (Game.COMMAND_EVENTS).
    """
    labels: list[dict[str, int]] = [{} for _ in records]
    for depth, unit in enumerate(UNITS):
        own = [_number((r.get("data") or {}).get(unit)) for r in records]
        if all(v is None for v in own):
            continue
        outer = UNITS[:depth]
        scope = [tuple(label.get(u) for u in outer) for label in labels]
        for i in range(len(records)):
            if own[i] is not None:
                labels[i][unit] = own[i]
                continue
            found = _following(own, scope, i)
            if found is not None and records[found].get("type") not in deal_events:
                labels[i][unit] = own[found]
                continue
            before = _preceding(own, scope, i)
            if before is None:
                continue
            acted = any(records[k].get("type") in command_events for k in range(before + 1, i + 1))
            ended = records[before].get("type") not in deal_events
            labels[i][unit] = own[before] + 1 if ended and acted else own[before]
    return labels


def _following(own: list[int | None], scope: list[tuple], i: int) -> int | None:
    """The first later record naming the unit, within the same outer units."""
    for j in range(i + 1, len(own)):
        if scope[j] != scope[i]:
            return None
        if own[j] is not None:
            return j
    return None


def _preceding(own: list[int | None], scope: list[tuple], i: int) -> int | None:
    """The last earlier record naming the unit, within the same outer units."""
    for k in range(i - 1, -1, -1):
        if scope[k] != scope[i]:
            return None
        if own[k] is not None:
            return k
    return None


def matching(records: Sequence[dict[str, Any]], labels: Sequence[dict[str, int]], *,
             player: str | None = None, types: Collection[str] | None = None,
             **wanted: int | None) -> list[int]:
    """The indexes of the records that match every filter given (units by their labels)."""
    wanted = {u: n for u, n in wanted.items() if n is not None}
    return [i for i, record in enumerate(records)
            if _kept(record, player, types)
            and all(labels[i].get(u) == n for u, n in wanted.items())]
