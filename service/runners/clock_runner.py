"""The clock runner: one per store, it plays the move of a seat whose clock ran out.

A game created with a clock (docs/api.md, (table)) is recorded beside it by service.table.clocked's
`Clocked`. The runner finds those records when it starts, then its feed, its subscriber to
the process's log follower (service/store/follower.py), tells it of every new clocked game and every
change to one. For each game in play it computes, from the stored state alone, when each
awaited seat's clock reaches 0 (domain.core.clocks.deadline: the stored timestamps, never the
time a move was seen), sleeps until the earliest, and then stores `ClockExpired` (by clock) and
that seat's move by the server's heuristic bot (by bot), in one write
(service.app.Games.expire_clock): never before the deadline, which the domain checks against
the time the event is stored at, and verification again against the stored timestamps.

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

from bots import make_bot
from domain.core import BadCommand, Game, Refusal
from domain.core.clocks import deadline
from service import Games
from service.errors import Conflict, GameNotFound
from service.readmodels import views_env
from service.runners.machinery import DueRunner, EmbeddedLoop, RunnerLock
from service.table.clocked import CLOCKED_TOPIC

log = logging.getLogger("gruft.clocks")

LOCK_NAME = "clocks"
CLOCK_BOT = "heuristic"  # docs/api.md: the move of a seat out of time is the heuristic bot's
BUSY_RETRY_SECONDS = 0.2  # after the store was busy (nothing was written)
PAGE = 500


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
                else:
                    continue
                self._due[game_id] = now
                noted = True
        if noted:  # the runner's thread wakes for clocked games only, not for every command
            self._wake.set()

    def _visit(self, games: Games, game_id: UUID) -> None:
        """Expire the clocks of this game that ran out; then look again at its next deadline."""
        try:
            game = games.game(game_id)
        except GameNotFound:
            self._drop(game_id)
            return
        except OperationalError:
            self._look_again(game_id, BUSY_RETRY_SECONDS)
            return
        if game.status != "in_progress":
            self._drop(game_id)
            return
        now = datetime.now(UTC)
        # deadline() is None for clocks still waiting for the table (no ClocksStarted yet):
        # nothing runs out before they start; the ClocksStarted event wakes this game again.
        running = [(due, p) for p in game.to_act if p not in game.expired
                   and (due := deadline(game, p)) is not None]
        if not running:
            return  # nobody's clock runs: looked at again when the game changes
        due, player = min(running)
        if due > now:
            self._look_again(game_id, (due - now).total_seconds())
            return
        self._expire(games, game, player, due)

    def _expire(self, games: Games, game: Game, player: str, due: datetime) -> None:
        try:
            outcome = games.expire_clock(game.id, player, self._choose)
        except Conflict:  # someone moved first: the deadlines are looked at again
            self._look_again(game.id, 0.0)
        except OperationalError:  # the store was busy and wrote nothing
            self._look_again(game.id, BUSY_RETRY_SECONDS)
        except (BadCommand, Refusal) as exc:
            # Not run out after all (the time of day stepped back, or the seat moved): looked
            # at again shortly, never stored early.
            log.info("clock of %s in %s not expired: %s", player, game.id, exc)
            self._look_again(game.id, BUSY_RETRY_SECONDS)
        else:
            self.expired += 1
            stored = next(e for e in outcome.events if e["type"] == Game.ClockExpired.__name__)
            self.late.append((datetime.fromisoformat(stored["timestamp"]) - due).total_seconds())
            self._look_again(game.id, 0.0)  # the next seat's clock, if any

    def _choose(self, game: Game, player: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
        return make_bot(CLOCK_BOT, game.KEY, self.rng).choose(game, player, moves)

    def _look_again(self, game_id: UUID, seconds: float) -> None:
        with self._lock:
            at = time.monotonic() + seconds
            self._due[game_id] = min(at, self._due.get(game_id, at))
        self._wake.set()

    def _drop(self, game_id: UUID) -> None:
        with self._lock:
            self.active.discard(game_id)


def clock_lock(env: Any) -> RunnerLock:
    """The store's clock runner lock."""
    return RunnerLock(views_env(dict(env)), LOCK_NAME)


def embedded_clocks(games: Games) -> EmbeddedLoop:
    """The clock runner as a thread of an API worker (its owner, api/worker.py, keeps it),
    running while it holds the lock."""
    return EmbeddedLoop(games, ClockRunner(weakref.ref(games)), clock_lock(games.storage),
                        "gruft-clocks")
