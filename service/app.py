"""The games Application: store games and run commands on them — load, command, save.

What viewers read (service.reads), the arbiter's work (service.audit.arbiter), seats and tokens
(service.table.access) and live delivery to streams (service.live.delivery, service.live.watches) each live in a
module of their own; the Application builds one of each, and they share its repository.
"""

from __future__ import annotations

import logging
import secrets
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from threading import local
from typing import Any
from uuid import UUID

from eventsourcing.application import ProjectorFunction
from eventsourcing.persistence import IntegrityError, PersistenceError
from eventsourcing.sqlite import SQLiteFactory

from domain import available_games, game_class
from domain.core import SPECTATOR, BadCommand, Game, GameError, OutOfTime, Refusal, Viewer, clocks
from domain.core.chain import BOT, HOST_BY, SEAT
from domain.core.names import check_seated_names
from domain.core.words import N_, Term
from service import operator_metrics
from service.audit.arbiter import Annotations, Arbiter, Origin
from service.audit.receipts import Receipts
from service.errors import Conflict, Forbidden, ServiceError, Unauthorized
from service.live.delivery import Delivery
from service.live.presence import Presence
from service.live.watches import Live
from service.reads import Reads, shown_event
from service.settings import Settings, storage_env
from service.store.ddl import retry_concurrent_ddl
from service.store.follower import Follower
from service.store.freshness import Freshness
from service.store.gaps import is_gap
from service.store.internals import SaveHooks, bound_retries, reconnect_promptly, tune_pool
from service.store.mapper import StoredShapeMapper
from service.store.repository import GameRepository, project_events
from service.table.access import Access, acting_player, check_host, is_host, seat_named, seat_right
from service.table.clocked import Clocked, clock_move, table_ready
from service.table.invitations import HOST_SEAT, Invitations
from service.table.rematch import RematchLink, rotated
from service.table.seats import BOT_KINDS, BotSeats, check_bots, check_host_seat
from service.table.tokens import carried_from, draw_salt, draw_seed, issue_credentials

RACE_ATTEMPTS = 50  # runs of one command without expected_version that lost the race to others
STORE_ATTEMPTS = 2  # tries of a store call that met a dead connection (the library's: 10)
log = logging.getLogger("gruft.storage")


@dataclass(frozen=True)
class NewGame:
    """What creating a game answers: its id, the tokens (only ever shown here) and its view."""

    game_id: UUID
    host_token: str
    player_tokens: dict[str, str]
    view: dict[str, Any]


@dataclass(frozen=True)
class CommandOutcome:
    """What a stored command answers: the new version and events, who is awaited, the status."""

    version: int
    events: list[dict[str, Any]]
    to_act: list[str]
    status: str
    receipt: dict[str, Any] | None = None  # signed by the server (service.audit.receipts), if it signs


class Games(SaveHooks):
    """The event-sourced store of every game, with its tokens."""

    name = "gruft"
    closed = False
    snapshotting_intervals: Mapping[type, int] = {}

    def __init__(self, env: Mapping[str, str] | None = None,
                 settings: Settings | None = None) -> None:
        self.settings = settings or Settings.read(env)  # gruft's own, read once
        env = storage_env(env)
        self.storage = env  # the resolved storage settings (data_dir, signing key)
        self.damaged: str | None = None  # why the store's files are damaged (service.store.health)
        interval = self.settings.snapshot_interval
        if interval > 0:
            self.snapshotting_intervals = {game_class(k): interval for k in available_games()}
        super().__init__(env=env)
        self.access = Access(self.repository)  # tokens to viewers, bot seats
        # The one reader of the log in this process (service/store/follower.py): the live updates,
        # the read models and the bot runner subscribe to it.
        self.follower = Follower(self.recorder, poll=self.settings.live_poll)
        weakref.finalize(self, self.follower.close)  # an Application let go without close()
        if self.follower.kind == "postgres":  # asking the store is a round trip: a command
            # trusts the cache as far as the follower heard (service/store/freshness.py), which is
            # subscribed before anything is cached, so it hears of every change to a cached game
            self.repository.freshness = Freshness(lambda: self.follower.listening,
                                                  self.repository.forget, self.follower.head())
            self.follower.hearing(self.repository.freshness.heard)
            self.follower.subscribe(self.repository.freshness)
        # Who waits for which game (streams, long polls) and how they learn of changes
        # (service/live/watches.py).
        self.live = Live(self.follower)
        # Who has each game open (service/live/presence.py): shared through the store between
        # processes, unless the store is in memory (one process).
        self.presence = Presence(self.recorder, shared=self.follower.kind is not None)
        self.reads = Reads(self.repository, self.access, self.live, self.presence)
        # Clocks that wait for the table start when every person's seat has it open.
        ready = weakref.WeakMethod(self.table_changed)
        self.presence.subscribe(lambda game_id: (found := ready()) and found(game_id))
        self.delivery = Delivery(self.repository, self.mapper, self.reads)
        self.live.forward = self.delivery.forward_cached
        self.arbiter = Arbiter(self.repository, self.save, self.store_new, self.reads.seals)
        # Signed receipts of accepted commands, once the server's key is given (sign_with).
        self.receipts: Receipts | None = None
        self._announcing = local()  # `later`: during a command's save, what it will announce
        self._clock_rng = secrets.SystemRandom()  # the clock's move for a late seat (CL-1)

    # -- infrastructure: safe under several threads, processes and machines ---------------

    def construct_factory(self, env: Any) -> Any:
        """eventsourcing's factory; SQLite connections get a statement cache and durability,
        PostgreSQL's pool reconnects as soon as the server is back."""
        factory = super().construct_factory(env)
        if isinstance(factory, SQLiteFactory):
            tune_pool(factory.datastore.pool, env.get("SQLITE_SYNCHRONOUS") or "NORMAL")
        reconnect_promptly(factory)
        return factory

    def construct_mapper(self) -> Any:
        """eventsourcing's mapper, writing an upcast event back as it was stored (a re-import
        of an older release's document: service/store/mapper.py)."""
        return self.factory.mapper(transcoder=self.construct_transcoder(),
                                   mapper_class=StoredShapeMapper)

    def construct_recorder(self) -> Any:
        """The events recorder; its tables are created race-safely (workers start together),
        and a store that is away is said within seconds (service.store.internals.bound_retries)."""
        recorder = bound_retries(retry_concurrent_ddl(super().construct_recorder), STORE_ATTEMPTS)
        if hasattr(recorder, "synchronous_commit"):  # PostgreSQL's (service/store/postgres.py)
            recorder.synchronous_commit = self.settings.postgres_synchronous_commit
        return recorder

    def construct_snapshot_store(self) -> Any:
        """The snapshot store; its table is created race-safely too."""
        store = retry_concurrent_ddl(super().construct_snapshot_store)
        if store is not None:
            bound_retries(store.recorder, STORE_ATTEMPTS)
        return store

    def construct_repository(self) -> GameRepository:
        """The repository with a per-worker cache that is forwarded by copy, never in place."""
        maxsize = int(self.env.get(self.AGGREGATE_CACHE_MAXSIZE) or 0)  # service.caches.GAMES
        return GameRepository(
            event_store=self.events,
            snapshot_store=self.snapshots,
            # no cache at 0 (or empty), where eventsourcing would keep every game read
            cache_maxsize=maxsize if maxsize > 0 else None,
            # Always, whatever AGGREGATE_CACHE_FASTFORWARD and DEEPCOPY_FROM_AGGREGATE_CACHE
            # say: a cache not forwarded goes stale when another worker writes (its commands
            # would then conflict forever), and a command run on the cached game itself would
            # leave a refused or lost command's changes in the cache.
            fastforward=True,
            deepcopy_from_cache=True,
        )

    def take_snapshot(self, aggregate_id: UUID, version: int | None = None,
                      projector_func: ProjectorFunction[Any, Any] = project_events) -> None:
        """Store a snapshot; failing to is logged, never the failure of a stored command.

        Snapshots are written after the command's events are committed: an error here (a
        locked SQLite file, a slot already taken) would otherwise answer 409 or 500 for a
        command that was stored. A missing snapshot only means replaying a few more events.
        """
        try:
            saved = self.saved_aggregate(aggregate_id)
            if saved is not None and saved.version == version:
                # The game just saved is that very state: no need to rebuild it from the store
                # as eventsourcing does (docs/performance.md, "What a command costs").
                self.snapshots.put([type(saved).Snapshot.take(saved)])
            else:  # a snapshot version inside a command's events: rebuilt at that version
                super().take_snapshot(aggregate_id, version, projector_func)
        except PersistenceError as exc:
            log.warning("snapshot of %s at version %s not stored: %s", aggregate_id, version, exc)

    def after_commit(self, recordings: list[Any]) -> None:
        """After every commit: wake this process's waiters on the games just saved at once."""
        newest: dict[UUID, int] = {}
        for recording in recordings:
            event = recording.domain_event
            if isinstance(event, Game.Event):
                newest[event.originator_id] = event.originator_version
        later = getattr(self._announcing, "later", None)
        if later is not None:
            later.update(newest)  # the command announces once its game is at hand (_share)
        elif newest:
            self.live.announce(newest.items())
        if self.follower.kind is None:
            self.follower.nudge()  # in memory: no other process writes, nothing polls

    def sign_with(self, sign: Any, key_id: str) -> None:
        """Sign a receipt for every accepted command with the server's key (docs/api.md)."""
        self.receipts = Receipts(sign, key_id)

    def close(self) -> None:
        """Stop following the log, then close the store. In a worker its owner (api/worker.py)
        calls this last, once every thread that reads the store (runners, the stream writer,
        the game log's appender) has ended: a query in flight on a connection another thread
        closes can crash the process (SQLite's C library)."""
        self.closed = True  # runners holding this Application (service/runners) stop
        self.live.close()
        self.presence.close()
        self.follower.close(then=super().close)

    # -- writing --------------------------------------------------------------------------

    def create_game(
        self,
        game: str,
        players: list[str],
        *,
        seed: int | str | None = None,
        options: dict[str, Any] | None = None,
        deal: dict[str, Any] | None = None,
        bots: dict[str, str] | None = None,
        clock: dict[str, Any] | None = None,
        host_seat: str | None = None,
    ) -> NewGame:
        """Start a game (seeded or stacked) and issue its tokens, in one transaction.

        `bots` gives seats to the server's bots (service.table.seats): recorded beside the game.
        `clock`: each seat's bank and increment (domain.core.clocks). `host_seat`: the seat the
        organiser plays with the host token, which then sees only that seat's secrets.
        """
        if seed is None:
            seed = draw_seed()
        cls = game_class(game)
        seated = cls.check_players(players)
        seats = check_bots(bots, players, seated)
        host_seat = check_host_seat(host_seat, players, seated, seats)
        aggregate = cls.start(players, seed=seed, options=options, deal=deal, salt=draw_salt(),
                              bots=seats, clock=clocks.waiting_clock(clock))  # recorded in its
        # creation; the clocks wait for the table (docs/api.md, "The table")
        return self.store_new(aggregate, seats, host_seat=host_seat)

    def store_imported(self, aggregate: Game,
                       annotations: list[dict[str, Any]] | None = None,
                       bots: dict[str, str] | None = None,
                       origin: dict[str, Any] | None = None) -> NewGame:
        """Store a game re-run from a verified replay document, under a new id and new tokens
        (a restore keeps the archived id: replays.archive), with the document's verified
        annotations (their chain holds: the events are the same); `bots`: the seats the
        server's bots play on (a restore's, as its creation recorded them); `origin`: an
        import's (service.audit.arbiter.origin_of), so that every export of the copy says whose game
        it copies and what its new host adds is never read as the original's.

        Its seats are the recorded names: they must follow today's name rule (no look-alike
        seats here), though the document verifies whatever rule it was recorded under.
        """
        check_seated_names(list(aggregate.players))
        desk = Annotations.restored(aggregate.id, aggregate.seed_commitment, annotations or [])
        also: tuple[Any, ...] = (desk,) if desk is not None else ()
        if origin is not None:
            also += (Origin(game_id=aggregate.id, origin=origin),)
        return self.store_new(aggregate, bots or None, also=also)

    def store_new(self, aggregate: Game, bots: dict[str, str] | None = None,
                  also: tuple[Any, ...] = (), host_seat: str | None = None,
                  carried: dict[str, Any] | None = None) -> NewGame:
        """Store a new game with its tokens (and its bot seats, its clock's record, `also`
        what goes with it), in one transaction; answer its id, tokens and public view.
        `carried`: tokens of an earlier game valid in this one (a rematch's)."""
        creds, host, player_tokens = issue_credentials(aggregate.id, aggregate.players,
                                                       host_seat, carried)
        seats = (BotSeats(game_id=aggregate.id, seats=bots),) if bots else ()
        clocked = (Clocked(game_id=aggregate.id),) if aggregate.clock is not None else ()
        try:
            self.save(aggregate, creds, *seats, *clocked, *also)
        except IntegrityError:
            raise Conflict(N_("another write was stored first; try again")) from None
        self.access.remember_bots(aggregate.id, bots)
        return NewGame(aggregate.id, host, player_tokens,
                       self.reads.view_of(aggregate, SPECTATOR, None))

    def run_command(
        self,
        game_id: str | UUID,
        viewer: Viewer,
        command: dict[str, Any],
        expected_version: int | None = None,
        by: str | None = None,
    ) -> tuple[int, list[dict[str, Any]]]:
        """Run a command for the viewer's seat (the host names one); answer new version and events."""
        outcome = self.command(game_id, viewer, command, expected_version, by=by)
        return outcome.version, outcome.events

    def command(
        self,
        game_id: str | UUID,
        viewer: Viewer,
        command: dict[str, Any],
        expected_version: int | None = None,
        by: str | None = None,
    ) -> CommandOutcome:
        """Run a command; answer the new version, the new events as the viewer may see them,
        who is awaited now and the game's status (docs/api.md, POST /games/{id}/commands).

        `by` records who sent it: by default the seat for its own token, the host for the host's;
        the bot runner says "bot" (docs/api.md, "Who did what")."""
        command = dict(command)
        named = command.pop("player", None)
        for attempt in range(RACE_ATTEMPTS):
            try:
                game, sender = self._ruled(game_id, viewer, named, command, expected_version,
                                           by, trust=attempt == 0)
            except OutOfTime as late:  # CL-1: the seat sees the refusal, the game moves on
                self._expire_late(game_id, late.params["player"])
                raise
            try:
                new_events = self._save_and_share(game)
                operator_metrics.commanded(game.KEY, sender)
                break
            except Conflict:
                # Another seat's command was stored first (VampiRing's simultaneous moves):
                # a command sent without expected_version is meant for the game as it is, so
                # it runs again on the newer state, through the rules again. Each lost race is
                # somebody else's stored command, so this ends; the bound is a safeguard.
                if expected_version is not None or attempt == RACE_ATTEMPTS - 1:
                    raise
        revealed = self.reads.seals.revealed(game)  # False in play: a dict look-up at most
        receipt = (self.receipts.issue(game.id, game.version, game.chain_hash)
                   if self.receipts is not None else None)
        return CommandOutcome(game.version,
                              [shown_event(game, e, viewer, revealed) for e in new_events],
                              [] if game.finished else list(game.to_act), game.status, receipt)

    def _ruled(self, game_id: str | UUID, viewer: Viewer, named: Any, command: dict[str, Any],
               expected_version: int | None, by: str | None, trust: bool) -> tuple[Game, str]:
        """A copy of the game with the command executed on it (not saved yet), and its sender.

        With `trust`, on the cached game as far as the log follower heard (PostgreSQL,
        service/store/freshness.py); a copy older than the expected version, or one the rules or the
        expected version refuse, is judged again on the game read from the store: only the
        stored game may refuse a command. A stale copy that passes is caught by the store's
        unique key on saving, and the command runs again (`command`)."""
        game = self.repository.game(game_id, for_update=True, trust=trust)
        trusted = trust and self.repository.freshness is not None
        if trusted and expected_version is not None and expected_version > game.version:
            game, trusted = self.repository.game(game_id, for_update=True, trust=False), False
        try:
            player = acting_player(game, viewer, named)
            if expected_version is not None and expected_version != game.version:
                raise Conflict(N_("expected version %(expected_version)s, the game is at "
                                  "%(version)s"), expected_version=expected_version,
                               version=game.version)
            sender = self._sender(game, viewer, player, by)
            game.execute(player, command, by=sender)
        except (GameError, ServiceError) as refused:
            if trusted:
                return self._ruled(game_id, viewer, named, command, expected_version, by, False)
            if isinstance(refused, Refusal):
                operator_metrics.refused(game.KEY, refused.code, refused.rule)
            raise
        return game, sender

    @staticmethod
    def _sender(game: Game, viewer: Viewer, player: str, by: str | None) -> str:
        if by == BOT and not game.bot_may_play(player):
            # A game stored before its creation recorded its bot seats (only the service's
            # BotSeats did): its bot moves stay recorded as its seat's, as they always were.
            return SEAT
        return by or (HOST_BY if viewer.host else SEAT)

    def abort(self, game_id: str | UUID, viewer: Viewer, reason: str) -> dict[str, Any]:
        """The host stops a game in progress (GameAborted); answers the public view."""
        check_host(viewer, N_("aborting a game"))
        game = self.repository.game(game_id, for_update=True)
        if game.finished:
            raise Conflict(N_("the game is already %(status)s"),
                           status=Term(game.status.replace("_", " ")))
        game.abort(reason)
        self._save_and_share(game)
        return self.reads.view_of(game, SPECTATOR, None)

    def hand_seat(self, game_id: str | UUID, viewer: Viewer, player: Any, bot: Any
                  ) -> dict[str, Any]:
        """Hand a seat to the server's bot (`bot`: its kind) or give it back (None): the host
        for any seat, a player for their own (SeatHanded); answers the public view. Asking for
        what already is stores nothing."""
        if bot is not None and bot not in BOT_KINDS:
            raise BadCommand(N_("%(bot)r is not a bot (bots: %(bot_kinds)s)"), bot=bot,
                             bot_kinds=', '.join(BOT_KINDS))
        for attempt in range(RACE_ATTEMPTS):
            game = self.repository.game(game_id, for_update=True)
            seat = seat_named(game, player)
            by = seat_right(viewer, seat)
            game.check_in_play()
            if game.bot_kind(seat, self.access.bot_seats(game.id)) == bot:
                break
            game.hand_seat(seat, bot, by=by)
            try:
                self._save_and_share(game)
                break
            except Conflict:  # another seat's command first: the seat is handed all the same
                if attempt == RACE_ATTEMPTS - 1:
                    raise
        return self.reads.view_of(game, SPECTATOR, None)

    def rematch(self, game_id: str | UUID, viewer: Viewer) -> tuple[UUID, NewGame | None]:
        """The rematch of a game that is over, made now if there is none yet (by its host or
        one of its seats): the same kind, options, bot seats, clock and organiser's seat, the
        seats rotated by one, a new seed; every token of this game valid there too. Answers its
        id and, when this call made it, its creation (fresh tokens)."""
        game = self.repository.game(game_id)
        if viewer.player is None and not viewer.host:
            raise Unauthorized(N_("a rematch is asked for with the host's token or a seat's"))
        if not game.finished:
            raise Conflict(N_("a rematch follows a game that is over"))
        found = self.reads.rematch_of(game.id)
        if found is not None:
            return found, None
        creds = self.access.credentials(game.id)
        bots = dict(game.bots) or self.access.bot_seats(game.id)
        players = rotated(list(game.players))
        aggregate = type(game).start(players, seed=draw_seed(), options=dict(game.options),
                                     salt=draw_salt(), bots=bots,
                                     clock=clocks.waiting_clock(game.clock))
        link = RematchLink(game_id=game.id, rematch_id=aggregate.id)
        try:
            made = self.store_new(aggregate, bots, also=(link,), host_seat=creds.host_seat,
                                  carried=self._carried(creds))
        except Conflict:  # another asked at the same moment and won: theirs is the rematch
            found = self.reads.rematch_of(game.id)
            if found is None:
                raise
            return found, None
        return aggregate.id, made

    def _carried(self, creds: Any) -> dict[str, Any]:
        """The hashes of every token valid in a game, for its rematch: the creation's (and
        those it carried), and the credentials its seats' invitations were exchanged for (a
        page that joined by an invitation link moves on with what it holds); none that a new
        invitation revoked (issue 32, item 4)."""
        carried = carried_from(creds)
        invitations = self.access.invitations(creds.game_id)
        for seat, hashes in (invitations.credentials if invitations is not None else {}).items():
            if seat == HOST_SEAT:
                carried["host"].extend(hashes)
            else:
                carried["players"].setdefault(seat, []).extend(hashes)
                carried["invited"].setdefault(seat, []).extend(hashes)
        revoked = invitations.revoked if invitations is not None else set()
        return {"host": [h for h in carried["host"] if h not in revoked],
                **{part: {seat: [h for h in hashes if h not in revoked]
                          for seat, hashes in carried[part].items()}
                   for part in ("players", "invited")}}

    def start_clocks(self, game_id: str | UUID, viewer: Viewer) -> dict[str, Any]:
        """The host starts clocks that wait for the table (ClocksStarted, by host); answers
        the public view. Clocks already running: 409."""
        check_host(viewer, N_("starting the clocks"))
        game = self.repository.game(game_id, for_update=True)
        game.check_in_play()
        if not clocks.waiting(game):
            raise Conflict(N_("the clocks are not waiting to start"))
        game.start_clocks(clocks.HOST_STARTED)
        self._save_and_share(game)
        return self.reads.view_of(game, SPECTATOR, None)

    def table_changed(self, game_id: UUID) -> None:
        """A game's present seats changed (service.live.presence): clocks that wait for the table
        start (ClocksStarted, by server) once every seat a person holds has it open. Several
        workers may hear it at once: the first write wins, the others find them started."""
        try:
            game = self.repository.game(game_id)
            if game.finished or not clocks.waiting(game):
                return
            present = self.presence.present(game.id, game.players)
            if not table_ready(game, present, self.access.bot_seats(game.id)):
                return
            game = self.repository.game(game_id, for_update=True)
            if clocks.waiting(game) and not game.finished:
                game.start_clocks(clocks.PRESENT)
                self._save_and_share(game)
        except (Conflict, GameError, ServiceError, PersistenceError) as exc:
            log.info("clocks of %s not started at the table: %s", game_id, exc)

    def expire_clock(self, game_id: str | UUID, player: str,
                     choose: Callable[[Game, str, list[dict[str, Any]]], dict[str, Any]],
                     trigger: str = "runner") -> CommandOutcome:
        """Record that `player`'s clock ran out (ClockExpired, by clock) and make that seat's
        move with `choose` (the server's bot; by bot), in one write: a runner that dies
        between the two has stored neither. Refused (BadCommand) before the deadline, as the
        domain checks it against the time it is stored at; Conflict if another write won.
        `trigger`: who asked (the clock runner, or a seat's `move` that came too late), for
        the metric of how late it was stored."""
        game, due = self._expired(game_id, player, choose)
        new_events = self._save_and_share(game)
        return self._expiry_outcome(game, new_events, due, trigger)

    def expire_clocks(self, due: list[tuple[Game, dict[str, Any] | None, str]],
                      choose: Callable[[Game, str, list[dict[str, Any]]], dict[str, Any]]
                      ) -> list[tuple[CommandOutcome, Game | None] | Exception]:
        """`expire_clock` for many games at once (the clock runner, when many deadlines passed
        together: issue 32, item 6), all stored in one write; answers, for each (game, seat),
        its outcome and the game as stored (None when it was stored alone), or what refused it.
        Each (game, move, seat): a private copy of the game as the runner read it, which this
        changes (not read again: the store's unique key refuses it if another write came
        first), and the clock's move chosen ahead for that very state (None: `choose` now).
        A write that loses a race stores none of them: each is then tried alone, read afresh.
        An OperationalError (the store busy) is raised: nothing was written."""
        answers: list[tuple[CommandOutcome, Game | None] | Exception | None] = [None] * len(due)
        ready: list[tuple[int, Game, datetime | None]] = []
        for index, (copy, chosen, player) in enumerate(due):
            try:
                game, deadline = self._expired(copy, player, choose, chosen)
            except (GameError, ServiceError) as exc:
                answers[index] = exc
            else:
                ready.append((index, game, deadline))
        try:
            stored = self._save_and_share_all([game for _, game, _ in ready]) if ready else []
        except Conflict:  # one of them was changed meanwhile: each alone, read afresh
            for index, _, _ in ready:
                answers[index] = self._expire_alone(due[index][0].id, due[index][2], choose)
        else:
            for (index, game, deadline), new_events in zip(ready, stored, strict=True):
                answers[index] = (self._expiry_outcome(game, new_events, deadline, "runner"),
                                  game)
        return [a if a is not None else Conflict(N_("not stored")) for a in answers]

    def _expire_alone(self, game_id: UUID, player: str,
                      choose: Callable[[Game, str, list[dict[str, Any]]], dict[str, Any]]
                      ) -> tuple[CommandOutcome, None] | Exception:
        try:
            return self.expire_clock(game_id, player, choose), None
        except (GameError, ServiceError) as exc:
            return exc

    def _expired(self, game: str | UUID | Game, player: str,
                 choose: Callable[[Game, str, list[dict[str, Any]]], dict[str, Any]],
                 chosen: dict[str, Any] | None = None) -> tuple[Game, datetime | None]:
        """The game (by its id, read now; or a private copy) with `player`'s ClockExpired and
        the clock's move (`chosen` ahead, which the rules check as any move; else `choose`n
        now), not saved yet, and the deadline it met."""
        if not isinstance(game, Game):
            game = self.repository.game(game, for_update=True)
        due = clocks.deadline(game, player) if isinstance(player, str) else None
        game.expire_clock(player, datetime.now(UTC))
        if chosen is not None:
            game.execute(player, chosen, by=BOT)
        elif moves := game.legal_moves(player):
            game.execute(player, choose(game, player, moves), by=BOT)
        return game, due

    @staticmethod
    def _expiry_outcome(game: Game, new_events: list[Any], due: datetime | None,
                        trigger: str) -> CommandOutcome:
        if due is not None:  # how late it was stored (GET /metrics)
            operator_metrics.clock_expired(trigger, (new_events[0].timestamp - due).total_seconds())
        return CommandOutcome(game.version, [shown_event(game, e, SPECTATOR) for e in new_events],
                              [] if game.finished else list(game.to_act), game.status)

    def _expire_late(self, game_id: str | UUID, player: str) -> None:
        """A seat's move came after its deadline (CL-1, refused): the clock's move is stored at
        once, in the same request, rather than when the clock runner gets to it. Whatever stops
        it here (another write first, a busy store) leaves it to the runner."""
        try:
            self.expire_clock(game_id, player, clock_move(self._clock_rng), trigger="move")
        except (GameError, ServiceError, PersistenceError) as exc:
            log.info("clock of %s in %s left to the runner: %s", player, game_id, exc)

    def _save_and_share(self, game: Game) -> list[Any]:
        """Store a command's events; this worker's cache and the game's tail take them before
        its streams are woken, so they find the game and its events at hand (no store reads).
        Answers the new events. A save that loses the race is a 409, nothing written."""
        return self._save_and_share_all([game])[0]

    def _save_and_share_all(self, games: list[Game]) -> list[list[Any]]:
        """`_save_and_share` for several games in one write (all stored, or none): each game's
        new events."""
        new_events = [list(game.pending_events) for game in games]
        self._announcing.later = later = {}
        try:
            try:
                self.save(*games)
            except IntegrityError as exc:
                if is_gap(exc):
                    # The store refused a skipped version: this worker's copy is ahead of the
                    # store (PostgreSQL lost writes it had shown, see service/store/postgres.py). The
                    # command runs again on the game read afresh.
                    for game in games:
                        self.repository.forget(game.id)
                raise Conflict(N_("another command was stored first; reload and try again")) from None
            for game, events in zip(games, new_events, strict=True):
                if self.repository.cache is not None:
                    # The saved copy is what the store now holds and nothing changes it any
                    # more: the cache keeps it, so the next command skips a copy and a
                    # fast-forward (docs/performance.md, "What a command costs").
                    self.repository.offer(game.id, game)
                self.delivery.remember(game.id, events)
        finally:
            self._announcing.later = None
            if later:
                self.live.announce(later.items())
        return new_events

    def invite(self, game_id: str | UUID, viewer: Viewer, seats: list[str]) -> dict[str, str]:
        """New invitation codes for `seats` (players' names; HOST_SEAT: the host's own), the
        host's to issue; each seat's earlier code and the credential got with it are dead."""
        if not is_host(viewer):
            raise Forbidden(N_("only the host issues invitations"))
        game = self.game(game_id)
        for seat in seats:
            if seat != HOST_SEAT and seat not in game.players:
                raise BadCommand(N_("%(seat)r does not play in this game"), seat=seat)
        invitations = self.access.invitations(game.id) or Invitations(
            game_id=game.id)
        players = [seat for seat in seats if seat != HOST_SEAT]
        # What the seats' earlier links gave ends here and in every rematch that carried it.
        creds = self.access.credentials(game.id)
        ended = {h for seat in players for h in
                 (*invitations.credentials.get(seat, ()), *creds.invited(seat))}
        codes = {seat: invitations.issue(seat) for seat in seats}
        invitations.revoke(ended)
        self._store_invitations(invitations, *self._rematches_revoking(game.id, ended))
        return codes

    def _rematches_revoking(self, game_id: UUID, ended: set[str]) -> list[Invitations]:
        """The invitations of every rematch after a game, each revoking `ended` (issue 32,
        item 4: a credential a misdirected link gave opens no seat in a later game either)."""
        revoking = []
        while ended and (game_id := self.reads.rematch_of(game_id)) is not None:
            invitations = self.access.invitations(game_id) or Invitations(game_id=game_id)
            invitations.revoke(ended)
            revoking.append(invitations)
        return revoking

    def accept_invitation(self, game_id: str | UUID, code: str) -> tuple[str, str]:
        """(seat, credential) for an invitation's code, which then dies (docs/api.md)."""
        gid = self.game(game_id).id  # 404 for no such game
        invitations = self.access.invitations(gid)
        accepted = invitations.accept(code) if invitations is not None else None
        if accepted is None:
            raise Unauthorized(N_("that invitation is not valid: it was used already, or the "
                                  "host issued a new one; ask the host for a new link"))
        self._store_invitations(invitations)
        return accepted

    def _store_invitations(self, *invitations: Invitations) -> None:
        try:
            self.save(*invitations)
        except IntegrityError:
            raise Conflict(N_("the invitations changed meanwhile: try again")) from None

    def game(self, game_id: str | UUID) -> Game:
        """The current game, read-only."""
        return self.repository.game(game_id)
