"""Bot seats: which seats of a game the server plays, and with which bot.

The assignment is public and never changes. It lives in a small aggregate of its own beside
the game (like the token hashes), saved in the same transaction, and only for games that have
bot seats: the game's own events, its replay document and their verification are untouched —
a bot's moves are stored as the commands of that seat, like anybody's. The bots themselves
live in `bots/`, which plays these seats (service.runners.bot_runner); the service only records and shows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import get_topic

from domain.core import BadSetup
from domain.core.words import N_
from service.store.topics import stored_as

# The bots a seat may be given (docs/api.md, POST /games); every game has both (tests/bots).
BOT_KINDS = ("heuristic", "random")


@stored_as("service.seats")
class BotSeats(Aggregate):
    """The seats of one game that the server plays: name -> bot kind."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:bot-seats:{game_id}")

    @event("Assigned")
    def __init__(self, game_id: UUID, seats: dict[str, str]) -> None:
        self.game_id = game_id
        self.seats = dict(seats)


# The topic of the one event a BotSeats has: the bot runner finds bot games by it.
ASSIGNED_TOPIC = get_topic(BotSeats.Assigned)  # type: ignore[attr-defined]


def _handed_topics() -> tuple[str, ...]:
    """The stored topics of SeatHanded: the shared core's class and each game's subclass."""
    from domain import available_games, game_class
    from domain.core import Game

    classes = [Game, *(game_class(key) for key in available_games())]
    return tuple(sorted({get_topic(cls.SeatHanded) for cls in classes}))


# A seat handed to a bot or back (domain.core.game): the bot runner looks at such games too.
HANDED_TOPICS = _handed_topics()


def check_bots(bots: Any, requested: list[str], seated: list[str]) -> dict[str, str]:
    """The bot seats asked for, by the names the game seated; BadSetup if any is wrong.

    `requested` are the names as sent and `seated` the game's own (the same order), so a name
    the game normalised is still found by its name as sent.
    """
    if bots is None:
        return {}
    if not isinstance(bots, Mapping):
        raise BadSetup(N_("bots must be an object: {player name: bot}"))
    by_name = dict(zip(requested, seated, strict=True))
    by_name.update({name: name for name in seated})
    found: dict[str, str] = {}
    for name, kind in bots.items():
        seat = by_name.get(name) if isinstance(name, str) else None
        if seat is None:
            raise BadSetup(N_("bots: %(name)r does not play in this game"), name=name)
        if kind not in BOT_KINDS:
            raise BadSetup(N_("bots: %(kind)r is not a bot (bots: %(bot_kinds)s)"), kind=kind,
                           bot_kinds=', '.join(BOT_KINDS))
        if seat in found:
            raise BadSetup(N_("bots: %(seat)r is named twice"), seat=seat)
        found[seat] = kind
    return {name: found[name] for name in seated if name in found}  # in seat order


def check_host_seat(host_seat: Any, requested: list[str], seated: list[str],
                    bots: Mapping[str, str]) -> str | None:
    """The seat the organiser plays (by the name the game seated), or None; BadSetup if it is
    no seat of the game, or a bot's."""
    if host_seat is None:
        return None
    by_name = dict(zip(requested, seated, strict=True))
    by_name.update({name: name for name in seated})
    seat = by_name.get(host_seat) if isinstance(host_seat, str) else None
    if seat is None:
        raise BadSetup(N_("host_seat: %(host_seat)r does not play in this game"), host_seat=host_seat)
    if seat in bots:
        raise BadSetup(N_("host_seat: %(seat)r is a bot's seat"), seat=seat)
    return seat


def with_bots(view: dict[str, Any], bots: Mapping[str, str] | None) -> dict[str, Any]:
    """A view that names its game's bot seats, if it has any (other views stay as they were)."""
    if bots:
        view["bots"] = dict(bots)
    return view
