"""The arbiter's desk: annotations (notes and rulings, chained beside a game's own events) and
the links from a game to its forks.

A game's events never change, so what an arbiter adds is kept in an aggregate of its own (like
the token hashes and the bot seats), created with the first annotation. Each annotation names
the step it is about (`version`, 0 for the setup) and the hash of that step's event, and is
linked into a chain of its own: `hash` = SHA-256 of `prev_hash` + the canonical JSON of the
annotation without `hash`, the first `prev_hash` being the game's seed commitment. The export
carries them, signed with the rest of the document, and verification checks every link.

`Arbiter` is the host's desk in one Application: annotating a game, reading its annotations,
forking a game from a step between two moves (a game in play stops, sealed: service.audit.seals),
and listing a game's forks.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain.core import BadCommand, Game, Viewer, record_hash
from domain.core.names import seat_name
from domain.core.words import N_
from service.audit.seals import Family, Seals, family_root
from service.errors import Conflict
from service.store.repository import GameRepository, parse_game_id
from service.store.topics import stored_as
from service.table.access import check_host, check_replay_open
from service.table.seats import BotSeats
from service.table.tokens import draw_salt, draw_seed

KINDS = ("note", "ruling")
MAX_TEXT = 4000  # characters of one annotation
MAX_ANNOTATIONS = 1000  # per game: an arbiter's desk, not a chat
AUTHOR = "host"  # who an annotation is by when the host names nobody (the host annotates)


@stored_as("service.arbiter")
class Annotations(Aggregate):
    """Every annotation of one game, in the order they were made, and the chain's last link."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:annotations:{game_id}")

    @event("Opened")
    def __init__(self, game_id: UUID, seed_commitment: str) -> None:
        self.game_id = game_id
        self.records: list[dict[str, Any]] = []
        self.head = seed_commitment

    def annotate(self, version: int, event_hash: str, text: Any, kind: Any = "note",
                 author: Any = None) -> dict:
        """Add one annotation about the step `version` (whose event hash is `event_hash`), by
        `author` (a name, as players are named; the host by default), recorded as made on this
        game (`game_id`: a copy imported elsewhere tells its own from the original's)."""
        text, kind = check_text(text), "note" if kind is None else kind
        if kind not in KINDS:
            raise BadCommand(N_("kind is one of %(kinds)s, not %(kind)r"), kinds=', '.join(KINDS),
                             kind=kind)
        author = AUTHOR if author is None else seat_name(author)
        if len(self.records) >= MAX_ANNOTATIONS:
            raise BadCommand(N_("a game takes at most %(max_annotations)s annotations"),
                             max_annotations=MAX_ANNOTATIONS)
        record = {"id": secrets.token_hex(8), "version": version, "kind": kind, "text": text,
                  "author": author, "timestamp": datetime.now(UTC).isoformat(),
                  "game_id": str(self.game_id), "event_hash": event_hash,
                  "prev_hash": self.head}
        record["hash"] = record_hash(self.head, record)
        self._annotated(record=record)
        return dict(record)

    @classmethod
    def restored(cls, game_id: UUID, seed_commitment: str, records: list[dict[str, Any]]
                 ) -> Annotations | None:
        """The annotations of an imported document, as verified (None when it has none)."""
        if not records:
            return None
        desk = cls(game_id=game_id, seed_commitment=seed_commitment)
        for record in records:
            desk._annotated(record=dict(record))
        return desk

    @event("Annotated")
    def _annotated(self, record: dict[str, Any]) -> None:
        self.records.append(dict(record))
        self.head = record["hash"]


def check_text(text: Any) -> str:
    """An annotation's text: non-empty, bounded, printable."""
    if not isinstance(text, str) or not text.strip():
        raise BadCommand(N_("an annotation needs a text"))
    if len(text) > MAX_TEXT:
        raise BadCommand(N_("an annotation has at most %(max_text)s characters"), max_text=MAX_TEXT)
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise BadCommand(N_("an annotation's text has no control characters but new lines and "
                            "tabs"))
    return text


def shown(record: dict[str, Any]) -> dict[str, Any]:
    """An annotation as the API answers it (the chain links are the export's), with the game it
    was made on where recorded (every annotation made since annotations named it)."""
    return {k: record[k] for k in ("id", "version", "kind", "text", "author", "timestamp",
                                   "game_id") if k in record}


@stored_as("service.arbiter")
class Origin(Aggregate):
    """Where an imported game came from: the original's game id and the key that signed the
    document imported (and that document's own origin, for a copy of a copy). Written once."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:origin:{game_id}")

    @event("Recorded")
    def __init__(self, game_id: UUID, origin: dict[str, Any]) -> None:
        self.game_id = game_id
        self.origin = dict(origin)


def origin_of(document: dict[str, Any], signer: str | None) -> dict[str, Any]:
    """The origin a copy of `document` records: its game, the key that signed it, and the
    document's own origin where it is itself a copy."""
    origin: dict[str, Any] = {"game_id": str(document["game_id"]), "key_id": signer}
    if isinstance(document.get("origin"), dict):
        origin["origin"] = dict(document["origin"])
    return origin


@stored_as("service.arbiter")
class Forks(Aggregate):
    """The games forked from one game: the parent's side of the link (the fork's own creation
    records its parent), since the parent's events never change."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:forks:{game_id}")

    @event("Opened")
    def __init__(self, game_id: UUID) -> None:
        self.game_id = game_id
        self.forks: list[dict[str, Any]] = []

    def add(self, fork_id: UUID, at: int) -> None:
        """Link a new fork, made from the state after event `at`."""
        self._linked(fork={"game_id": str(fork_id), "at": at})

    @event("Linked")
    def _linked(self, fork: dict[str, Any]) -> None:
        self.forks.append(dict(fork))


class Arbiter:
    """The arbiter's work on one Application's games: annotations and forks."""

    def __init__(self, repository: GameRepository, save: Callable[..., Any],
                 store_new: Callable[..., Any], seals: Seals) -> None:
        self._repository = repository
        self._seals = seals
        self._save = save  # the Application's save
        self._store_new = store_new  # the Application's: stores a new game with its tokens

    def annotate(self, game_id: str | UUID, viewer: Viewer, version: Any, text: Any,
                 kind: Any = None, author: Any = None) -> dict[str, Any]:
        """The host (the arbiter) attaches a note or a ruling to step `version` of a game,
        signed with `author`'s name (the host's by default)."""
        game = self._repository.game(game_id)
        check_host(viewer, N_("annotating a game"))
        step = check_step(game, version)
        try:
            desk = self._repository.get(Annotations.create_id(game.id))
        except AggregateNotFoundError:
            desk = Annotations(game_id=game.id, seed_commitment=game.seed_commitment)
        record = desk.annotate(step, self._event_hash(game, step), text, kind, author)
        try:
            self._save(desk)
        except IntegrityError:
            raise Conflict(N_("another annotation was stored first; try again")) from None
        return shown(record)

    def annotation_records(self, game: Game) -> list[dict[str, Any]]:
        """Every annotation of a game with its chain links, in order (the export's)."""
        try:
            return [dict(r) for r in self._repository.get(Annotations.create_id(game.id)).records]
        except AggregateNotFoundError:
            return []

    def origin(self, game: Game) -> dict[str, Any] | None:
        """Where an imported game came from (None for a game made here)."""
        try:
            return dict(self._repository.get(Origin.create_id(game.id), version=1).origin)
        except AggregateNotFoundError:
            return None

    def annotations(self, game_id: str | UUID, viewer: Viewer) -> list[dict[str, Any]]:
        """The annotations, for whoever may replay the game (the host, everybody once over)."""
        game = self._repository.game(game_id)
        check_replay_open(game, viewer, N_("the annotations"), self._seals.revealed(game))
        return [shown(r) for r in self.annotation_records(game)]

    def fork(self, game_id: str | UUID, viewer: Viewer, at: Any) -> Any:
        """A new game (a NewGame) from the state after event `at`, between two moves.

        A game in play stops (GameAborted naming the fork) and, with the fork, founds a sealed
        family: nobody but the host sees any of their secrets until every game of the family is
        over (service.audit.seals). A fork of a game whose record is public is an analysis fork; one
        of a sealed game joins its family. The fork keeps the parent's bot seats and clock.
        """
        check_host(viewer, N_("forking a game"))
        parent = self._repository.game(game_id, for_update=True)
        step = check_step(parent, at)
        self._check_between_moves(parent, step)
        state = self._repository.game(parent.id, version=step)
        link = {"game_id": str(parent.id), "version": step, "hash": self._event_hash(parent, step)}
        bots = self._bot_seats(parent.id)  # a fork keeps its parent's bot seats
        family = family_root(parent, self._seals.revealed(parent))
        fork = type(parent).fork(state, link, seed=draw_seed(), salt=draw_salt(), bots=bots,
                                 family=family)
        try:
            links = self._repository.get(Forks.create_id(parent.id))
        except AggregateNotFoundError:
            links = Forks(game_id=parent.id)
        links.add(fork.id, step)
        also: list[Any] = [links]
        if not parent.finished:  # forked in play: the parent stops here, sealed
            parent.abort(f"forked as game {fork.id} from event {step}",
                         fork={"game_id": str(fork.id), "version": step})
            also.append(parent)
        if family is not None:
            members = self._seals.family(family) or Family(root=family)
            members.join(fork.id)
            also.append(members)
        # The organiser playing a seat (host_seat) keeps that seat's eyes in the fork too: a
        # host token of their own there would show them every hand the fork carries.
        return self._store_new(fork, bots, also=tuple(also),
                               host_seat=viewer.player if viewer.organiser else None)

    def _bot_seats(self, game_id: UUID) -> dict[str, str]:
        try:
            return dict(self._repository.get(BotSeats.create_id(game_id), version=1).seats)
        except AggregateNotFoundError:
            return {}

    def forks(self, game_id: str | UUID) -> list[dict[str, Any]]:
        """The games forked from a game, oldest first: [{"game_id", "at"}] (public)."""
        gid = parse_game_id(game_id)
        try:
            return [dict(f) for f in self._repository.get(Forks.create_id(gid)).forks]
        except AggregateNotFoundError:
            return []

    def _check_between_moves(self, game: Game, step: int) -> None:
        """A fork begins between two moves: a move that stores several events (a card played,
        then the trick it completes) leaves no whole table between them."""
        types = [type(e).__name__ for e in self._repository.event_store.get(game.id)]
        # what a command begins with (the host's and the clock's included)
        moves = set(type(game).COMMAND_EVENTS) | {e.__name__ for e in (
            Game.GameAborted, Game.SeatHanded, Game.ClockExpired)}
        if step < len(types) and types[step] not in moves:
            # types[i] is event i + 1's: the last move begun before `step` began at its version
            before = max((v for v, t in enumerate(types[:step]) if t in moves), default=0)
            raise BadCommand(N_("event %(step)s is in the middle of a move (event %(next)s "
                                "completes it): a fork begins between moves, e.g. after event "
                                "%(before)s"), step=step, next=step + 1, before=before)

    def _event_hash(self, game: Game, version: int) -> str:
        """The hash of a game's event `version`; the seed commitment for the setup (0)."""
        if version == 0:
            return game.seed_commitment
        if version == game.version:
            return game.chain_hash
        return next(iter(self._repository.event_store.get(game.id, gt=version - 1,
                                                          lte=version))).hash


def check_step(game: Game, version: Any) -> int:
    """A step of a game named by a request: a whole number in 0..its version."""
    if not isinstance(version, int) or isinstance(version, bool):
        raise BadCommand(N_("a step is a whole number (an event's version)"))
    if not 0 <= version <= game.version:
        raise BadCommand(N_("step %(version)s is outside 0..%(last)s"), version=version,
                         last=game.version)
    return version
