"""The log's filters (GET /games/{id}/events?player=&type=): which events a page keeps.

Whether an event concerns a player is decided on the event as the viewer may see it (redacted
first, then filtered, domain.core.eventfilter): a hidden field that happens to name a player
(a secret move, a hand, a word equal to someone's name) never decides what is listed, so the
versions that match tell a viewer nothing the redacted log does not. An event's type is never
secret, so it is checked before redacting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.core import BadCommand, Game
from domain.core.eventfilter import concerns
from domain.core.names import seated_form
from domain.core.words import N_

MAX_TYPES = 50  # event types one filter names (no game has half as many)


@dataclass(frozen=True)
class LogFilter:
    """Keep the events `player` made or is named in, of one of `types` (None: no such filter)."""

    player: str | None = None
    types: frozenset[str] | None = None

    @classmethod
    def parse(cls, player: str | None, types: str | None) -> LogFilter | None:
        """The filter of a query (`type` comma-separated), or None when it filters nothing."""
        wanted = None
        if types is not None:
            wanted = frozenset(t.strip() for t in types.split(",") if t.strip())
            if not wanted:
                raise BadCommand(N_("type names at least one event type"))
            if len(wanted) > MAX_TYPES:
                raise BadCommand(N_("type names at most %(max_types)s event types"),
                                 max_types=MAX_TYPES)
        if player is None and wanted is None:
            return None
        return cls(None if player is None else seated_form(player), wanted)

    def check(self, game: Game) -> None:
        """A player who does not play here, or an event type this game never records: 400."""
        if self.player is not None and self.player not in game.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=self.player)
        if self.types is not None:
            known = game.event_types()
            unknown = sorted(self.types.difference(known))
            if unknown:
                raise BadCommand(N_("%(key)s has no event type %(unknown)s; its event types are "
                                    "%(known)s"), key=game.KEY,
                                 unknown=', '.join(map(repr, unknown)), known=', '.join(known))

    def keeps_type(self, event_type: str) -> bool:
        """Whether the type filter lets this type through."""
        return self.types is None or event_type in self.types

    def keeps(self, shown: dict[str, Any]) -> bool:
        """Whether a record, already redacted for the viewer, passes the player filter."""
        return self.player is None or concerns(shown, self.player)
