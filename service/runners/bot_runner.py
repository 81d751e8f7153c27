"""The server plays its games' bot seats (`"bots"` of POST /games): one bot runner per store.

Exactly one runner plays for a store: whoever holds its runner lock (service/runners/machinery.py's
RunnerLock under the name "bots": an exclusive flock beside the SQLite views, or a PostgreSQL
advisory lock), which the operating system or the server releases when the holder dies, so a
standby takes over. A runner is a daemon thread in an API worker (GRUFT_BOTS=embedded, the
default: every worker tries the lock, one wins, the others retry every few seconds) or a
`gruft bots` process (GRUFT_BOTS=external for the workers).

The runner works from the stored state alone. On start it finds every game with bot seats (the
service's BotSeats records, by their event's topic) or a seat handed to a bot (SeatHanded) and
looks at each; then its feed, its subscriber to the process's log follower
(service/store/follower.py), tells it of every new bot game, every seat handed over and every change
to a bot game, and it looks again at that game. A bot awaited there moves
GRUFT_BOT_DELAY seconds later (0.3 by default, so people can follow; 0 in tests) through
Games.run_command for its seat — the same commands and rules as anybody's — with the version
it chose from as `expected_version`. If someone moved meanwhile, the store refuses the command
(Conflict) and the runner looks again; a runner that dies between choosing and saving has stored
nothing, and the next one chooses again.
"""

from __future__ import annotations

import logging
import random
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import OperationalError

from bots import make_bot
from domain.core import BadCommand, OutOfTime, Refusal, Viewer
from domain.core.chain import BOT
from service import Games, operator_metrics
from service.errors import Conflict, GameNotFound
from service.readmodels import views_env
from service.runners.clock_runner import ClockRunner, clock_lock
from service.runners.machinery import DueRunner, EmbeddedLoop, RunnerLock
from service.settings import Settings, storage_env
from service.table.seats import ASSIGNED_TOPIC, HANDED_TOPICS

log = logging.getLogger("gruft.bots")

LOCK_NAME = "bots"
DEFAULT_DELAY = Settings().bot_delay  # seconds between a bot being awaited and its move
PAGE = 500  # notifications read at a time
BUSY_RETRY_SECONDS = 0.5  # after the store was busy (nothing was written)


class BotRunner(DueRunner):
    """Plays the bot seats of every game of one store, from what the store holds.

    `games` answers the Application to play through, or None once it is gone (an API worker's
    runner holds it weakly, so a worker's Application can be collected).
    """

    log = log
    what = "bot runner"

    def __init__(self, games: Callable[[], Games | None], *, delay: float = DEFAULT_DELAY,
                 rng: random.Random | None = None) -> None:
        super().__init__(games)
        self.delay = delay
        # The bots' choices among moves they rate alike are secret, as a pending move is: the
        # operating system's source, never the game's seed nor a generator one could recover.
        self.rng = rng or secrets.SystemRandom()
        self.moves = 0  # bot commands this runner stored
        self.attempts = 0  # bot commands it sent (each one more than stored lost a race)
        self.active: dict[UUID, dict[str, str]] = {}  # bot games in play: seat -> bot kind

    def start(self, games: Games) -> None:
        """Find every game with bot seats; look at each at once (a move lost before is made)."""
        head = games.follower.head()
        now = time.monotonic()
        with self._lock:
            self.active = dict(self._assignments(games, 1, head))
            for notification in self._log_pages(games, 1, head, HANDED_TOPICS):
                self.active.setdefault(notification.originator_id, {})
            self._due = {game_id: now for game_id in self.active}
        self.feed.mapper, self.feed.position = games.mapper, head

    def noted(self, notifications: Sequence[Any], mapper: Any) -> None:
        """Note the bot games that `notifications` begin or change (from the follower)."""
        later = time.monotonic() + self.delay
        noted = False
        with self._lock:
            for notification in notifications:
                if notification.topic == ASSIGNED_TOPIC:
                    game_id, seats = self._assigned(mapper, notification)
                    self.active[game_id] = seats
                elif notification.topic in HANDED_TOPICS:
                    # a seat handed to a bot (or back): the game's state says which seats
                    game_id = notification.originator_id
                    self.active.setdefault(game_id, {})
                elif notification.originator_id in self.active:
                    game_id = notification.originator_id
                else:
                    continue
                self._due.setdefault(game_id, later)
                noted = True
        if noted:  # the runner's thread wakes for bot games only, not for every command
            self._wake.set()

    # -- following the log ---------------------------------------------------------------

    @staticmethod
    def _log_pages(games: Games, start: int, stop: int, topics: tuple[str, ...] = ()
                       ) -> Iterator[Any]:
        """The notifications between two positions of the log (of `topics` only, if given),
        read a page at a time."""
        while start <= stop:
            page = games.recorder.select_notifications(start, PAGE, stop=stop,
                                                       topics=topics)
            yield from page
            if len(page) < PAGE:
                return
            start = page[-1].id + 1

    def _assignments(self, games: Games, start: int, stop: int
                     ) -> Iterator[tuple[UUID, dict[str, str]]]:
        """The bot seats recorded between two positions of the log."""
        for notification in self._log_pages(games, start, stop, (ASSIGNED_TOPIC,)):
            yield self._assigned(games.mapper, notification)

    @staticmethod
    def _assigned(mapper: Any, notification: Any) -> tuple[UUID, dict[str, str]]:
        assigned = mapper.to_domain_event(notification)
        return assigned.game_id, dict(assigned.seats)

    # -- playing -------------------------------------------------------------------------

    def _visit(self, games: Games, game_id: UUID) -> None:
        """Make one move for a bot awaited in this game, if any; then look again later."""
        with self._lock:
            seats = self.active.get(game_id)
        if seats is None:
            return
        try:
            game = games.game(game_id)
        except GameNotFound:
            self._drop(game_id)
            return
        except OperationalError:
            self._look_again(game_id, time.monotonic() + BUSY_RETRY_SECONDS)
            return
        if game.status != "in_progress":  # finished (or aborted): nothing more to play
            self._drop(game_id)
            return
        for player in game.to_act:
            kind = game.bot_kind(player, seats)  # handed over, else a bot seat
            moves = game.legal_moves(player) if kind is not None else []
            if not moves:
                continue
            try:
                move = make_bot(kind, game.KEY, self.rng).choose(game, player, moves)
            except Exception:  # a failing bot stalls its own game only, until the game changes
                log.exception("bot %s (%s) in game %s failed to choose", player, kind, game_id)
                return
            try:
                self.attempts += 1
                games.run_command(game_id, Viewer(player=player), move,
                                  expected_version=game.version, by=BOT)
            except Conflict:  # someone else moved first: look at the game as it is now
                self._look_again(game_id, time.monotonic())
            except OperationalError:  # the store was busy and wrote nothing: try again
                self._look_again(game_id, time.monotonic() + BUSY_RETRY_SECONDS)
            except OutOfTime:  # CL-1: too late; that request stored the clock's move instead
                log.info("bot %s (%s) in game %s out of time", player, kind, game_id)
                self._look_again(game_id, time.monotonic())
            except (BadCommand, Refusal):
                # The rules refused a move they listed as legal: a bug, not to be retried in a
                # loop; the game is looked at again when it changes.
                log.exception("bot %s (%s) in game %s: move %r refused", player, kind, game_id,
                              move)
            else:
                self.moves += 1
                operator_metrics.BOT_MOVES.inc()
                self._look_again(game_id, time.monotonic() + self.delay)  # the next bot, if any
            return

    def _look_again(self, game_id: UUID, at: float) -> None:
        with self._lock:
            self._due[game_id] = at

    def _drop(self, game_id: UUID) -> None:
        with self._lock:
            self.active.pop(game_id, None)


# -- the embedded runner ---------------------------------------------------------------------

def embedded_bots(games: Games) -> EmbeddedLoop:
    """The bot runner as a thread of an API worker (its owner, api/worker.py, keeps it), playing
    while it holds the lock."""
    # Where the lock lives; computed once, so an in-memory store's lock is its own.
    lock = RunnerLock(views_env(dict(games.storage)), LOCK_NAME)
    runner = BotRunner(weakref.ref(games), delay=games.settings.bot_delay)
    return EmbeddedLoop(games, runner, lock, "gruft-bots")


# -- `gruft bots` ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    """What a runner did so far."""

    moves: int
    games: int
    seconds: float


def run(env: Mapping[str, str] | None = None, *, lock_wait: float | None = None,
        stop: threading.Event | None = None, report: Callable[[Progress], None] | None = None,
        report_every: float = 5.0) -> Progress:
    """Play the store's bot seats with the lock held, until stopped (`gruft bots`).

    Without `lock_wait` it waits for the lock as long as it takes (a hot standby); with it,
    RunnerBusy if the lock is still held after that long.
    """
    env = storage_env(env)
    stop = stop or threading.Event()
    delay = Settings.read(env).bot_delay  # a bad one is said before the lock is waited for
    lock = RunnerLock(views_env(env), LOCK_NAME)
    lock.take(lock_wait, stop, "another bot runner holds the lock")
    games = Games(env)
    runner = BotRunner(lambda: games, delay=delay)
    # The clock runner beside it, under a lock of its own (a standby waits for it).
    clocks = threading.Thread(target=ClockRunner(lambda: games).run_while_held,
                              args=(clock_lock(env), stop), daemon=True, name="gruft-clocks")
    clocks.start()
    started = time.monotonic()

    def progress() -> Progress:
        return Progress(runner.moves, len(runner.active), time.monotonic() - started)

    reporter = None
    if report is not None:
        def tell() -> None:
            while not stop.wait(report_every):
                report(progress())
        reporter = threading.Thread(target=tell, daemon=True, name="gruft-bots-report")
        reporter.start()
    try:
        runner.run_while_held(lock, stop)
    finally:
        stop.set()
        if reporter is not None:
            reporter.join()
        clocks.join(30)
        games.close()
    return progress()
