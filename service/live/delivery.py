"""Live delivery: the game at hand and the message parts of the streams of one worker.

The streams of a game wake together (service/live/watches.py); they find the game in this worker's
cache, brought up to date once for all of them, and its newest events in the game's tail, read
from the store once per worker, not once per stream.
"""

from __future__ import annotations

from threading import Lock
from typing import Any, NamedTuple
from uuid import UUID

import orjson

from domain.core import Game, Viewer, event_record
from service.caches import TAILS, BytesLRU
from service.reads import Reads, redacted
from service.store.repository import GameRepository, parse_game_id

TAIL_EVENTS = 64  # events kept per game: more than any one command stores
# A domain event held in memory takes about this many times the bytes of its JSON, as the tails'
# bound counts it (docs/performance.md, "What the caches cost").
EVENT_BYTES_PER_JSON_BYTE = 5
CATCH_UP_PAGE = 100  # events in one stream message at most (issue 23: catch-up sent in pages)


def catch_up(after: int | None, version: int) -> list[tuple[int | None, int]]:
    """The (after, upto) of each message that brings a stream from `after` to `version`.

    Pages of at most CATCH_UP_PAGE events, the last one ending at `version`; the others end on a
    multiple of the page, so streams catching up from different points share their pages.
    Without `after` (nothing to resume) or nothing after it, one message: the view alone.
    """
    if after is None or after >= version:
        return [(after, version)]
    pages = []
    while version - after > CATCH_UP_PAGE:
        upto = (after // CATCH_UP_PAGE + 1) * CATCH_UP_PAGE
        pages.append((after, upto))
        after = upto
    pages.append((after, version))
    return pages


class Tail(NamedTuple):
    """A game's newest stored events: the version of the first, the events, what each costs."""

    first: int
    events: tuple[Any, ...]
    costs: tuple[int, ...]


def event_bytes(event: Any) -> int:
    """About what a domain event holds in memory (TAILS is bounded by it)."""
    try:
        encoded = orjson.dumps(event.__dict__, default=str, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # a number too wide for orjson
        encoded = repr(event.__dict__).encode()
    return EVENT_BYTES_PER_JSON_BYTE * len(encoded)


def tail_bytes(tail: Tail) -> int:
    """What a game's tail holds, as TAILS is bounded."""
    return sum(tail.costs)


class Delivery:
    """A worker's games at hand for its streams, and the newest events of each (its tail)."""

    def __init__(self, repository: GameRepository, mapper: Any, reads: Reads) -> None:
        self._repository = repository
        self._mapper = mapper
        self._reads = reads
        # game id -> (first version, its stored events onwards): the newest events of games
        # being streamed, read once per worker, not once per stream (see `update_of`)
        self._tails: BytesLRU[UUID, Tail] = BytesLRU(TAILS, tail_bytes)
        self._refreshing = [Lock() for _ in range(64)]  # one refresh of a game at a time
        repository.read_events = self.remember  # another worker's events, read once

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
            return self._cached_at(gid, at_least) or self._repository.game(gid)

    def update_of(self, game: Game, viewer: Viewer, after: int | None, player: str | None = None,
                  parts: dict[Any, Any] | None = None, upto: int | None = None
                  ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """One message of a live stream for a game at hand (`current`): its events after `after`
        up to `upto` (none when `after` is None) redacted as the log redacts them, from the
        game's tail when it has them (`stored_between`), and the viewer's view after them —
        unless the message is a page of a catch-up (`upto` before the game's version): a page
        carries events only (None for the view).

        `parts`, kept by the caller across the viewers of one version of the game (the stream
        writer's round), holds what their messages share, built once: the view's public part and
        the events' records (measured: the public part was most of a message's cost, VampiRing's
        above all, and every seat's stream built it again).
        """
        if parts is None:
            parts = {}
        upto = game.version if upto is None else min(upto, game.version)
        view = self._reads.view_of(game, viewer, player, parts) if upto == game.version else None
        events: list[dict[str, Any]] = []
        if after is not None and after < upto:
            records = parts.get(("records", after, upto))
            if records is None:
                stored = self.stored_between(game.id, after, upto)
                records = parts["records", after, upto] = [event_record(e) for e in stored]
            revealed = parts.get("revealed")
            if revealed is None:
                revealed = parts["revealed"] = self._reads.seals.revealed(game)
            events = [redacted(game, record, viewer, revealed) for record in records]
        return events, view

    def _cached_at(self, game_id: UUID, version: int) -> Game | None:
        """The cached game if it is at `version` or later (then the store has nothing newer
        that anybody announced); None otherwise."""
        cache = self._repository.cache
        if version <= 0 or cache is None:
            return None
        try:
            game = cache.get(game_id)
        except KeyError:
            return None
        return game if isinstance(game, Game) and game.version >= version else None

    def stored_between(self, game_id: UUID, after: int, upto: int) -> tuple[Any, ...]:
        """The stored events `after` < version <= `upto`, from the game's tail when it has them."""
        try:
            first, events, _ = self._tails.get(game_id)
        except KeyError:
            first, events = 0, ()
        if events and first <= after + 1 and first + len(events) - 1 >= upto:
            return events[after + 1 - first:upto + 1 - first]
        stored = tuple(self._repository.event_store.get(game_id, gt=after, lte=upto))
        if not events or upto >= first + len(events) - 1:  # not a catch-up page of the past
            self.remember(game_id, stored)
        return stored

    def remember(self, game_id: UUID, stored: Any) -> None:
        """Add consecutive stored events to the game's tail (the newest TAIL_EVENTS kept)."""
        stored = tuple(stored)
        if not stored:
            return
        start = stored[0].originator_version
        try:
            first, events, costs = self._tails.get(game_id)
        except KeyError:
            first, events, costs = start, (), ()
        if not first <= start <= first + len(events):
            first, events, costs = start, (), ()  # not adjacent: start the tail afresh
        merged = events[:start - first] + stored
        merged_costs = costs[:start - first] + tuple(event_bytes(e) for e in stored)
        if len(merged) > TAIL_EVENTS:
            first, merged = first + len(merged) - TAIL_EVENTS, merged[-TAIL_EVENTS:]
            merged_costs = merged_costs[-TAIL_EVENTS:]
        self._tails.put(game_id, Tail(first, merged, merged_costs))

    def forward_cached(self, stored: dict[UUID, list[Any]]) -> None:
        """Bring cached games up to date with events another worker or server stored, as the
        live watcher read them from the log (service/live/watches.py): the streams of those games
        then find them at hand (`current`) and their events in the tails, with no second read
        of the store (measured: that read was a fifth of a stream writer's CPU)."""
        cache = self._repository.cache
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
            self._repository.forward(game_id, cached,
                                     [self._mapper.to_domain_event(note) for note in fresh])
