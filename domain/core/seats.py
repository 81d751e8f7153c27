"""Who plays each seat: the server's bot seats chosen at creation, and seats handed over.

A game's creation may give seats to the server's bots (`bots`: seat -> bot kind); later the host
may hand a seat to a bot, or the seat take itself back (`SeatHanded`, docs/api.md). A seat whose
clock ran out (domain.core.clocks) has its one next move made by the bot. ``Game`` inherits
these; a game without bot seats reads the class defaults and records none.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from domain.core.chain import HOST_BY
from domain.core.errors import BadCommand, BadSetup
from domain.core.words import N_

# How often one seat may be handed to a bot or back in one game (gruft's own table rule, issue
# 32, item 2): a seat handed to the bot and back 30,000 times made a game whose own export the
# server then refused to verify or import. Twenty covers any evening's comings and goings.
HANDOVERS_PER_SEAT = 20


def check_bot_seats(bots: Any, players: list[str]) -> dict[str, str]:
    """Bot seats as the creation records them: seats of this game, each a bot kind's name (the
    service checks the kinds it has); in seat order."""
    if bots is None:
        return {}
    if not isinstance(bots, dict) or not all(
            p in players and isinstance(kind, str) and 0 < len(kind) <= 20
            for p, kind in bots.items()):
        raise BadSetup(N_("bots must name seats of this game, each with a bot"))
    return {p: bots[p] for p in players if p in bots}


class Seats:
    """The seats' players and bots, as ``Game`` keeps them."""

    bots = MappingProxyType({})  # seat -> bot kind (the creation's `bots`); none: a class default
    handed = None  # seat -> bot ("heuristic" | "random") or None: SeatHanded, as last recorded
    handovers = None  # seat -> how many times it was handed (SeatHanded); a fork counts afresh

    def bot_may_play(self, player: str) -> bool:
        """Whether the server's bot may move for `player` now: a bot seat, a seat handed to a bot
        (and not taken back), a seat whose clock ran out. The verifier names a bot move
        anywhere else."""
        handed = self.handed or {}
        if player in self.expired:
            return True
        return handed[player] is not None if player in handed else player in self.bots

    def bot_kind(self, player: str, recorded: dict[str, str] | None = None) -> str | None:
        """The bot that plays `player`'s seat now (None: its player): a seat handed over, else
        a bot seat of the creation (`recorded`: the service's record, for games stored before
        the creation recorded them). A seat whose clock ran out is not a bot seat: only its
        one move is the bot's (the clock runner makes it)."""
        handed = self.handed or {}
        if player in handed:
            return handed[player]
        return self.bots.get(player) or (recorded or {}).get(player)

    def playing_bots(self, recorded: dict[str, str] | None = None) -> dict[str, str]:
        """Every seat a bot plays now, in seat order (the views' `bots`)."""
        return {p: kind for p in self.players
                if (kind := self.bot_kind(p, recorded)) is not None}

    def hand_seat(self, player: Any, bot: Any, by: str = HOST_BY) -> None:
        """Record who plays a seat from now on: a bot by its kind, or (None) its player again;
        `by` the host, or the seat itself taking its seat back ("seat").

        The service checks the bot's kind and who may ask; here the seat and the game's state.
        """
        if player not in self.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=player)
        if bot is not None and not isinstance(bot, str):
            raise BadCommand(N_("a seat is handed to a bot by its kind, or back with null"))
        self.check_in_play()
        if (self.handovers or {}).get(player, 0) >= HANDOVERS_PER_SEAT:
            raise BadCommand(N_("%(player)s's seat has been handed over %(n)s times in this game, "
                                "the most a seat may be: play on as it stands"),
                             player=player, n=HANDOVERS_PER_SEAT)
        self.acting(by, self._seat_handed, player=player, bot=bot)
