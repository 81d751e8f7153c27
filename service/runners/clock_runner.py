"""The clock runner: one per store, it plays the move of a seat whose clock ran out.

A game created with a clock (docs/api.md, (table)) is recorded beside it by service.table.clocked's
`Clocked`. The runner finds those records when it starts, then its feed, its subscriber to
the process's log follower (service/store/follower.py), tells it of every new clocked game and every
change to one. For each game in play it computes, from the stored state alone, when each
awaited seat's clock reaches 0 (domain.core.clocks.deadline: the stored timestamps, never the
time a move was seen), sleeps until the earliest, and then stores `ClockExpired` (by clock) and
that seat's move by the server's heuristic bot (by bot), in one write
(service.app.Games.expire_clocks): never before the deadline, which the domain checks against
the time the event is stored at, and verification again against the stored timestamps.

Many clocks may run out together (issue 32, item 6: 2,000 in one second): up to a second before a
deadline (AHEAD_SECONDS) the runner copies the game and lets the bot choose the move; at the
deadline it only makes the two events, for every game due, earliest first, and stores up to
BATCH games' in one transaction (DueRunner's one loop hands it every game due at once:
`_visited`). It keeps each game as it last looked at it until the log says
someone else changed it (its own writes are not looked at again); a copy gone stale is refused
by the store's unique key, and that game's expiry is tried alone, read afresh. How late each
`ClockExpired` was stored is in GET /metrics (gruft_clock_expired_late_seconds). A seat's move
that comes after its deadline does not wait for the runner: that request stores the clock's move
itself (CL-1, service.app.Games.command).

Exactly one runner works for a store: whoever holds its lock (service/runners/machinery.py's RunnerLock
under the name "clocks", as the bot runner holds "bots"), released by the operating system or
the database when its holder dies, so a standby takes over and plays, at once, every move whose
deadline passed meanwhile. A runner that dies between choosing and saving has stored nothing.
It runs beside the bot runner: a thread of an API worker (GRUFT_BOTS=embedded) or in `gruft
bots` (GRUFT_BOTS=external).
"""

from __future__ import annotations

import logging
import random
import secrets
import time
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.persistence import OperationalError

from domain.core import Game
from domain.core.clocks import deadline
from service import Games
from service.caches import CLOCK_GAMES
from service.errors import Conflict, GameNotFound
from service.readmodels import views_env
from service.runners.machinery import DueRunner, EmbeddedLoop, RunnerLock
from service.store.repository import copy_game
from service.table.clocked import CLOCKED_TOPIC, clock_move

log = logging.getLogger("gruft.clocks")
# The clock's move chosen ahead: (the game's version, the seat, a private copy, the move or None).
Prepared = tuple[int, str, Game, dict[str, Any] | None]
# A clock found run out: the game, the seat, its deadline, the move chosen ahead (if any).
Expiring = tuple[Game, str, datetime, Prepared | None]

LOCK_NAME = "clocks"
BUSY_RETRY_SECONDS = 0.2  # after the store was busy (nothing was written)
PAGE = 500
BATCH = 200  # expiries stored in one write at most (each game's events, one transaction)
AHEAD_SECONDS = 1.0  # the clock's move is chosen this long before its deadline, stored at it
KEEP_SECONDS = 5.0  # a game looked at again within this is kept as seen (not read again)


class ClockRunner(DueRunner):
    """Plays the moves of the seats out of time, in every clocked game of one store."""

    log = log
    what = "clock runner"

    def __init__(self, games: Callable[[], Games | None],
                 rng: random.Random | None = None) -> None:
        super().__init__(games)
        # The bot's choices among moves it rates alike are secret, as the bot runner's are.
        self.rng = rng or secrets.SystemRandom()
        self.expired = 0  # ClockExpired (each with its move) this runner stored
        self.late: list[float] = []  # seconds between each deadline and its ClockExpired
        self.active: set[UUID] = set()  # clocked games in play
        # The game as last looked at, until the log says it changed (then read again): a game
        # met at its deadline is not read from the store once more (2,000 clocks running out
        # together). A copy gone stale meanwhile is refused by the store's unique key.
        # With it, the clock's move chosen ahead of the deadline: (version, seat, a private
        # copy, the move), so that at the deadline only the events are made and stored.
        self._seen: dict[UUID, tuple[Game, Prepared | None]] = {}
        self._own: dict[UUID, int] = {}  # the version this runner stored last, by game
        self._changed: set[UUID] = set()  # noted as changed since the runner last looked

    def start(self, games: Games) -> None:
        """Find every clocked game; look at each at once (a deadline passed meanwhile is met)."""
        head = games.follower.head()
        found: set[UUID] = set()
        start = 1
        while start <= head:
            page = games.recorder.select_notifications(start, PAGE, stop=head,
                                                       topics=(CLOCKED_TOPIC,))
            found.update(games.mapper.to_domain_event(n).game_id for n in page)
            if len(page) < PAGE:
                break
            start = page[-1].id + 1
        now = time.monotonic()
        with self._lock:
            self.active = found
            self._due = {game_id: now for game_id in found}
            self._seen.clear()  # a run starts from the stored state
            self._own.clear()
            self._changed.clear()
        self.feed.position = head

    def noted(self, notifications: Sequence[Any], mapper: Any) -> None:
        """Note the clocked games `notifications` begin or change (from the follower)."""
        now = time.monotonic()
        noted = False
        with self._lock:
            for note in notifications:
                if note.topic == CLOCKED_TOPIC:
                    game_id = mapper.to_domain_event(note).game_id
                    self.active.add(game_id)
                elif note.originator_id in self.active:
                    game_id = note.originator_id  # its deadlines may have moved
                    if note.originator_version <= self._own.get(game_id, 0):
                        continue  # this runner's own write: already looked at
                    self._seen.pop(game_id, None)
                    self._changed.add(game_id)
                else:
                    continue
                self._due[game_id] = now
                noted = True
        if noted:  # the runner's thread wakes for clocked games only, not for every command
            self._wake.set()

    def _visit(self, games: Games, game_id: UUID) -> Expiring | None:
        """The clock of this game that ran out (the game, the seat, its deadline), if any, for
        `_visited` to store with the others due; else the game is looked at again at its next
        deadline."""
        with self._lock:
            game, prepared = self._seen.pop(game_id, None) or (None, None)
            self._changed.discard(game_id)
        try:
            game = game or games.game(game_id)
        except GameNotFound:
            self._drop(game_id)
            return None
        except OperationalError:
            self._look_again(game_id, BUSY_RETRY_SECONDS)
            return None
        if game.status != "in_progress":
            self._drop(game_id)
            return None
        now = datetime.now(UTC)
        # deadline() is None for clocks still waiting for the table (no ClocksStarted yet):
        # nothing runs out before they start; the ClocksStarted event wakes this game again.
        running = [(due, p) for p in game.to_act if p not in game.expired
                   and (due := deadline(game, p)) is not None]
        if not running:
            return None  # nobody's clock runs: looked at again when the game changes
        due, player = min(running)
        if due > now:
            ahead = (due - now).total_seconds()
            if ahead > AHEAD_SECONDS:  # kept only if due soon: the cache bounds the rest
                self._look_again(game_id, ahead - AHEAD_SECONDS,
                                 (game, None) if ahead - AHEAD_SECONDS <= KEEP_SECONDS else None)
                return None
            self._look_again(game_id, ahead, (game, self._prepare(game, player, prepared)))
            return None
        return game, player, due, prepared

    def _visited(self, games: Games, found: list[Any]) -> None:
        """Store the clocks found run out in this step, the earliest deadlines first, up to
        BATCH games a write."""
        expiring = sorted(found, key=lambda one: one[2])
        for start in range(0, len(expiring), BATCH):
            self._expire(games, expiring[start:start + BATCH])

    def _prepare(self, game: Game, player: str, prepared: Prepared | None) -> Prepared:
        """Choose the clock's move for `player` before the deadline, on a private copy (the
        ClockExpired changes nothing the bot reads); made and stored at the deadline."""
        if prepared is not None and prepared[:2] == (game.version, player):
            return prepared
        copy = copy_game(game)
        moves = copy.legal_moves(player)
        return game.version, player, copy, self._choose(copy, player, moves) if moves else None

    @staticmethod
    def _private(game: Game, player: str, prepared: Prepared | None
                 ) -> tuple[Game, dict[str, Any] | None]:
        """A private copy of `game` to expire `player`'s clock on, and the move chosen ahead
        (None: chosen now)."""
        if prepared is not None and prepared[:2] == (game.version, player):
            return prepared[2], prepared[3]
        return copy_game(game), None

    def _expire(self, games: Games, expiring: list[Expiring]) -> None:
        """Store the ClockExpired and the clock's move of each, many games in one write (a
        write each made 2,000 clocks run out together seconds late: issue 32, item 6)."""
        try:
            outcomes = games.expire_clocks(
                [(*self._private(game, player, prepared), player)
                 for game, player, _, prepared in expiring],
                self._choose)
        except OperationalError:  # the store was busy and wrote nothing
            for game, *_ in expiring:
                self._look_again(game.id, BUSY_RETRY_SECONDS)
            return
        for (game, player, due, _), outcome in zip(expiring, outcomes, strict=True):
            if isinstance(outcome, Conflict):  # someone moved first: looked at again
                self._look_again(game.id, 0.0)
            elif isinstance(outcome, Exception):
                # Not run out after all (the time of day stepped back, or the seat moved):
                # looked at again shortly, never stored early.
                log.info("clock of %s in %s not expired: %s", player, game.id, outcome)
                self._look_again(game.id, BUSY_RETRY_SECONDS)
            else:
                done, saved = outcome
                self.expired += 1
                stored = next(e for e in done.events if e["type"] == Game.ClockExpired.__name__)
                self.late.append((datetime.fromisoformat(stored["timestamp"]) - due)
                                 .total_seconds())
                with self._lock:
                    self._own[game.id] = done.version
                # the next seat's clock, if any
                self._look_again(game.id, 0.0, (saved, None) if saved is not None else None)

    def _choose(self, game: Game, player: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
        return clock_move(self.rng)(game, player, moves)

    def _look_again(self, game_id: UUID, seconds: float,
                    seen: tuple[Game, Prepared | None] | None = None) -> None:
        """Look at the game again in `seconds`; `seen`: the game as it stands now, if known,
        and the clock's move chosen ahead (kept up to service.caches.CLOCK_GAMES of them)."""
        with self._lock:
            at = time.monotonic() + seconds
            self._due[game_id] = min(at, self._due.get(game_id, at))
            if seen is not None and game_id not in self._changed and (  # else read afresh
                    game_id in self._seen or len(self._seen) < CLOCK_GAMES.entries):
                self._seen[game_id] = seen
        self._wake.set()

    def _drop(self, game_id: UUID) -> None:
        with self._lock:
            self.active.discard(game_id)
            self._seen.pop(game_id, None)
            self._own.pop(game_id, None)
            self._changed.discard(game_id)


def clock_lock(env: Any) -> RunnerLock:
    """The store's clock runner lock."""
    return RunnerLock(views_env(dict(env)), LOCK_NAME)


def embedded_clocks(games: Games) -> EmbeddedLoop:
    """The clock runner as a thread of an API worker (its owner, api/worker.py, keeps it),
    running while it holds the lock."""
    return EmbeddedLoop(games, ClockRunner(weakref.ref(games)), clock_lock(games.storage),
                        "gruft-clocks")
