"""Views and logs: what a viewer may see of a game — its view, legal moves, log pages (long
polled, filtered), the unredacted records and the replay steps of whoever may replay it.

Everything a viewer receives passes through the game's `view` / `redact`, so secrets are
stripped in one place.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, LRUCache

from domain.core import SPECTATOR, Game, Viewer, event_record
from domain.core.clocks import clocks_at
from domain.core.clocks import running as clocks_running
from domain.core.narration import remembered, resume, tell_on
from domain.core.visibility import sees_everything
from domain.core.words import N_, english, english_plural
from service.audit.logfilter import LogFilter
from service.audit.seals import Seals, stamp
from service.caches import NARRATORS, REMATCHES
from service.errors import GameNotFound
from service.live.presence import Presence
from service.live.watches import Live
from service.store.repository import GameRepository, parse_game_id
from service.table.access import Access, check_replay_open, seat_viewer
from service.table.rematch import RematchLink
from service.table.seats import with_bots

EVENTS_PAGE_MAX = 1000
NARRATOR_VERSIONS = 4  # the versions of one game and perspective whose context is kept


class Reads:
    """The read side of one Application's games, as each viewer may see them."""

    def __init__(self, repository: GameRepository, access: Access, live: Live,
                 presence: Presence) -> None:
        self._repository = repository
        self._access = access
        self._live = live
        self._presence = presence
        self.seals = Seals(repository)  # whether a game's secrets are public (sealed forks)
        self._rematches: LRUCache[UUID, UUID] = LRUCache(REMATCHES.entries)  # never changed
        # what a viewer's narrator had learned by a few versions, by game and perspective
        self._learned: LRUCache[tuple[UUID, Viewer, bool], tuple[tuple[int, dict[str, Any]], ...]
                                ] = LRUCache(NARRATORS.entries)
        self.narrated = 0  # the events read and redacted to tell narration pages (tests)
        self.records_read = 0  # the whole logs read (tests)

    def view(self, game_id: str | UUID, viewer: Viewer, player: str | None = None) -> dict:
        """A view: public for spectators; a player's own; the host names the player."""
        return self.view_of(self._repository.game(game_id), viewer, player)

    def view_of(self, game: Game, viewer: Viewer, player: str | None,
                parts: dict[Any, Any] | None = None) -> dict[str, Any]:
        """The view of a game at hand; `parts` keeps its public part for other viewers of the
        same version (the stream writer's round)."""
        seat = seat_viewer(game, viewer, player, public_ok=True)
        revealed = self.seals.revealed(game)
        key = ("view", sees_everything(seat, revealed))
        public = parts.get(key) if parts is not None else None
        if public is None:
            public = stamp(with_bots(game.public_view(key[1]),
                                     game.playing_bots(self._access.bot_seats(game.id))),
                           game.finished and not revealed)
            if parts is not None:
                parts[key] = public
        return self.table_of(game, game.seat_view(public, seat))

    def table_of(self, game: Game, view: dict[str, Any]) -> dict[str, Any]:
        """A view with what changes without an event (docs/api.md, (table)): who has the game
        open now, and each seat's clock as of now (games with a clock)."""
        view["present"] = self._presence.present(game.id, game.players)
        running = clocks_at(game, datetime.now(UTC))
        if running is not None:
            view["clocks"] = running
            # False while clocks wait for the table (domain.core.clocks: ClocksStarted)
            view["clocks_started"] = clocks_running(game)
        if game.finished:
            rematch = self.rematch_of(game.id)
            if rematch is not None:
                view["rematch"] = str(rematch)
        return view

    def rematch_of(self, game_id: UUID) -> UUID | None:
        """The rematch of a game, if one was made (service/table/rematch.py)."""
        try:
            return self._rematches.get(game_id)
        except KeyError:
            pass
        try:
            link = self._repository.get(RematchLink.create_id(game_id), version=1)
        except AggregateNotFoundError:
            return None
        self._rematches.put(game_id, link.rematch_id)
        return link.rematch_id

    def legal_moves(self, game_id: str | UUID, viewer: Viewer, player: str | None = None) -> dict:
        """The commands the rules allow the viewer's seat now."""
        game = self._repository.game(game_id)
        seat = seat_viewer(game, viewer, player, public_ok=False)
        moves = game.legal_moves(seat.player)
        answer = {"player": seat.player, "moves": moves}
        previews = game.previews(seat.player, moves) if moves else None
        if previews is not None:  # VampiRing: where each move would land (the play page)
            answer["previews"] = previews
        return answer

    def log(self, game_id: str | UUID, viewer: Viewer, after: int = 0, limit: int = 100,
            wait: float = 0.0, only: LogFilter | None = None
            ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the log as the viewer may see it, and the `after` of the next page.

        With `wait` (long polling), a page that would be empty waits until an event after
        `after` is stored, at most `wait` seconds; a game that is over never waits. With `only`,
        the page holds the events that filter keeps, their versions as stored.
        """
        if wait <= 0:
            return self._log_page(self._repository.game(game_id), viewer, after, limit, only)
        deadline = time.monotonic() + wait
        with self._live.watch(parse_game_id(game_id)) as watch:
            while True:  # registered first, then read: nothing stored after the read is missed
                game = self._repository.game(game_id)
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
        stored = list(self._repository.event_store.get(game.id, gt=after, limit=limit + 1))
        more = len(stored) > limit
        revealed = self.seals.revealed(game)
        page = [shown_event(game, e, viewer, revealed) for e in stored[:limit]]
        return page, (page[-1]["version"] if more and page else None)

    def _filtered_page(self, game: Game, viewer: Viewer, after: int, limit: int,
                       only: LogFilter) -> tuple[list[dict[str, Any]], int | None]:
        """The first `limit` events after `after` that `only` keeps, judged as `viewer` sees
        each one (never on what is hidden from them), and the `after` of the next page."""
        only.check(game)
        revealed = self.seals.revealed(game)
        page: list[dict[str, Any]] = []
        while True:
            stored = list(self._repository.event_store.get(game.id, gt=after,
                                                           limit=EVENTS_PAGE_MAX))
            for event in stored:
                after = event.originator_version
                if not only.keeps_type(type(event).__name__):
                    continue
                shown = shown_event(game, event, viewer, revealed)
                if only.keeps(shown):
                    if len(page) == limit:  # one more match: there is a next page
                        return page, page[-1]["version"]
                    page.append(shown)
            if len(stored) < EVENTS_PAGE_MAX:
                return page, None

    def narration(self, game_id: str | UUID, viewer: Viewer, after: int = 0,
                  **language: Any) -> list[dict[str, Any]]:
        """The log in plain words as the viewer may see it, the events after `after`.

        Told from the viewer's redacted log (texts need context), so a seat's page never reads in
        words what it could not read in the log. The context is what a narrator learned by a
        version, kept per game and perspective (service.caches.NARRATORS): the events after the
        newest kept at or before `after` are all that is read and redacted, so the next page
        costs what it tells, not the log (issue 32, item 8). `language`: the reader's
        `gettext` and `ngettext` (domain.core.narration).
        """
        game = self._repository.game(game_id)
        revealed = self.seals.revealed(game)
        key = (game.id, viewer, revealed)  # what decides each event's redaction
        try:
            kept = self._learned.get(key)
        except KeyError:
            kept = ()
        start, learned = max(((v, ctx) for v, ctx in kept if v <= after),
                             key=lambda item: item[0], default=(0, None))
        narrator = type(game).NARRATOR(list(game.players), dict(game.options),
                                       language.get("gettext", english),
                                       language.get("ngettext", english_plural))
        if learned is not None:
            resume(narrator, learned)
        shown = [shown_event(game, e, viewer, revealed)
                 for e in self._repository.event_store.get(game.id, gt=start)]
        self.narrated += len(shown)
        # Keep the context at `after` and before the newest event (the next page's `after`).
        wanted = {v for v in (after, shown[-1]["version"] - 1 if shown else 0) if v > start}
        fresh: list[tuple[int, dict[str, Any]]] = []

        def keep(version: int, narrator: Any) -> None:
            if version in wanted:
                fresh.append((version, remembered(narrator)))

        told = tell_on(narrator, shown, after, keep)
        if fresh:
            newest = sorted({**dict(kept), **dict(fresh)}.items())[-NARRATOR_VERSIONS:]
            self._learned.put(key, tuple(newest))
        return told

    def records(self, game_id: str | UUID) -> list[dict[str, Any]]:
        """Every event of a game, unredacted, with its chain links (export, audit)."""
        return self.records_of(self._repository.game(game_id))

    def replay_records(self, game_id: str | UUID, viewer: Viewer, what: str = N_("a replay")
                       ) -> tuple[Game, list[dict[str, Any]]]:
        """The game and its whole unredacted log, for whoever may replay it (export, viewer)."""
        game = self.replay_game(game_id, viewer, what)
        return game, self.records_of(game)

    def replay_game(self, game_id: str | UUID, viewer: Viewer, what: str = N_("a replay")
                    ) -> Game:
        """The game, for whoever may replay it (its log read only when it is needed)."""
        game = self._repository.game(game_id)
        check_replay_open(game, viewer, what, self.seals.revealed(game))
        return game

    def records_of(self, game: Game) -> list[dict[str, Any]]:
        """Every event of a game at hand, unredacted, with its chain links."""
        self.records_read += 1
        return [event_record(e) for e in self._repository.event_store.get(game.id)]

    def replay(self, game_id: str | UUID, viewer: Viewer, n: int) -> dict[str, Any]:
        """The full state after the first n events, with the n-th event (host, or once finished)."""
        game = self._repository.game(game_id)
        check_replay_open(game, viewer, N_("a replay"), self.seals.revealed(game))
        if not 0 <= n <= game.version:
            raise GameNotFound(N_("step %(n)s is outside 0..%(version)s"), n=n,
                               version=game.version)
        if n == 0:
            return {"version": 0, "of": game.version, "event": None, "state": None, "view": None}
        at = game if n == game.version else self._repository.game(game.id, version=n)
        event = next(iter(self._repository.event_store.get(game.id, gt=n - 1, lte=n)))
        record = event_record(event)
        return {"version": n, "of": game.version, "event": record, "state": at.full_state(),
                "view": at.view(SPECTATOR)}


def shown_event(game: Game, event: Any, viewer: Viewer, revealed: bool | None = None
                ) -> dict[str, Any]:
    """A stored event as the log shows it to `viewer` (`revealed`: service.audit.seals's answer; by
    default the game's own, which keeps a sealed family's games sealed)."""
    return redacted(game, event_record(event), viewer, revealed)


def redacted(game: Game, record: dict[str, Any], viewer: Viewer, revealed: bool | None = None
             ) -> dict[str, Any]:
    """An event's record as the log shows it to `viewer`: a new dict without the chain
    links and without the event's nonce (format 3: secret like the seed until the end, shown
    only in the export and the replay; docs/format.md, "Commitment nonces"), the record itself
    left as it was, for other viewers."""
    shown = {"version": record["version"], "type": record["type"],
             "timestamp": record["timestamp"],
             "data": game.redact(record["type"], record["data"], viewer, revealed)}
    if "by" in record:  # events stored before `by` existed have none
        shown["by"] = record["by"]
    if "shape" in record:  # the data's shape, where it is not its type's first
        shown["shape"] = record["shape"]
    return shown
