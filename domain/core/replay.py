"""What a replay or an import imposes on the events a game makes: one object, passed in.

Verification plays a recorded game again through the rules (replays.document), and an import or
a restore stores what that replay made. The rules then make each event as it was recorded: at its
recorded timestamp, by its recorded author, in its recorded shape (docs/format.md, "Event
shapes"), with its recorded nonce (format 3, "Commitment nonces": never a new draw, so the re-run
gives the recorded links), and a restored game under its recorded id. A `Replay` carries those records; it is
given to ``Game.start`` or ``Game.forked``, and the game it makes takes them for every event it
makes until ``Game.end_replay``. A game made without one takes the clock, the author of the
command (``Game.execute``'s `by`) and its types' current shapes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.core.chain import new_nonce


@dataclass
class Replay:
    """The records a replay imposes, each an iterator over the events in order (None: not
    imposed). `authors` yields None for an event stored before `by` existed, which keeps none;
    `nonces` yields None for an event without a nonce (formats 1 and 2, or one holding no
    secret); `game_id`: the id a restored game keeps (its links and documents still name it)."""

    timestamps: Iterator[datetime] | None = None
    authors: Iterator[str | None] | None = None
    shapes: Iterator[int] | None = None
    nonces: Iterator[str | None] | None = None
    game_id: Any = None

    def timestamp(self) -> datetime | None:
        """The next event's recorded timestamp (None: none recorded, the clock's)."""
        return None if self.timestamps is None else next(self.timestamps, None)

    def nonce(self, committed: bool) -> str | None:
        """The next event's nonce: the recorded one (None: it has none); when none are recorded,
        a new draw for an event that `committed` says needs one (format 3 and it holds a secret:
        domain.core.visibility.holds_secrets), None for any other."""
        if self.nonces is None:
            return new_nonce() if committed else None
        return next(self.nonces, None)

    def shape(self, event_class: Any) -> int:
        """The shape of the next event: its type's current one, or the one recorded for it."""
        current = getattr(event_class, "class_version", 1)
        if self.shapes is None:
            return current
        shape = next(self.shapes, None)
        # A shape this release cannot make (unknown, newer): the current one, which the
        # verifier then finds to differ from the record.
        if type(shape) is not int or not 1 <= shape < current or not all(
                hasattr(event_class, f"downcast_v{n}_v{n - 1}")
                for n in range(shape + 1, current + 1)):
            return current
        return shape


def upcast(event_class: Any, state: dict[str, Any], shape: int) -> dict[str, Any]:
    """`state` (an event's stored attributes, in shape `shape`) brought to its type's current
    shape by the type's upcasters, as eventsourcing's mapper does when it reads a stored event;
    the first upcaster keeps what was stored (domain.core.chain.keep_stored)."""
    current = getattr(event_class, "class_version", 1)
    while shape < current:
        getattr(event_class, f"upcast_v{shape}_v{shape + 1}")(state)
        shape += 1
    return state
