"""Game clocks: each seat's bank of seconds, run while the seat is awaited, from stored times.

A clock is chosen when a game is created (`{"bank": seconds, "increment": seconds}`) and recorded
in its creation event. The time a move used is the difference between the stored timestamps of
the event that made the seat awaited and of the seat's move: `tick` runs as each event is applied,
live or on replay, and reads only the event's own timestamp, never the clock on the wall. The
increment is added after each of the seat's own moves. A running clock that reaches 0 lets the
server record `ClockExpired` for that seat (no earlier than its deadline, which verification
checks against the stored timestamps) and play that one move with its bot.

When the clocks start (docs/api.md, "The table"): a clock recorded with `"start": "ready"` (every
game the service creates, forks and rematches included) waits until the table is
ready, recorded as `ClocksStarted`: after the first move a person makes (a seat's or the host's,
never a bot's; that move is free), when every seat a person holds has the game open, or when the
host starts them, whichever comes first. Until then no seat's bank runs. A clock recorded without
`start` (every game created before) started with the game's creation, and still does on replay.

Deadlines are enforced (the table's ruling CL-1, docs/rules/*.md): a seat's move that comes after
its deadline is refused (`OutOfTime`, `out_of_time`) and the server stores the clock's move
instead; verification refuses a seat's move stored after its deadline (`clock_late`), by the
same comparison (`late`) of the stored timestamps. The one move the bot makes for a seat whose
clock ran out (after its `ClockExpired`) is the clock's own, never late.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from domain.core.chain import BOT, CLOCK
from domain.core.errors import BadCommand, BadSetup, OutOfTime
from domain.core.words import N_

BANK_MAX = 7 * 24 * 3600  # seconds: a correspondence game's week
INCREMENT_MAX = 24 * 3600
EXPIRED = "ClockExpired"  # the event that records a seat's clock running out
READY = "ready"  # a clock's `start`: the clocks wait for the table (ClocksStarted)
# Why the clocks started (ClocksStarted's `reason`): a person's first move, every seat a person
# holds at the table, the host's word.
MOVED, PRESENT, HOST_STARTED = "move", "present", "host"
START_REASONS = (MOVED, PRESENT, HOST_STARTED)
RULE = "CL-1"  # the table's ruling (docs/rules/*.md): a seat's move after its deadline is refused


def check_clock(clock: Any) -> dict[str, float] | None:
    """A clock as chosen at creation, checked: `{"bank", "increment"}` in seconds, or None."""
    if clock is None:
        return None
    if not isinstance(clock, dict) or not {"bank", "increment"} <= set(clock) <= {
            "bank", "increment", "start"} or clock.get("start", READY) != READY:
        raise BadSetup(N_('clock must be {"bank": seconds, "increment": seconds}'))
    for name, low, high in (("bank", 1, BANK_MAX), ("increment", 0, INCREMENT_MAX)):
        value = clock[name]
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise BadSetup(N_("clock %(name)s must be a number of seconds"), name=name)
        if not low <= value <= high:
            raise BadSetup(N_("clock %(name)s must be from %(low)s to %(high)s seconds"), name=name,
                           low=low, high=high)
    checked = {"bank": clock["bank"], "increment": clock["increment"]}
    if "start" in clock:  # recorded only by games whose clocks wait for the table
        checked["start"] = READY
    return checked


def waiting_clock(clock: Any) -> Any:
    """A clock chosen for a new game (created, forked, a rematch): it waits for the table."""
    if not isinstance(clock, dict):  # None, or not a clock at all (check_clock refuses it)
        return clock
    return {**clock, "start": READY}


def running(game: Any) -> bool:
    """Whether `game`'s clocks run: it has a clock that started (at creation, or ClocksStarted)."""
    clock = game.clock
    return clock is not None and ("start" not in clock or game.clocks_started)


def waiting(game: Any) -> bool:
    """Whether `game` has clocks that wait for the table (no ClocksStarted yet)."""
    clock = game.clock
    return clock is not None and "start" in clock and not game.clocks_started


def tick(game: Any, event: Any) -> None:
    """Run the clocks on to `event`, just applied to `game`: a seat no longer awaited (or that
    just moved) is charged the time since its clock started, a seat newly awaited starts.

    Assignments only, from the event's stored timestamp: replay gives the same clocks. Clocks
    that wait for the table do nothing until ClocksStarted.
    """
    if not running(game):
        return
    now: datetime = event.timestamp
    kind = type(event).__name__
    fields = event.__dict__
    mover = fields.get("player") if kind in game.COMMAND_EVENTS else None
    ran_out = fields.get("player") if kind == EXPIRED else None
    awaited = set() if game.finished else set(game.to_act)
    left = dict(game.clock_left) if game.clock_left is not None else {
        p: float(game.clock["bank"]) for p in game.players}
    since = dict(game.clock_since or {})
    for player in list(since):
        if player in awaited and player not in (mover, ran_out):
            continue
        used = (now - since.pop(player)).total_seconds()
        left[player] = max(0.0, left[player] - used)
        if player == mover:
            left[player] += game.clock["increment"]
        elif player == ran_out:
            left[player] = 0.0
    for player in awaited:
        since.setdefault(player, now)
    game.clock_left, game.clock_since = left, since
    if mover is not None and mover in game.expired:
        game.expired = [p for p in game.expired if p != mover]  # the bot made the move


def deadline(game: Any, player: str) -> datetime | None:
    """When `player`'s running clock reaches 0; None if it is not running."""
    if not running(game) or not game.clock_since or player not in game.clock_since:
        return None
    return game.clock_since[player] + timedelta(seconds=game.clock_left[player])


def clocks_at(game: Any, now: datetime) -> dict[str, dict[str, Any]] | None:
    """Every seat's clock as of `now` (a view's `clocks`); None for a game without a clock."""
    if game.clock is None:
        return None
    left = game.clock_left or {p: float(game.clock["bank"]) for p in game.players}
    since = game.clock_since or {}
    out = {}
    for player in game.players:
        remaining = left.get(player, 0.0)
        if player in since:
            remaining = max(0.0, remaining - (now - since[player]).total_seconds())
        out[player] = {"remaining": round(remaining, 3), "running": player in since}
    return out


def late(game: Any, player: str, at: datetime, by: str | None) -> datetime | None:
    """The deadline `player` missed if their move, sent `by` and stored `at`, comes after it
    (CL-1); None when it is in time or no clock of theirs runs. The bot's move for a seat whose
    clock ran out is the clock's own: never late."""
    if by == BOT and player in game.expired:
        return None
    due = deadline(game, player)
    return due if due is not None and at > due else None


def in_time(game: Any, player: str, by: str | None) -> datetime | None:
    """A live move's check (CL-1): the time it is stored at (each of its events takes it, so
    verification compares what was compared here), or None when no clock runs; refused with
    `OutOfTime` after the seat's deadline. Never in a replay: the verifier checks the record."""
    if not running(game):
        return None
    now = max(datetime.now(UTC), game.modified_on)  # the log stays in time order
    due = late(game, player, now, by)
    if due is not None:
        raise OutOfTime(RULE, N_("%(player)s's clock ran out at %(due)s; the move came at "
                                 "%(now)s, and the clock's move is played instead"),
                        player=player, due=due.isoformat(), now=now.isoformat())
    return now


class Clocked:
    """The seats' clocks, as ``Game`` keeps them: class defaults for a game without one (the
    clock chosen at creation, each seat's seconds left as of its clock's start, when each running
    clock started, the seats whose clock ran out and whose move is now the bot's)."""

    clock = None
    clock_left = None
    clock_since = None
    expired = ()
    clocks_started = False  # ClocksStarted recorded (clocks that wait for the table: READY)

    def expire_clock(self, player: Any, now: datetime) -> None:
        """Record that `player`'s clock ran out (`now`: the time it is stored at): never before
        its deadline, so that verification, with the stored timestamps, finds the same."""
        if player not in self.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=player)
        self.check_in_play()
        if player in self.expired:
            raise BadCommand(N_("%(player)s's clock has already run out; the bot moves for them"),
                             player=player)
        due = deadline(self, player)
        if due is None:
            raise BadCommand(N_("%(player)s's clock is not running"), player=player)
        if now < due:
            raise BadCommand(N_("%(player)s's clock runs until %(due)s, not out at %(now)s"),
                             player=player, due=due.isoformat(), now=now.isoformat())
        self.acting(CLOCK, self._clock_expired, player=player)  # the server, its clock run out
