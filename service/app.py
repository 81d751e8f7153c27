"""The games Application: store games, run commands, answer views, logs and replays.

Methods are short: load, command, save, answer. Everything a viewer receives passes through
the game's `view` / `redact`, so secrets are stripped in one place.
"""

from __future__ import annotations

import logging
import pickle
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from threading import Lock, local
from typing import Any
from uuid import UUID

from eventsourcing.application import (
    AggregateNotFoundError,
    LRUCache,
    ProjectorFunction,
    Repository,
)
from eventsourcing.persistence import IntegrityError, PersistenceError
from eventsourcing.sqlite import SQLiteFactory

from domain import available_games, game_class
from domain.core import HOST, SPECTATOR, BadCommand, Game, Viewer, event_record
from domain.core.names import check_seated_names, seated_form
from domain.core.visibility import sees_everything
from service.arbiter import Annotations, Forks, shown
from service.ddl import retry_concurrent_ddl
from service.errors import Conflict, Forbidden, GameNotFound, Unauthorized
from service.internals import SaveHooks, reconstruct, tune_pool
from service.live import POLL_SECONDS, Live
from service.logfilter import LogFilter
from service.seats import BotSeats, check_bots, with_bots
from service.settings import storage_env
from service.tokens import Credentials, issue_credentials

EVENTS_PAGE_MAX = 1000
TAILS_CACHE_SIZE = 2_000  # games whose newest events a worker keeps for its streams
TAIL_EVENTS = 64  # events kept per game: more than any one command stores
CREDENTIALS_CACHE_SIZE = 10_000  # games whose token hashes a worker keeps in memory
RACE_ATTEMPTS = 50  # runs of one command without expected_version that lost the race to others
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


def draw_seed() -> str:
    """A server-drawn seed: 256 random bits as 64 hex digits."""
    return secrets.token_hex(32)


def draw_salt() -> str:
    """A game's salt (replay format 2): 256 random bits as 64 hex digits, secret like the seed."""
    return secrets.token_hex(32)


def parse_game_id(game_id: str | UUID) -> UUID:
    """A game id from a URL; anything that is not a UUID names no game."""
    if isinstance(game_id, UUID):
        return game_id
    try:
        return UUID(str(game_id))
    except ValueError:
        raise GameNotFound(f"no game {game_id!r}") from None


# Values a game shares with its copies: nothing changes them in place. Pickling them is most of
# a copy's cost (a timezone-aware datetime takes ~27 µs to pickle and load, a UUID ~14 µs).
SHARED_TYPES = (str, int, float, bool, type(None), UUID, datetime)


def copy_game(aggregate: Any) -> Any:
    """A deep copy of a game, as pickle would make it (``__new__``, then the state).

    The mutable state (plain dicts and lists) goes through one pickle round trip, 2-3x faster
    than copy.deepcopy, and references shared inside it stay shared, as deepcopy's memo keeps
    them; immutable values are shared with the original.
    """
    state = vars(aggregate)
    shared = {k: v for k, v in state.items() if type(v) in SHARED_TYPES}
    private = {k: v for k, v in state.items() if k not in shared}
    cls = type(aggregate)
    clone = cls.__new__(cls)
    vars(clone).update(pickle.loads(pickle.dumps(private, pickle.HIGHEST_PROTOCOL)))
    vars(clone).update(shared)
    return clone


def project_events(aggregate: Any, events: Iterable[Any]) -> Any:
    """eventsourcing's `project_aggregate` without its per-event `assert isinstance(event,
    CanMutateProtocol)`: an isinstance against a runtime-checkable Protocol took ~21 µs, most of
    applying an event, on every command's fast-forward, stream refresh and rebuild. Every
    stored event of ours is a domain event, which has `mutate`."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate


class GameRepository(Repository):
    """eventsourcing's repository, except that a cached aggregate is never changed in place.

    The stock fast-forward projects new events into the cached object while other threads may
    be reading or deep-copying it, so a view or a command could see a half-forwarded game (a new
    version whose chain hash is not set yet, and a command on it breaks the chain). Here the
    cached game is replaced by a forwarded copy: whoever holds the old one keeps a whole game.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._put_lock = Lock()
        # Called with (game id, events) read to bring a cached game up to date: the streams'
        # tails keep them, so the streams of that game need not read them again.
        self.read_events: Any = None

    def get(self, aggregate_id: UUID, *, version: int | None = None,
            projector_func: ProjectorFunction[Any, Any] = project_events,
            fastforward_skipping: bool = False, deepcopy_from_cache: bool = True) -> Any:
        """The aggregate, from the cache brought up to the store's latest version."""
        if self.cache is None or version is not None:
            return super().get(aggregate_id, version=version, projector_func=projector_func,
                               fastforward_skipping=fastforward_skipping,
                               deepcopy_from_cache=deepcopy_from_cache)
        private = deepcopy_from_cache and self.deepcopy_from_cache  # for a command to change
        try:
            aggregate = self.cache.get(aggregate_id)
        except KeyError:
            aggregate = reconstruct(self, aggregate_id, projector_func)
            self._offer(aggregate_id, aggregate)
        else:
            # Another thread or process may have written: always ask the store.
            new_events = list(self.event_store.get(originator_id=aggregate_id,
                                                   gt=aggregate.version))
            if new_events:
                # Already a private copy when private: the command's save offers it.
                aggregate = self.forward(aggregate_id, aggregate, new_events, projector_func,
                                         offer=not private)
                if private:
                    return aggregate
        if private:
            aggregate = copy_game(aggregate)  # commands mutate; the cached game must not change
        return aggregate

    def forward(self, aggregate_id: UUID, cached: Any, new_events: list[Any],
                projector_func: ProjectorFunction[Any, Any] = project_events,
                offer: bool = True) -> Any:
        """A copy of `cached` with the stored `new_events` applied (offered to the cache
        unless not `offer`); `read_events` hears of the events."""
        if self.read_events is not None:
            self.read_events(aggregate_id, new_events)
        aggregate = projector_func(copy_game(cached), new_events)
        if offer:
            self._offer(aggregate_id, aggregate)
        return aggregate

    def _offer(self, aggregate_id: UUID, aggregate: Any) -> None:
        # Racing threads may forward the same game: keep whichever is newest.
        with self._put_lock:
            try:
                cached = self.cache.get(aggregate_id)
            except KeyError:
                cached = None
            if cached is None or cached.version < aggregate.version:
                self.cache.put(aggregate_id, aggregate)


def _check_replay_open(game: Game, viewer: Viewer, what: str) -> None:
    """docs/api.md: the replay, its export and its viewer are the host's at any time, and
    everybody's once the game is over (a game in play keeps its hands secret)."""
    if not (viewer.host or game.finished):
        raise Forbidden(f"{what} is open to the host, and to everybody once the game is over")


class Games(SaveHooks):
    """The event-sourced store of every game, with its tokens."""

    name = "gruft"
    snapshotting_intervals: Mapping[type, int] = {}

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = storage_env(env)
        self.storage = env  # the resolved storage settings (data_dir, signing key)
        # game id -> its tokens' hashes, the most recently used games kept
        self._credentials: LRUCache[UUID, Credentials] = LRUCache(CREDENTIALS_CACHE_SIZE)
        self._bot_seats: LRUCache[UUID, dict[str, str]] = LRUCache(CREDENTIALS_CACHE_SIZE)
        interval = int(env["SNAPSHOT_INTERVAL"])  # storage_env always sets it
        if interval > 0:
            self.snapshotting_intervals = {game_class(k): interval for k in available_games()}
        super().__init__(env=env)
        # Who waits for which game (streams, long polls, bot seats) and the watcher that tells
        # them of changes other workers and servers store (service/live.py).
        self.live = Live(self.recorder, forward=self._forward_cached,
                         poll=float(self.env.get("GRUFT_LIVE_POLL") or POLL_SECONDS))
        # game id -> (first version, its stored events onwards): the newest events of games
        # being streamed, read once per worker, not once per stream (see `update_of`)
        self._tails: LRUCache[UUID, tuple[int, tuple[Any, ...]]] = LRUCache(TAILS_CACHE_SIZE)
        self._refreshing = [Lock() for _ in range(64)]  # one refresh of a game at a time
        self.repository.read_events = self._remember  # another worker's events, read once
        self._announcing = local()  # `later`: during a command's save, what it will announce

    # -- infrastructure: safe under several threads, processes and machines ---------------

    def construct_factory(self, env: Any) -> Any:
        """eventsourcing's factory; SQLite connections get a statement cache and durability."""
        factory = super().construct_factory(env)
        if isinstance(factory, SQLiteFactory):
            tune_pool(factory.datastore.pool, env.get("SQLITE_SYNCHRONOUS") or "NORMAL")
        return factory

    def construct_recorder(self) -> Any:
        """The events recorder; its tables are created race-safely (workers start together)."""
        return retry_concurrent_ddl(super().construct_recorder)

    def construct_snapshot_store(self) -> Any:
        """The snapshot store; its table is created race-safely too."""
        return retry_concurrent_ddl(super().construct_snapshot_store)

    def construct_repository(self) -> GameRepository:
        """The repository with a per-worker cache that is forwarded by copy, never in place."""
        maxsize = self.env.get(self.AGGREGATE_CACHE_MAXSIZE)
        return GameRepository(
            event_store=self.events,
            snapshot_store=self.snapshots,
            cache_maxsize=int(maxsize) if maxsize else None,
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
                # as eventsourcing does (~10 ms every 100 events, ~0.12 ms per command).
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

    def close(self) -> None:
        """Stop the live watcher, then close the store."""
        self.live.close()
        super().close()

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
    ) -> NewGame:
        """Start a game (seeded or stacked) and issue its tokens, in one transaction.

        `bots` gives seats to the server's bots (service.seats): recorded beside the game.
        """
        if seed is None:
            seed = draw_seed()
        aggregate = game_class(game).start(players, seed=seed, options=options, deal=deal,
                                           salt=draw_salt())
        seats = check_bots(bots, players, aggregate.players)
        return self._store_new(aggregate, seats)

    def store_imported(self, aggregate: Game,
                       annotations: list[dict[str, Any]] | None = None) -> NewGame:
        """Store a game re-run from a verified replay document, under a new id and new tokens,
        with the document's verified annotations (their chain holds: the events are the same).

        Its seats are the recorded names: they must follow today's name rule (no look-alike
        seats here), though the document verifies whatever rule it was recorded under.
        """
        check_seated_names(list(aggregate.players))
        desk = Annotations.restored(aggregate.id, aggregate.seed_commitment, annotations or [])
        return self._store_new(aggregate, also=(desk,) if desk is not None else ())

    def _store_new(self, aggregate: Game, bots: dict[str, str] | None = None,
                   also: tuple[Any, ...] = ()) -> NewGame:
        creds, host, player_tokens = issue_credentials(aggregate.id, aggregate.players)
        seats = (BotSeats(game_id=aggregate.id, seats=bots),) if bots else ()
        try:
            self.save(aggregate, creds, *seats, *also)
        except IntegrityError:
            raise Conflict("another write was stored first; try again") from None
        self._bot_seats.put(aggregate.id, dict(bots or {}))
        return NewGame(aggregate.id, host, player_tokens,
                       with_bots(aggregate.view(SPECTATOR), bots))

    def run_command(
        self,
        game_id: str | UUID,
        viewer: Viewer,
        command: dict[str, Any],
        expected_version: int | None = None,
    ) -> tuple[int, list[dict[str, Any]]]:
        """Run a command for the viewer's seat (the host names one); answer new version and events."""
        outcome = self.command(game_id, viewer, command, expected_version)
        return outcome.version, outcome.events

    def command(
        self,
        game_id: str | UUID,
        viewer: Viewer,
        command: dict[str, Any],
        expected_version: int | None = None,
    ) -> CommandOutcome:
        """Run a command; answer the new version, the new events as the viewer may see them,
        who is awaited now and the game's status (docs/api.md, POST /games/{id}/commands)."""
        command = dict(command)
        named = command.pop("player", None)
        for attempt in range(RACE_ATTEMPTS):
            game = self._load(game_id, for_update=True)
            player = self._acting_player(game, viewer, named)
            if expected_version is not None and expected_version != game.version:
                raise Conflict(f"expected version {expected_version}, the game is at "
                               f"{game.version}")
            game.execute(player, command)
            try:
                new_events = self._save_and_share(game)
                break
            except Conflict:
                # Another seat's command was stored first (VampiRing's simultaneous moves):
                # a command sent without expected_version is meant for the game as it is, so
                # it runs again on the newer state, through the rules again. Each lost race is
                # somebody else's stored command, so this ends; the bound is a safeguard.
                if expected_version is not None or attempt == RACE_ATTEMPTS - 1:
                    raise
        return CommandOutcome(game.version, [self._shown(game, e, viewer) for e in new_events],
                              [] if game.finished else list(game.to_act), game.status)

    def abort(self, game_id: str | UUID, viewer: Viewer, reason: str) -> dict[str, Any]:
        """The host stops a game in progress (GameAborted); answers the public view."""
        self._check_host(viewer, "aborting a game")
        game = self._load(game_id, for_update=True)
        if game.finished:
            raise Conflict(f"the game is already {game.status}")
        game.abort(reason)
        self._save_and_share(game)
        return game.view(SPECTATOR)

    def _save_and_share(self, game: Game) -> list[Any]:
        """Store a command's events; this worker's cache and the game's tail take them before
        its streams are woken, so they find the game and its events at hand (no store reads).
        Answers the new events. A save that loses the race is a 409, nothing written."""
        new_events = list(game.pending_events)
        self._announcing.later = later = {}
        try:
            try:
                self.save(game)
            except IntegrityError:
                raise Conflict("another command was stored first; reload and try again") from None
            if self.repository.cache is not None:
                # The saved copy is what the store now holds and nothing changes it any more:
                # the cache keeps it, so the next command skips a copy and a fast-forward
                # (measured: ~0.3 ms CPU per command, docs/performance.md).
                self.repository._offer(game.id, game)
            self._remember(game.id, new_events)
        finally:
            self._announcing.later = None
            if later:
                self.live.announce(later.items())
        return new_events

    def current(self, game_id: str | UUID, at_least: int = 0) -> Game:
        """The game now; from this worker's cache alone when it holds `at_least` or later.

        The streams of a game wake together: one of them brings the cached game up to date
        while the others wait for it, instead of each reading and copying the game itself.
        """
        gid = parse_game_id(game_id)
        game = self._cached_at(gid, at_least)
        if game is not None:
            return game
        with self._refreshing[hash(gid) % len(self._refreshing)]:
            return self._cached_at(gid, at_least) or self.game(gid)

    def update_of(self, game: Game, viewer: Viewer, after: int | None, player: str | None = None,
                  parts: dict[Any, Any] | None = None
                  ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """One message of a live stream for a game at hand (`current`): its events after `after`
        (none when None) redacted as the log redacts them, from the game's tail when it has them
        (`_stored_between`), and the viewer's view after them.

        `parts`, kept by the caller across the viewers of one version of the game (the stream
        writer's round), holds what their messages share, built once: the view's public part and
        the events' records (measured: the public part was most of a message's cost, VampiRing's
        above all, and every seat's stream built it again).
        """
        if parts is None:
            parts = {}
        view = self._view_of(game, viewer, player, parts)
        events: list[dict[str, Any]] = []
        if after is not None and after < game.version:
            records = parts.get(("records", after))
            if records is None:
                stored = self._stored_between(game.id, after, game.version)
                records = parts["records", after] = [event_record(e) for e in stored]
            events = [self._redacted(game, record, viewer) for record in records]
        return events, view

    def _cached_at(self, game_id: UUID, version: int) -> Game | None:
        """The cached game if it is at `version` or later (then the store has nothing newer
        that anybody announced); None otherwise."""
        cache = self.repository.cache
        if version <= 0 or cache is None:
            return None
        try:
            game = cache.get(game_id)
        except KeyError:
            return None
        return game if isinstance(game, Game) and game.version >= version else None

    def _stored_between(self, game_id: UUID, after: int, upto: int) -> tuple[Any, ...]:
        """The stored events `after` < version <= `upto`, from the game's tail when it has them."""
        try:
            first, events = self._tails.get(game_id)
        except KeyError:
            first, events = 0, ()
        if events and first <= after + 1 and first + len(events) - 1 >= upto:
            return events[after + 1 - first:upto + 1 - first]
        stored = tuple(self.repository.event_store.get(game_id, gt=after, lte=upto))
        self._remember(game_id, stored)
        return stored

    def _remember(self, game_id: UUID, stored: Any) -> None:
        """Add consecutive stored events to the game's tail (the newest TAIL_EVENTS kept)."""
        stored = tuple(stored)
        if not stored:
            return
        start = stored[0].originator_version
        try:
            first, events = self._tails.get(game_id)
        except KeyError:
            first, events = start, ()
        if not first <= start <= first + len(events):
            first, events = start, ()  # not adjacent: start the tail afresh
        merged = events[:start - first] + stored
        if len(merged) > TAIL_EVENTS:
            first, merged = first + len(merged) - TAIL_EVENTS, merged[-TAIL_EVENTS:]
        self._tails.put(game_id, (first, merged))

    def _forward_cached(self, stored: dict[UUID, list[Any]]) -> None:
        """Bring cached games up to date with events another worker or server stored, as the
        live watcher read them from the log (service/live.py): the streams of those games
        then find them at hand (`current`) and their events in the tails, with no second read
        of the store (measured: that read was a fifth of a stream writer's CPU)."""
        cache = self.repository.cache
        if cache is None:
            return
        for game_id, notes in stored.items():
            try:
                cached = cache.get(game_id)
            except KeyError:
                continue  # not in this worker's cache: whoever needs it reads the store
            if not isinstance(cached, Game):
                continue
            fresh = [n for n in notes if n.originator_version > cached.version]
            if not fresh or fresh[0].originator_version != cached.version + 1:
                continue  # not the events right after the cached game's (or none)
            self.repository.forward(game_id, cached,
                                    [self.mapper.to_domain_event(note) for note in fresh])

    def _acting_player(self, game: Game, viewer: Viewer, named: Any) -> str:
        if named is not None and not isinstance(named, str):
            raise BadCommand("'player' must be a player's name")
        if named is not None:
            named = seated_form(named)
        if viewer.host:
            if named is None:
                if len(game.to_act) == 1:
                    return game.to_act[0]
                raise BadCommand("the host acts for a player: add \"player\": \"<name>\"")
            if named not in game.players:
                raise BadCommand(f"{named!r} does not play in this game")
            return named
        if viewer.player is None:
            raise Unauthorized("commands need a player's or the host's token")
        if named is not None and named != viewer.player:
            raise Forbidden(f"this token acts only for {viewer.player}")
        return viewer.player

    # -- reading --------------------------------------------------------------------------

    def _load(self, game_id: str | UUID, *, for_update: bool = False, version: int | None = None
              ) -> Game:
        gid = parse_game_id(game_id)
        try:
            if version is not None:
                return self.repository.get(gid, version=version)
            return self.repository.get(gid, deepcopy_from_cache=for_update)
        except AggregateNotFoundError:
            raise GameNotFound(f"no game {game_id}") from None

    def game(self, game_id: str | UUID) -> Game:
        """The current game, read-only."""
        game = self._load(game_id)
        if not isinstance(game, Game):
            raise GameNotFound(f"no game {game_id}")
        return game

    def authenticate(self, game_id: str | UUID, token: str | None) -> Viewer:
        """Who a bearer token is for this game; no token is a spectator."""
        if token is None:
            return SPECTATOR
        gid = parse_game_id(game_id)
        # Credentials are issued once and never change, so a worker need not ask the store for
        # newer events on every request (measured: ~13% of a command's CPU, docs/performance.md).
        try:
            creds = self._credentials.get(gid)
        except KeyError:
            try:
                # Read straight from the store (version 1, the only one): through the games'
                # cache the token hashes would take the slot of a game.
                creds = self.repository.get(Credentials.create_id(gid), version=1)
            except AggregateNotFoundError:
                raise GameNotFound(f"no game {game_id}") from None
            self._credentials.put(gid, creds)
        found = creds.identify(token)
        if found is None:
            raise Unauthorized("that token is not valid for this game")
        is_host, player = found
        return HOST if is_host else Viewer(player=player)

    def view(self, game_id: str | UUID, viewer: Viewer, player: str | None = None) -> dict:
        """A view: public for spectators; a player's own; the host names the player."""
        return self._view_of(self.game(game_id), viewer, player)

    def _view_of(self, game: Game, viewer: Viewer, player: str | None,
                 parts: dict[Any, Any] | None = None) -> dict[str, Any]:
        seat = self._seat_viewer(game, viewer, player, public_ok=True)
        key = ("view", sees_everything(seat, game.finished))
        public = parts.get(key) if parts is not None else None
        if public is None:
            public = with_bots(game.public_view(key[1]), self.bot_seats(game.id))
            if parts is not None:
                parts[key] = public
        return game.seat_view(public, seat)

    def bot_seats(self, game_id: str | UUID) -> dict[str, str]:
        """The seats of a game the server's bots play (public; empty for most games)."""
        gid = parse_game_id(game_id)
        # Recorded with the game and never changed: once read, kept (absent ones too).
        try:
            return self._bot_seats.get(gid)
        except KeyError:
            pass
        try:
            seats = dict(self.repository.get(BotSeats.create_id(gid), version=1).seats)
        except AggregateNotFoundError:
            seats = {}
        self._bot_seats.put(gid, seats)
        return seats

    def legal_moves(self, game_id: str | UUID, viewer: Viewer, player: str | None = None) -> dict:
        """The commands the rules allow the viewer's seat now."""
        game = self.game(game_id)
        seat = self._seat_viewer(game, viewer, player, public_ok=False)
        moves = game.legal_moves(seat.player)
        answer = {"player": seat.player, "moves": moves}
        previews = game.previews(seat.player, moves) if moves else None
        if previews is not None:  # VampiRing: where each move would land (the play page)
            answer["previews"] = previews
        return answer

    def _seat_viewer(self, game: Game, viewer: Viewer, player: str | None, *, public_ok: bool
                     ) -> Viewer:
        if player is not None:
            player = seated_form(player)
        if viewer.host:
            if player is None:
                if public_ok:
                    return SPECTATOR
                raise BadCommand("the host names a seat: add ?player=<name>")
            if player not in game.players:
                raise BadCommand(f"{player!r} does not play in this game")
            return Viewer(player=player)
        if viewer.player is None:
            if public_ok and player is None:
                return SPECTATOR
            raise Unauthorized("a player's or the host's token is needed")
        if player is not None and player != viewer.player:
            raise Forbidden(f"this token sees only {viewer.player}'s seat")
        return viewer

    def log(self, game_id: str | UUID, viewer: Viewer, after: int = 0, limit: int = 100,
            wait: float = 0.0, only: LogFilter | None = None
            ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the log as the viewer may see it, and the `after` of the next page.

        With `wait` (long polling), a page that would be empty waits until an event after
        `after` is stored, at most `wait` seconds; a game that is over never waits. With `only`,
        the page holds the events that filter keeps, their versions as stored.
        """
        if wait <= 0:
            return self._log_page(self.game(game_id), viewer, after, limit, only)
        deadline = time.monotonic() + wait
        with self.live.watch(parse_game_id(game_id)) as watch:
            while True:  # registered first, then read: nothing stored after the read is missed
                game = self.game(game_id)
                page, cursor = self._log_page(game, viewer, after, limit, only)
                remaining = deadline - time.monotonic()
                if page or game.finished or remaining <= 0 or watch.stopping:
                    return page, cursor
                watch.wait(max(after, game.version), remaining)

    def _log_page(self, game: Game, viewer: Viewer, after: int, limit: int,
                  only: LogFilter | None = None) -> tuple[list[dict[str, Any]], int | None]:
        limit = max(1, min(limit, EVENTS_PAGE_MAX))
        if only is not None:
            return self._filtered_page(game, viewer, after, limit, only)
        stored = list(self.repository.event_store.get(game.id, gt=after, limit=limit + 1))
        more = len(stored) > limit
        page = [self._shown(game, e, viewer) for e in stored[:limit]]
        return page, (page[-1]["version"] if more and page else None)

    def _filtered_page(self, game: Game, viewer: Viewer, after: int, limit: int,
                       only: LogFilter) -> tuple[list[dict[str, Any]], int | None]:
        """The first `limit` events after `after` that `only` keeps, judged as `viewer` sees
        each one (never on what is hidden from them), and the `after` of the next page."""
        only.check(game)
        page: list[dict[str, Any]] = []
        while True:
            stored = list(self.repository.event_store.get(game.id, gt=after,
                                                          limit=EVENTS_PAGE_MAX))
            for event in stored:
                after = event.originator_version
                if not only.keeps_type(type(event).__name__):
                    continue
                shown = self._shown(game, event, viewer)
                if only.keeps(shown):
                    if len(page) == limit:  # one more match: there is a next page
                        return page, page[-1]["version"]
                    page.append(shown)
            if len(stored) < EVENTS_PAGE_MAX:
                return page, None

    def records(self, game_id: str | UUID) -> list[dict[str, Any]]:
        """Every event of a game, unredacted, with its chain links (export, audit)."""
        return self._records(self.game(game_id))

    def replay_records(self, game_id: str | UUID, viewer: Viewer, what: str = "a replay"
                       ) -> tuple[Game, list[dict[str, Any]]]:
        """The game and its whole unredacted log, for whoever may replay it (export, viewer)."""
        game = self.game(game_id)
        _check_replay_open(game, viewer, what)
        return game, self._records(game)

    def _records(self, game: Game) -> list[dict[str, Any]]:
        return [event_record(e) for e in self.repository.event_store.get(game.id)]

    def _shown(self, game: Game, event: Any, viewer: Viewer) -> dict[str, Any]:
        return self._redacted(game, event_record(event), viewer)

    @staticmethod
    def _redacted(game: Game, record: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        """An event's record as the log shows it to `viewer`: a new dict without the chain
        links (the record itself is left as it was, for other viewers)."""
        return {"version": record["version"], "type": record["type"],
                "timestamp": record["timestamp"],
                "data": game.redact(record["type"], record["data"], viewer)}

    def replay(self, game_id: str | UUID, viewer: Viewer, n: int) -> dict[str, Any]:
        """The full state after the first n events, with the n-th event (host, or once finished)."""
        game = self.game(game_id)
        _check_replay_open(game, viewer, "a replay")
        if not 0 <= n <= game.version:
            raise GameNotFound(f"step {n} is outside 0..{game.version}")
        if n == 0:
            return {"version": 0, "of": game.version, "event": None, "state": None, "view": None}
        at = game if n == game.version else self._load(game.id, version=n)
        event = next(iter(self.repository.event_store.get(game.id, gt=n - 1, lte=n)))
        record = event_record(event)
        return {"version": n, "of": game.version, "event": record, "state": at.full_state(),
                "view": at.view(SPECTATOR)}

    # -- the arbiter's desk: annotations and forks (service.arbiter) -----------------------

    def annotate(self, game_id: str | UUID, viewer: Viewer, version: Any, text: Any,
                 kind: Any = None) -> dict[str, Any]:
        """The host (the arbiter) attaches a note or a ruling to step `version` of a game."""
        game = self.game(game_id)
        self._check_host(viewer, "annotating a game")
        step = self._step(game, version)
        try:
            desk = self.repository.get(Annotations.create_id(game.id))
        except AggregateNotFoundError:
            desk = Annotations(game_id=game.id, seed_commitment=game.seed_commitment)
        record = desk.annotate(step, self._event_hash(game, step), text, kind)
        try:
            self.save(desk)
        except IntegrityError:
            raise Conflict("another annotation was stored first; try again") from None
        return shown(record)

    def annotation_records(self, game: Game) -> list[dict[str, Any]]:
        """Every annotation of a game with its chain links, in order (the export's)."""
        try:
            return [dict(r) for r in self.repository.get(Annotations.create_id(game.id)).records]
        except AggregateNotFoundError:
            return []

    def annotations(self, game_id: str | UUID, viewer: Viewer) -> list[dict[str, Any]]:
        """The annotations, for whoever may replay the game (the host, everybody once over)."""
        game = self.game(game_id)
        _check_replay_open(game, viewer, "the annotations")
        return [shown(r) for r in self.annotation_records(game)]

    def fork(self, game_id: str | UUID, viewer: Viewer, at: Any) -> NewGame:
        """A new game from the state after event `at` of a game that is over; new tokens.

        A game still in play is not forked: the fork's own log, once it is over, would show
        hands its parent still hides. An arbiter voiding a move in a game in play aborts it
        first (POST /abort), then forks it from before that move.
        """
        parent = self.game(game_id)
        self._check_host(viewer, "forking a game")
        if not parent.finished:
            raise Conflict("only a game that is over can be forked: abort it first")
        step = self._step(parent, at)
        self._check_between_moves(parent, step)
        state = self._load(parent.id, version=step)  # the last version awaits nobody: never it
        link = {"game_id": str(parent.id), "version": step, "hash": self._event_hash(parent, step)}
        fork = type(parent).fork(state, link, seed=draw_seed(), salt=draw_salt())
        try:
            links = self.repository.get(Forks.create_id(parent.id))
        except AggregateNotFoundError:
            links = Forks(game_id=parent.id)
        links.add(fork.id, step)
        return self._store_new(fork, also=(links,))

    def forks(self, game_id: str | UUID) -> list[dict[str, Any]]:
        """The games forked from a game, oldest first: [{"game_id", "at"}] (public)."""
        gid = parse_game_id(game_id)
        try:
            return [dict(f) for f in self.repository.get(Forks.create_id(gid)).forks]
        except AggregateNotFoundError:
            return []

    def _check_host(self, viewer: Viewer, what: str) -> None:
        if viewer.player is not None:
            raise Forbidden(f"{what} is for the host alone")
        if not viewer.host:
            raise Unauthorized(f"{what} needs the host's token")

    def _check_between_moves(self, game: Game, step: int) -> None:
        """A fork begins between two moves: a move that stores several events (a card played,
        then the trick it completes) leaves no whole table between them."""
        types = [type(e).__name__ for e in self.repository.event_store.get(game.id)]
        # what a command begins with (the host's and the clock's included)
        moves = set(type(game).COMMAND_EVENTS) | {"GameAborted", "SeatHanded", "ClockExpired"}
        if step < len(types) and types[step] not in moves:
            # types[i] is event i + 1's: the last move begun before `step` began at its version
            before = max((v for v, t in enumerate(types[:step]) if t in moves), default=0)
            raise BadCommand(f"event {step} is in the middle of a move (event {step + 1} "
                             f"completes it): a fork begins between moves, e.g. after event "
                             f"{before}")

    @staticmethod
    def _step(game: Game, version: Any) -> int:
        if not isinstance(version, int) or isinstance(version, bool):
            raise BadCommand("a step is a whole number (an event's version)")
        if not 0 <= version <= game.version:
            raise BadCommand(f"step {version} is outside 0..{game.version}")
        return version

    def _event_hash(self, game: Game, version: int) -> str:
        """The hash of a game's event `version`; the seed commitment for the setup (0)."""
        if version == 0:
            return game.seed_commitment
        if version == game.version:
            return game.chain_hash
        return next(iter(self.repository.event_store.get(game.id, gt=version - 1,
                                                         lte=version))).hash
