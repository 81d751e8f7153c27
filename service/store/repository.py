"""The games' repository: a per-worker cache that is never changed in place, and loading a
game by the id a URL names.
"""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Iterable
from datetime import datetime
from threading import Lock
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, ProjectorFunction, Repository

from domain.core import Game
from domain.core.words import N_
from service.errors import GameNotFound
from service.store.internals import reconstruct


def parse_game_id(game_id: str | UUID) -> UUID:
    """A game id from a URL; anything that is not a UUID names no game."""
    if isinstance(game_id, UUID):
        return game_id
    try:
        return UUID(str(game_id))
    except ValueError:
        raise GameNotFound(N_("no game %(game_id)r"), game_id=game_id) from None


# Values a game shares with its copies: nothing changes them in place. Pickling them is most of
# a copy's cost (timezone-aware datetimes and UUIDs most: docs/performance.md).
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
    CanMutateProtocol)`: an isinstance against a runtime-checkable Protocol was most of applying
    an event (docs/performance.md), on every command's fast-forward, stream refresh and rebuild. Every
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
        # service.store.freshness.Freshness where the log follower hears every commit (PostgreSQL):
        # then a cached game it has heard no newer version of is not asked about again.
        self.freshness: Any = None

    def get(self, aggregate_id: UUID, *, version: int | None = None,
            projector_func: ProjectorFunction[Any, Any] = project_events,
            fastforward_skipping: bool = False, deepcopy_from_cache: bool = True,
            trust: bool = False) -> Any:
        """The aggregate, from the cache brought up to the store's latest version; with
        `trust`, the cached one as it is when the log follower heard of nothing newer."""
        if self.cache is None or version is not None:
            return super().get(aggregate_id, version=version, projector_func=projector_func,
                               fastforward_skipping=fastforward_skipping,
                               deepcopy_from_cache=deepcopy_from_cache)
        private = deepcopy_from_cache and self.deepcopy_from_cache  # for a command to change
        try:
            aggregate = self.cache.get(aggregate_id)
        except KeyError:
            aggregate = reconstruct(self, aggregate_id, projector_func)
            self.offer(aggregate_id, aggregate)
        else:
            if trust and self.freshness is not None and self.freshness.current(
                    aggregate_id, aggregate.version):
                return copy_game(aggregate) if private else aggregate
            # Another thread or process may have written: ask the store.
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
            self.offer(aggregate_id, aggregate)
        return aggregate

    def offer(self, aggregate_id: UUID, aggregate: Any) -> None:
        """Cache `aggregate` unless a newer version is cached (racing threads may forward the
        same game: whichever is newest stays)."""
        with self._put_lock:
            try:
                cached = self.cache.get(aggregate_id)
            except KeyError:
                cached = None
            if cached is None or cached.version < aggregate.version:
                self.cache.put(aggregate_id, aggregate)

    def forget(self, aggregate_id: UUID) -> None:
        """Drop a game from the cache (the next read rebuilds it from the store)."""
        if self.cache is not None:
            with self._put_lock, contextlib.suppress(KeyError):
                self.cache.get(aggregate_id, evict=True)

    def game(self, game_id: str | UUID, *, for_update: bool = False, version: int | None = None,
             trust: bool = False) -> Game:
        """A game by the id a URL names: the current one (a private copy `for_update`), or its
        state after `version` events; GameNotFound when there is none. With `trust` (a
        command's first run, whose save the store's unique key checks), the cached game as far
        as the log follower has heard (`get`)."""
        gid = parse_game_id(game_id)
        try:
            if version is not None:
                game = self.get(gid, version=version)
            else:
                game = self.get(gid, deepcopy_from_cache=for_update, trust=trust)
        except AggregateNotFoundError:
            raise GameNotFound(N_("no game %(game_id)s"), game_id=game_id) from None
        if not isinstance(game, Game):
            raise GameNotFound(N_("no game %(game_id)s"), game_id=game_id)
        return game
