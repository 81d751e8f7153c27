"""The shared base of every game aggregate.

A game is an eventsourcing ``Aggregate``. Its public command methods check the rulings (raising
``Refusal`` with the ruling id) and compute everything random, then trigger exactly the events
that record the outcome; the ``@event`` bodies only assign, because they run again on every
replay. This base adds what every game shares: setup checks, command dispatch, the hash chain
fixed when each event is triggered, legal-move normalisation and the views.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from inspect import signature
from itertools import repeat
from types import MappingProxyType
from typing import Any

from eventsourcing.domain import (
    Aggregate,
    BoundCommandMethodDecorator,
    CanMutateAggregate,
    CommandMethodDecorator,
    OriginatorIDError,
    OriginatorVersionError,
    decorated_func_callers,
    event,
)
from eventsourcing.utils import get_topic

from domain.core import clocks
from domain.core.chain import (
    BOT,
    CLOCK,
    HOST_BY,
    SERVER,
    clone,
    event_hash,
    timestamp_text,
)
from domain.core.dealing import is_salt, seed_commitment
from domain.core.errors import Aborted, BadCommand, BadSetup, GameFinished, NotYourTurn
from domain.core.names import check_recorded_names, seat_names
from domain.core.narration import Narrator
from domain.core.visibility import Viewer, redact_event_data, sees_everything
from domain.core.words import N_, Term

MAX_ABORT_REASON = 500  # characters of the reason a host gives for aborting a game
MOVE, OTHER_START = 1, 2  # what an event class's STARTS says (Game.Event.mutate, receipts)
SEED_MAX_LENGTH = 200  # characters of a string seed
SEED_MAX_BITS = 512  # size of a numeric seed

# During verification and import the recorded timestamps are replayed instead of the clock.
_recorded_timestamps: ContextVar[Iterator[datetime] | None] = ContextVar(
    "recorded_timestamps", default=None
)


@contextmanager
def recorded_timestamps(timestamps: Iterator[datetime]):
    """Within this block, new events take their timestamps from `timestamps` (replay, import)."""
    token = _recorded_timestamps.set(timestamps)
    try:
        yield
    finally:
        _recorded_timestamps.reset(token)


# Who stores the events being triggered (docs/api.md, "Who did what"): during a command, the
# first event is the command's own, by whoever sent it; what follows from it is the server's.
_acting: ContextVar[list[str] | None] = ContextVar("acting", default=None)
# During verification and import, the recorded `by` of each event (None: an event stored before
# `by` existed, which keeps having none).
_recorded_authors: ContextVar[Iterator[str | None] | None] = ContextVar(
    "recorded_authors", default=None)


@contextmanager
def acting(by: str):
    """Within this block, the next event triggered is `by`'s; the ones after it the server's."""
    token = _acting.set([by])
    try:
        yield
    finally:
        _acting.reset(token)


@contextmanager
def recorded_authors(authors: Iterator[str | None]):
    """Within this block, new events take their `by` from `authors` (replay, import)."""
    token = _recorded_authors.set(authors)
    try:
        yield
    finally:
        _recorded_authors.reset(token)


# During verification and import, the shape each event was recorded in (docs/format.md, "Event
# shapes"): the rules then produce an event in that shape, so it is compared and stored as it was.
_recorded_shapes: ContextVar[Iterator[int] | None] = ContextVar("recorded_shapes", default=None)


@contextmanager
def recorded_shapes(shapes: Iterator[int]):
    """Within this block, new events are made in the shapes `shapes` gives (replay, import)."""
    token = _recorded_shapes.set(shapes)
    try:
        yield
    finally:
        _recorded_shapes.reset(token)


def _next_shape(event_class: Any) -> int:
    """The shape of the next event: its type's current one, or the one recorded for it."""
    current = getattr(event_class, "class_version", 1)
    replayed = _recorded_shapes.get()
    if replayed is None:
        return current
    shape = next(replayed, None)
    # A shape this release cannot make (unknown, newer): the current one, which the
    # verifier then finds to differ from the record.
    if type(shape) is not int or not 1 <= shape < current or not all(
            hasattr(event_class, f"downcast_v{n}_v{n - 1}") for n in range(shape + 1, current + 1)):
        return current
    return shape


def upcast(event_class: Any, state: dict[str, Any], shape: int) -> dict[str, Any]:
    """`state` (an event's stored attributes, in shape `shape`) brought to its type's current
    shape by the type's upcasters, as eventsourcing's mapper does when it reads a stored event;
    the first upcaster keeps what was stored (domain.core.chain.keep_stored)."""
    current = getattr(event_class, "class_version", 1)
    while shape < current:
        getattr(event_class, f"upcast_v{shape}_v{shape + 1}")(state)
        shape += 1
    return state


# During a restore, the id the game had where it was archived (a new id otherwise).
_recorded_id: ContextVar[Any] = ContextVar("recorded_id", default=None)


@contextmanager
def recorded_id(game_id: Any):
    """Within this block, a game created takes `game_id` as its id (a restore keeps its games'
    ids, so their links and documents still name them)."""
    token = _recorded_id.set(game_id)
    try:
        yield
    finally:
        _recorded_id.reset(token)


def _next_by() -> str | None:
    replayed = _recorded_authors.get()
    if replayed is not None:
        return next(replayed, None)
    pending = _acting.get()
    return pending.pop() if pending else SERVER


def _next_timestamp(event_class: Any) -> datetime:
    replayed = _recorded_timestamps.get()
    if replayed is not None:
        stamp = next(replayed, None)
        if stamp is not None:
            return stamp
    return event_class.create_timestamp()


def note_start(game: Any, event: Any, starts: int) -> None:
    """An event that begins a step (a move: `starts` 1; the host's or the clock's: 2) ends the
    step before it: the seat that moved then keeps, as its receipt, the step's last event (the
    one before this, whose hash the game still holds). Assignments only: a game rebuilt from its
    events keeps the same. Follow-ups cost nothing here (see Game.Event.mutate)."""
    mover = game._mover
    if mover is not None:
        receipted = game.__dict__.get("_receipted")
        if receipted is None:
            receipted = game._receipted = {}
        receipted[mover] = [event.originator_version - 1, game.chain_hash]  # a list, as snapshots keep it
    game._mover = event.__dict__.get("player") if starts == MOVE else None


def built_event(event_class: Any, fields: dict[str, Any]) -> Any:
    """An event built as eventsourcing's mapper builds a stored one (``__new__``, then its
    ``__dict__``): without the dataclass ``__init__``, so a field added later (the salt) may be
    absent, as it is from the events stored before it."""
    event = object.__new__(event_class)
    object.__setattr__(event, "__dict__", fields)
    return event


@dataclass(frozen=True)
class Option:
    """A game option: its default and what it may be (an integer range, or a set of words)."""

    default: Any
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False

    def read(self, name: str, value: Any) -> Any:
        """The checked value, or BadSetup with a sentence."""
        if value is None and self.nullable:
            return None
        if self.choices:
            if value not in self.choices:
                raise BadSetup(N_("option %(name)r must be one of %(choices)s"), name=name,
                               choices=', '.join(self.choices))
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadSetup(N_("option %(name)r must be a whole number"), name=name)
        if not self.low <= value <= self.high:
            raise BadSetup(N_("option %(name)r must be from %(low)s to %(high)s"), name=name,
                           low=self.low, high=self.high)
        return value


@dataclass(frozen=True)
class Param:
    """A command field: a card code or word (``str``) or a list of them (``list``)."""

    kind: type
    required: bool = True
    choices: tuple[str, ...] = ()

    LIST_MAX = 200  # cards one list field may name (more than any hand holds)
    WORD_MAX = 20  # characters of one card code or word (the API's schema checks it)

    def read(self, name: str, value: Any) -> Any:
        """The checked value, or BadCommand with a sentence."""
        if self.kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise BadCommand(N_("field %(name)r must be a list of card codes"), name=name)
            if len(value) > self.LIST_MAX:
                raise BadCommand(N_("field %(name)r is too long"), name=name)
            return list(value)
        if not isinstance(value, str):
            raise BadCommand(N_("field %(name)r must be a string"), name=name)
        if self.choices and value not in self.choices:
            raise BadCommand(N_("field %(name)r must be one of %(choices)s"), name=name,
                             choices=', '.join(self.choices))
        return value


@dataclass(frozen=True)
class Metric:
    """A per-game average the statistics keep: its name in the answer, what one sample is."""

    name: str
    description: str


# (player, metric name, value): one sample; a metric's average is the mean of its samples.
Sample = tuple[str, str, float]


@dataclass(frozen=True)
class Command:
    """A command type: the method that runs it and its fields."""

    method: str
    params: dict[str, Param] = field(default_factory=dict)

    def read(self, type_: str, command: dict[str, Any]) -> dict[str, Any]:
        """The command's fields, checked; unknown and missing fields are refused."""
        if not command.keys() <= self.params.keys() | {"type"}:
            unknown = sorted(set(command) - set(self.params) - {"type"})
            raise BadCommand(N_("command %(type_)r has no field %(unknown)s"), type_=type_,
                             unknown=', '.join(map(repr, unknown)))
        fields = {}
        for name, param in self.params.items():
            if name in command:
                fields[name] = param.read(name, command[name])
            elif param.required:
                raise BadCommand(N_("command %(type_)r needs the field %(name)r"), type_=type_,
                                 name=name)
        return fields


@functools.cache
def _event_types(cls: type[Game]) -> tuple[str, ...]:
    """Game.event_types, found once per class (a scan of the class, on every `?type=` page)."""
    return tuple(sorted(name for name in dir(cls) if name != "Event"
                        and isinstance(getattr(cls, name, None), type)
                        and issubclass(getattr(cls, name), Game.Event)))


def check_seed(seed: Any) -> None:
    """A seed is a whole number of at most SEED_MAX_BITS or a string of 1 to SEED_MAX_LENGTH
    characters: every way a game is started (created, imported, verified) checks it here."""
    if isinstance(seed, bool) or not isinstance(seed, int | str) or str(seed) == "":
        raise BadSetup(N_("seed must be a whole number or a non-empty string"))
    if isinstance(seed, str) and len(seed) > SEED_MAX_LENGTH:
        raise BadSetup(N_("a string seed has at most %(seed_max_length)s characters"),
                       seed_max_length=SEED_MAX_LENGTH)
    if isinstance(seed, int) and abs(seed) >= 1 << SEED_MAX_BITS:
        raise BadSetup(N_("a numeric seed has at most %(seed_max_bits)s bits"),
                       seed_max_bits=SEED_MAX_BITS)


def check_bot_seats(bots: Any, players: list[str]) -> dict[str, str]:
    """Bot seats as the creation records them: seats of this game, each a bot kind's name (the
    service checks the kinds it has); in seat order."""
    if bots is None:
        return {}
    if not isinstance(bots, dict) or not all(
            p in players and isinstance(kind, str) and 0 < len(kind) <= 20
            for p, kind in bots.items()):
        raise BadSetup(N_("bots must name seats of this game, each with a bot"))
    return {p: bots[p] for p in players if p in bots}


def check_salt(salt: Any) -> None:
    """A salt is 64 lowercase hex digits, or absent (a replay document of format 1)."""
    if salt is not None and not is_salt(salt):
        raise BadSetup(N_("salt must be 64 lowercase hex digits"))


# Reaches into eventsourcing's internals (this fast path, Game._create, Game._trigger_exact,
# Game.Event.mutate, events built without their __init__): listed with their measured
# reasons in service/store/internals.py and checked by tests/service/test_internals.py.
# @event class -> (its method's body, the event fields it takes): see Game.Event.mutate.
_APPLIERS: dict[type, tuple[Any, tuple[str, ...]]] = {}


def _recorder(decorator: CommandMethodDecorator, event_class: Any) -> Any:
    """A stand-in for an ``@event`` method that triggers its event class directly.

    eventsourcing's bound decorator object re-reads the method's signature on every call to
    turn arguments into event fields (docs/performance.md). Our commands always name every
    field, so a call whose keywords are exactly the method's parameters is triggered as is;
    any other call (positional arguments, defaults left out, a wrong name) takes the
    library's own path, with its own errors. Same event class, same fields, same ``apply``.
    """
    func = decorator.decorated_func
    order = tuple(signature(func).parameters)[1:]  # the event class's own fields, in order
    names = frozenset(order)

    def record(self: Game, *args: Any, **fields: Any) -> None:
        if args or fields.keys() != names:
            BoundCommandMethodDecorator(decorator, self).trigger(*args, **fields)
        else:
            self._trigger_exact(event_class, {name: fields[name] for name in order})

    record.__name__, record.__qualname__, record.__doc__ = (
        func.__name__, func.__qualname__, func.__doc__)
    record.__wrapped__ = func  # type: ignore[attr-defined]
    return record


class Game(Aggregate):
    """Base of the four games: the shared lifecycle around a game's own rules."""

    # Class attributes carry no annotations on purpose: eventsourcing turns an annotated
    # aggregate class into a dataclass, whose generated __init__ would hide this one.
    KEY = ""  # the game key of docs/api.md
    MIN_PLAYERS = 2
    MAX_PLAYERS = 12
    OPTIONS = {}  # name -> Option
    SHORT_OPTIONS = {}  # options of a short game: the one recipe tests, bots and benchmarks use
    COMMANDS = {}  # command type -> Command
    # event type -> (command type, command fields copied from the event's data); the event
    # also carries the acting `player`. The verifier turns these events back into commands.
    COMMAND_EVENTS = {}
    # event type -> {field: redaction policy} (see domain.core.visibility)
    SECRET_FIELDS = {}
    # event types that record a deal (hands, piles, a ring): the verifier names a mismatch there
    # as a deal the revealed seed does not produce
    DEAL_EVENTS = frozenset()
    # event type -> its field that reveals, per player, the fields of each player's earlier
    # secret command (VampiRing's TurnResolved `moves`): the verifier names an edited secret
    # move at the move's own version, not at the event that revealed it
    REVEALED_MOVES = {}
    NARRATOR = Narrator  # plain words for each event (domain/<game>/narration.py)
    METRICS = ()  # the game's own averages (Metric) for the statistics, fed by `samples`
    TURN_RULE = ""  # the ruling that says whose turn it is
    END_RULE = ""  # the ruling that ends the game (cited by a command sent after the end)
    LOWER_SCORE_WINS = False  # whether the fewest points win (rankings and the viewer read it)
    # (the event that plays a card to a trick, the event that ends a trick), for a game played
    # in tricks: the viewer's jumps to the start of each trick (domain.core.landmarks)
    TRICKS = None  # (no annotation: see the note at the top of the class)
    aborted = False  # set by GameAborted; a class default, so games stored before it read False
    bots = MappingProxyType({})  # seat -> bot kind (the creation's `bots`); none: a class default
    salt = None  # format 1 games (and their snapshots) have none: a class default
    # The seats' clocks (domain.core.clocks), class defaults for games without one: the clock
    # chosen at creation, each seat's seconds left as of its clock's start, when each running
    # clock started, and the seats whose clock ran out and whose move is now the bot's.
    clock = None
    clock_left = None
    clock_since = None
    expired = ()
    clocks_started = False  # ClocksStarted recorded (clocks that wait for the table: clocks.READY)
    handed = None  # seat -> bot ("heuristic" | "random") or None: SeatHanded, as last recorded
    # Receipts (docs/api.md): the seat whose move the events being applied follow, and each
    # seat's last move's last event as (version, hash). Bookkeeping of the record, not the table.
    _mover = None
    _receipted = None

    class Event(Aggregate.Event):
        prev_hash: str
        hash: str
        STARTS = 0  # what begins a step: MOVE (a seat's move), OTHER_START (host, clock), or 0

        def mutate(self, aggregate: Any) -> Any:
            """Apply the event, live or on replay, and keep the chain's last link.

            For our ``@event`` classes this is eventsourcing's ``mutate`` and its decorated
            ``apply`` written out (same checks, same order), with the method's fields looked
            up once per class instead of by signature on every event.
            """
            applier = _APPLIERS.get(type(self))
            if applier is None or aggregate is None:
                aggregate = super().mutate(aggregate)
            else:
                if self.originator_id != aggregate.id:
                    raise OriginatorIDError(self.originator_id, aggregate.id)
                if self.originator_version != aggregate.version + 1:
                    raise OriginatorVersionError(self.originator_version, aggregate.version + 1)
                body, names = applier
                fields = self.__dict__
                body(aggregate, **{n: fields[n] for n in names if n in fields})
                aggregate.version = self.originator_version
                aggregate.modified_on = self.timestamp
            starts = self.STARTS  # a class attribute: 0 for what follows from a move
            if starts:
                note_start(aggregate, self, starts)
            aggregate.chain_hash = self.hash
            if aggregate.clock is not None:
                clocks.tick(aggregate, self)  # from this event's stored timestamp, never the wall
            return aggregate

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Let eventsourcing define each ``@event`` method's event class, then swap the
        method for a direct trigger of that class (see ``_recorder``)."""
        super().__init_subclass__(**kwargs)
        # The written-out apply holds only while no event class of the game defines its own.
        plain_apply = cls.Event.apply is CanMutateAggregate.apply
        for name, attr in list(cls.__dict__.items()):
            if isinstance(attr, CommandMethodDecorator) and name != "__init__":
                event_class = decorated_func_callers[attr]
                setattr(cls, name, _recorder(attr, event_class))
                if event_class.__name__ in cls.COMMAND_EVENTS:
                    event_class.STARTS = MOVE
                if plain_apply:
                    func = attr.decorated_func
                    _APPLIERS[event_class] = (func, tuple(signature(func).parameters)[1:])

    # -- creation ------------------------------------------------------------------------

    def __init__(
        self,
        players: list[str],
        options: dict[str, Any],
        seed: int | str,
        seed_commitment: str,
        deal: dict[str, Any] | None,
        salt: str | None = None,
        clock: dict[str, Any] | None = None,
        bots: dict[str, str] | None = None,
    ) -> None:
        self.players = list(players)
        if bots:  # games without bot seats (all stored before them) read the class default
            self.bots = dict(bots)
        self.options = dict(options)
        self.seed = seed
        self.seed_commitment = seed_commitment
        self.salt = salt
        self.clock = clone(clock)
        self.deal = deal
        self.finished = False
        self.scores = {p: 0 for p in players}
        self.winners: list[str] = []
        self.init_state()

    @classmethod
    def start(
        cls,
        players: list[str],
        *,
        seed: int | str,
        options: dict[str, Any] | None = None,
        deal: dict[str, Any] | None = None,
        salt: str | None = None,
        recorded: bool = False,
        clock: dict[str, Any] | None = None,
        bots: dict[str, str] | None = None,
    ) -> Game:
        """Check the setup, record it, and deal: a new game ready for its first command.

        The service always draws a `salt` (replay format 2); a game started without one commits
        to its seed unsalted, as replay documents of format 1 did. `recorded`: the players are
        a replay document's, seated as recorded under the name rule of their day. `clock`: each
        seat's bank and increment (domain.core.clocks), or None. `bots`: the seats the server's
        bots play (seat -> bot kind), recorded in the creation.
        """
        players = cls.check_players(players, recorded=recorded)
        options = cls.check_options(options or {}, len(players))
        check_seed(seed)
        check_salt(salt)
        clock = clocks.check_clock(clock)
        bots = check_bot_seats(bots, players)
        if deal is not None:
            if not isinstance(deal, dict):
                raise BadSetup(N_("deal must be an object"))
            deal = cls.check_deal(players, options, deal)
        game = cls(
            players=players,
            options=options,
            seed=seed,
            seed_commitment=seed_commitment(seed, salt),
            deal=deal,
            salt=salt,
            clock=clock,
            bots=bots,
        )
        game.begin()
        return game

    @classmethod
    def check_players(cls, players: Any, *, recorded: bool = False) -> list[str]:
        """Seats in creation order: names by the rule (domain.core.names), a count the game
        allows."""
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BadSetup(N_("players must be a list of names"))
        if not cls.MIN_PLAYERS <= len(players) <= cls.MAX_PLAYERS:
            raise BadSetup(N_("%(key)s is for %(min_players)s to %(max_players)s players, not "
                              "%(n_players)s"), key=cls.KEY, min_players=cls.MIN_PLAYERS,
                           max_players=cls.MAX_PLAYERS, n_players=len(players))
        return check_recorded_names(players) if recorded else seat_names(players)

    @classmethod
    def check_options(cls, options: Any, player_count: int) -> dict[str, Any]:
        """Every option filled in: given values checked, the rest defaulted."""
        if not isinstance(options, dict):
            raise BadSetup(N_("options must be an object"))
        unknown = sorted(set(options) - set(cls.OPTIONS))
        if unknown:
            known = ", ".join(cls.OPTIONS) or "none"
            raise BadSetup(N_("%(key)s has no option %(unknown)s (options: %(known)s)"),
                           key=cls.KEY, unknown=', '.join(unknown), known=known)
        return {
            name: opt.read(name, options[name]) if name in options else opt.default
            for name, opt in cls.OPTIONS.items()
        }

    @classmethod
    def check_deal(cls, players: list[str], options: dict[str, Any], deal: dict) -> dict:
        """A stacked deal, checked; games that accept one override this."""
        raise BadSetup(N_("%(key)s takes no stacked deal"), key=cls.KEY)

    # -- the hash chain -------------------------------------------------------------------

    @classmethod
    def _create(cls, event_class: Any, *, id: Any = None, **kwargs: Any) -> Any:  # noqa: A002
        timestamp = _next_timestamp(event_class)
        by = _next_by()
        _next_shape(event_class)  # the creation has one shape: a recorded other one is a mismatch
        if kwargs.get("salt") is None:
            # Format 1: the creation event has no salt field at all, so its data and hash stay
            # what they were before salts (the golden replays and old stores keep verifying).
            kwargs.pop("salt", None)
        if kwargs.get("clock") is None:
            kwargs.pop("clock", None)  # a game without a clock records none, as before clocks
        if not kwargs.get("bots"):
            kwargs.pop("bots", None)  # likewise: a game without bot seats records none
        prev = kwargs["seed_commitment"]
        digest = event_hash(prev, cls.INITIAL_VERSION, event_class.__name__,
                            timestamp_text(timestamp), kwargs, by)
        # Built as the store builds an event (the generated dataclass would require every
        # __init__ parameter and no `by`): applying it calls __init__ with the fields it has,
        # so those left out (salt, clock, bots) take their defaults.
        created = built_event(event_class, {
            "originator_id": id if id is not None else _recorded_id.get() or cls.create_id(),
            "originator_version": cls.INITIAL_VERSION, "timestamp": timestamp,
            "originator_topic": get_topic(cls), "prev_hash": prev, "hash": digest, **kwargs})
        if by is not None:
            created.__dict__["by"] = by
        game = created.mutate(None)
        game.pending_events.append(created)
        return game

    @classmethod
    def event_from_record(cls, game_id: Any, record: dict[str, Any]) -> Any:
        """The stored event a record of the log or of a replay document stands for."""
        fields = {"originator_id": game_id, "originator_version": record["version"],
                  "timestamp": datetime.fromisoformat(record["timestamp"]),
                  "prev_hash": record["prev_hash"], "hash": record["hash"], **record["data"]}
        if record.get("by") is not None:
            fields["by"] = record["by"]
        if record["type"] == "Created":
            fields["originator_topic"] = get_topic(cls)
            return built_event(cls.Created, fields)
        # The shared lifecycle's events (GameAborted, Forked) are stored as Game's own classes:
        # eventsourcing gives each game a subclass of them that no method applies.
        event_class = Game.__dict__.get(record["type"]) or getattr(cls, record["type"])
        return built_event(event_class, upcast(event_class, fields, record.get("shape", 1)))

    @classmethod
    def replayed(cls, game_id: Any, records: list[dict[str, Any]]) -> Game | None:
        """The game as it stood after `records`, their events applied as the store applies them
        (None for no records)."""
        game: Game | None = None
        for record in records:
            game = cls.event_from_record(game_id, record).mutate(game)
        return game

    @classmethod
    def event_types(cls) -> list[str]:
        """The name of every event this game records (its own and the shared ones), sorted."""
        return list(_event_types(cls))

    def _link(self, event_class: Any, fields: dict[str, Any], shape: int | None = None
              ) -> tuple[Any, str, str, str | None]:
        """The next event's timestamp, previous hash, hash and `by` (the chain of docs/api.md),
        `fields` being its payload in `shape` (by default its type's current one)."""
        timestamp = _next_timestamp(event_class)
        if timestamp < self.modified_on and _recorded_timestamps.get() is None:
            # A clock stepped back (NTP, another worker's clock): the log stays in time order,
            # which the verifier checks.
            timestamp = self.modified_on
        prev, by = self.chain_hash, _next_by()
        return timestamp, prev, event_hash(prev, self.version + 1, event_class.__name__,
                                           timestamp_text(timestamp), fields, by,
                                           shape or getattr(event_class, "class_version", 1)), by

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        # eventsourcing's Aggregate.trigger_event (our games define no TOPIC, whose check is the
        # only other thing it does); the library binds the keywords to the method's fields first.
        self._trigger_exact(event_class, kwargs)

    def _trigger_exact(self, event_class: Any, fields: dict[str, Any]) -> None:
        """`trigger_event` for fields known to be exactly the event class's own, in its order.

        The event is built as eventsourcing's mapper builds a stored one (``__new__``, then its
        ``__dict__``), not through the frozen dataclass's ``__init__``, whose only work here
        would be to check the names again (a quarter of the cost: docs/performance.md).
        """
        shape = _next_shape(event_class)
        if shape != getattr(event_class, "class_version", 1):
            self._trigger_as_recorded(event_class, fields, shape)
            return
        timestamp, prev, digest, by = self._link(event_class, fields)
        new_event = object.__new__(event_class)
        state = {"originator_id": self.id, "originator_version": self.version + 1,
                 "timestamp": timestamp, "prev_hash": prev, "hash": digest, **fields}
        if by is not None:
            state["by"] = by
        object.__setattr__(new_event, "__dict__", state)
        new_event.mutate(self)
        self._pending_events.append(new_event)

    def _trigger_as_recorded(self, event_class: Any, fields: dict[str, Any], shape: int) -> None:
        """The event in an older shape a record has it in (verification, import): its payload
        as that release made it, from this game as it stands before the event (the type's
        `downcast_vM_vN(game, data)`), linked and stored in that shape, applied upcast."""
        data, current = fields, getattr(event_class, "class_version", 1)
        for newer in range(current, shape, -1):
            data = getattr(event_class, f"downcast_v{newer}_v{newer - 1}")(self, data)
        timestamp, prev, digest, by = self._link(event_class, data, shape)
        state = {"originator_id": self.id, "originator_version": self.version + 1,
                 "timestamp": timestamp, "prev_hash": prev, "hash": digest, **data}
        if by is not None:
            state["by"] = by
        new_event = built_event(event_class, upcast(event_class, state, shape))
        new_event.mutate(self)
        self._pending_events.append(new_event)

    # -- forks: a game continued from a state of another ----------------------------------

    # What a game is as a record, not as a table: a fork has its own seed, salt and chain.
    # A fork's clocks start afresh, each seat with a full bank, and wait for its table
    # (clocks.READY): the running clocks' start times are the parent's moments, not a table's.
    RECORD_FIELDS = frozenset({"players", "options", "seed", "seed_commitment", "salt", "deal",
                               "chain_hash", "parent", "clock", "clock_left", "clock_since",
                               "expired", "bots", "family", "clocks_started"})
    parent = None  # a fork's {"game_id", "version", "hash"} of its parent's event; a class default
    # The sealed family a game belongs to (the id of the game first forked while its table was
    # secret), or None: a game forked in play, and every fork of a table not yet public, stay
    # sealed until every game of the family is over (docs/api.md, "Forks keep the secrets").
    family = None

    def table_state(self) -> dict[str, Any]:
        """Everything the rules read from here on (hands, piles, pending moves, scores): what a
        fork carries over, secrets intact."""
        return clone({k: v for k, v in vars(self).items()
                      if not k.startswith("_") and k not in self.RECORD_FIELDS})

    @classmethod
    def fork(cls, at: Game, parent: dict[str, Any], *, seed: int | str, salt: str | None,
             bots: dict[str, str] | None = None, family: str | None = None) -> Game:
        """A new game whose table is `at`'s (a game as it stood after event parent["version"]).

        Same players, options, stacked deal and clock, the same rules from there; whatever is
        dealt from the fork on comes from its own new seed, committed in its creation as in any
        game. A fork begins where somebody is awaited: a game that is over has nothing to
        continue. `bots`: the seats the fork's bots play (by default `at`'s). `family`: the
        sealed family the fork joins (its table is not public), None for an analysis fork.
        """
        if at.finished or not at.to_act:
            raise BadSetup(N_("after event %(version)s nobody is awaited: a fork continues a "
                              "game where a player is to act"), version=parent['version'])
        return cls.forked(list(at.players), dict(at.options), clone(at.deal), at.table_state(),
                          parent, seed=seed, salt=salt,
                          bots=dict(at.bots) if bots is None else bots,
                          clock=clocks.waiting_clock(at.clock), family=family)

    @classmethod
    def forked(cls, players: list[str], options: dict[str, Any], deal: dict[str, Any] | None,
               table: dict[str, Any], parent: dict[str, Any], *, seed: int | str,
               salt: str | None, bots: dict[str, str] | None = None,
               clock: dict[str, Any] | None = None, family: str | None = None) -> Game:
        """A fork as it is recorded: its creation (with the parent's bot seats and clock), then
        the table it carries and, sealed, its family (the verifier re-runs a fork's document
        from here; `gruft verify --parent` checks the table). The fork's clocks start afresh,
        each seat with a full bank, when the fork's table is ready (domain.core.clocks)."""
        players = cls.check_players(players, recorded=True)  # as `start` checks them
        options = cls.check_options(options or {}, len(players))
        check_seed(seed)
        check_salt(salt)
        bots = check_bot_seats(bots, players)
        clock = clocks.check_clock(clock)
        if not isinstance(table, dict) or not isinstance(parent, dict):
            raise BadSetup(N_("a fork carries its parent's table and a link to its parent"))
        if family is not None and not isinstance(family, str):
            raise BadSetup(N_("a fork's family is the id of a game"))
        foreign = [k for k in table if not isinstance(k, str) or k.startswith("_")
                   or k in cls.RECORD_FIELDS]
        if foreign:
            raise BadSetup(N_("a fork's table holds the game's state, not %(foreign)r"),
                           foreign=foreign[0])
        game = cls(players=list(players), options=dict(options), seed=seed,
                   seed_commitment=seed_commitment(seed, salt), deal=clone(deal), salt=salt,
                   bots=bots, clock=clock)
        fields = {"parent": dict(parent), "table": clone(table)}
        if family is not None:  # an analysis fork records none, as every fork did before
            fields["family"] = family
        game._trigger_exact(Game.Forked, fields)
        return game

    @event("Forked")
    def _forked(self, parent: dict[str, Any], table: dict[str, Any],
                family: str | None = None) -> None:
        vars(self).update(clone(table))
        self.parent = dict(parent)
        if family is not None:
            self.family = family

    # -- commands -------------------------------------------------------------------------

    def execute(self, player: str, command: Any, by: str = "seat") -> None:
        """Run one command for `player`, sent `by` its seat, the host or a bot: check its shape
        and turn, then the game's rulings."""
        if player not in self.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=player)
        if not isinstance(command, dict):
            raise BadCommand(N_("a command is an object with a 'type'"))
        type_ = command.get("type")
        spec = self.COMMANDS.get(type_) if isinstance(type_, str) else None
        if spec is None:
            raise BadCommand(N_("%(key)s has no command %(type_)r (known: %(commands)s)"),
                             key=self.KEY, type_=type_, commands=', '.join(self.COMMANDS))
        fields = spec.read(type_, command)
        if self.aborted:
            raise Aborted(N_("the host aborted this game; it accepts no more commands"))
        if self.finished:
            raise self.end_refusal()
        if player not in self.to_act:
            raise self.turn_refusal(player)
        if by == BOT and not self.bot_may_play(player):
            raise BadCommand(N_("%(player)r is not a seat the server's bot plays"), player=player)
        waited = clocks.waiting(self)
        stamp = None
        if self.clock is not None and _recorded_timestamps.get() is None:
            stamp = clocks.in_time(self, player, by)  # CL-1: refused after the seat's deadline
        if stamp is not None:  # the move is stored at the time it was found in time at
            with acting(by), recorded_timestamps(repeat(stamp)):
                getattr(self, spec.method)(player, **fields)
        else:
            with acting(by):
                getattr(self, spec.method)(player, **fields)
        if waited and by != BOT and not self.finished:
            # A person's first move starts the clocks (docs/api.md, "The table"): that move
            # was free; every seat awaited now runs from here. A bot's move starts nothing.
            self._trigger_exact(Game.ClocksStarted, {"reason": clocks.MOVED})

    def bot_may_play(self, player: str) -> bool:
        """Whether the server's bot may move for `player` now: a bot seat, a seat handed to a bot
        (and not taken back), a seat whose clock ran out. The verifier names a bot move
        anywhere else."""
        handed = self.handed or {}
        if player in self.expired:
            return True
        return handed[player] is not None if player in handed else player in self.bots

    def bot_kind(self, player: str, recorded: dict[str, str] | None = None) -> str | None:
        """The bot that plays `player`'s seat now (None: its player): a seat handed over, else
        a bot seat of the creation (`recorded`: the service's record, for games stored before
        the creation recorded them). A seat whose clock ran out is not a bot seat: only its
        one move is the bot's (the clock runner makes it)."""
        handed = self.handed or {}
        if player in handed:
            return handed[player]
        return self.bots.get(player) or (recorded or {}).get(player)

    def playing_bots(self, recorded: dict[str, str] | None = None) -> dict[str, str]:
        """Every seat a bot plays now, in seat order (the views' `bots`)."""
        return {p: kind for p in self.players
                if (kind := self.bot_kind(p, recorded)) is not None}

    def abort(self, reason: Any, fork: dict[str, Any] | None = None) -> None:
        """The host stops a game in progress: no winners, nothing further accepted. `fork`:
        the game forked from it in play ({"game_id", "version"}), which seals it.

        No ruling of any of the four games covers a game left unfinished (docs/rules has none);
        gruft's reading: an aborted game is over like a finished one (its secrets become
        public, it exports and verifies) but nobody wins it, the running scores stay as they
        were, and it counts in no statistics.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise BadCommand(N_("an abort needs a reason: a non-empty text"))
        if len(reason) > MAX_ABORT_REASON:
            raise BadCommand(N_("the reason has at most %(max_abort_reason)s characters"),
                             max_abort_reason=MAX_ABORT_REASON)
        if self.aborted:
            raise Aborted(N_("the game is already aborted"))
        if self.finished:
            raise self.end_refusal()
        fields: dict[str, Any] = {"reason": reason}
        if fork is not None:  # a plain abort records none, as every abort did before
            if not isinstance(fork, dict) or not isinstance(fork.get("game_id"), str):
                raise BadCommand(N_("the fork that stops a game is {game_id, version}"))
            fields["fork"] = dict(fork)
        with acting(HOST_BY):  # only the host aborts
            self._trigger_exact(Game.GameAborted, fields)

    @event("GameAborted")
    def _game_aborted(self, reason: str, fork: dict[str, Any] | None = None) -> None:
        self.aborted = True
        self.finished = True
        self.winners = []
        if fork is not None:  # forked in play: sealed, with every fork of its family
            self.family = self.family or str(self.id)

    def hand_seat(self, player: Any, bot: Any, by: str = HOST_BY) -> None:
        """Record who plays a seat from now on: a bot by its kind, or (None) its player again;
        `by` the host, or the seat itself taking its seat back ("seat").

        The service checks the bot's kind and who may ask; here the seat and the game's state.
        """
        if player not in self.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=player)
        if bot is not None and not isinstance(bot, str):
            raise BadCommand(N_("a seat is handed to a bot by its kind, or back with null"))
        self.check_in_play()
        with acting(by):
            self._seat_handed(player=player, bot=bot)

    @event("SeatHanded")
    def _seat_handed(self, player: str, bot: str | None) -> None:
        self.handed = {**(self.handed or {}), player: bot}

    def expire_clock(self, player: Any, now: datetime) -> None:
        """Record that `player`'s clock ran out (`now`: the time it is stored at): never before
        its deadline, so that verification, with the stored timestamps, finds the same."""
        if player not in self.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=player)
        self.check_in_play()
        if player in self.expired:
            raise BadCommand(N_("%(player)s's clock has already run out; the bot moves for them"),
                             player=player)
        due = clocks.deadline(self, player)
        if due is None:
            raise BadCommand(N_("%(player)s's clock is not running"), player=player)
        if now < due:
            raise BadCommand(N_("%(player)s's clock runs until %(due)s, not out at %(now)s"),
                             player=player, due=due.isoformat(), now=now.isoformat())
        with acting(CLOCK):  # the server, when the clock ran out
            self._clock_expired(player=player)

    @event("ClockExpired")
    def _clock_expired(self, player: str) -> None:
        self.expired = [*self.expired, player]

    def start_clocks(self, reason: Any) -> None:
        """Start clocks that wait for the table (domain.core.clocks): `reason` every seat a
        person holds has the game open (stored by the server), or the host's word (by the
        host). A person's first move starts them in `execute`."""
        if reason not in (clocks.PRESENT, clocks.HOST_STARTED):
            raise BadCommand(N_("clocks start when the table is ready or when the host starts "
                                "them"))
        self.check_in_play()
        if not clocks.waiting(self):
            raise BadCommand(N_("this game has no clocks waiting to start"))
        with acting(HOST_BY if reason == clocks.HOST_STARTED else SERVER):
            self._trigger_exact(Game.ClocksStarted, {"reason": reason})

    @event("ClocksStarted")
    def _clocks_started(self, reason: str) -> None:
        self.clocks_started = True

    def check_in_play(self) -> None:
        """Refuse what only a game in progress takes (aborted: Aborted; over: the end's ruling)."""
        if self.aborted:
            raise Aborted(N_("the host aborted this game; it accepts no more commands"))
        if self.finished:
            raise self.end_refusal()

    def samples(self, event_type: str, data: dict[str, Any]) -> list[Sample]:
        """The METRICS samples the event just applied yields (usually none)."""
        return []

    def end_refusal(self) -> GameFinished:
        """Why no command is taken any more; a game may cite the ruling that ended it."""
        return GameFinished(self.END_RULE or self.TURN_RULE, N_("The game is over; no more "
                                                                "commands."))

    def turn_refusal(self, player: str) -> NotYourTurn:
        """Why `player` may not act now; a game may cite a more precise ruling."""
        waiting = ", ".join(self.to_act) or Term(N_("nobody"))
        return NotYourTurn(self.TURN_RULE, N_("It is not %(player)s's turn; waiting for "
                                              "%(waiting)s."), player=player, waiting=waiting)

    def legal_moves(self, player: str) -> list[dict[str, Any]]:
        """Every command the rules allow `player` now, each once; empty if not their turn.

        The order is the game's own (by card value, by colour, …), deterministic for a given
        state. Games list each move once; the test kit checks it after every command rather
        than paying for a de-duplication here, on the hottest path of play.
        """
        if self.finished or player not in self.to_act:
            return []
        return self.list_moves(player)

    def previews(self, player: str, moves: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """What each of `moves` would do, in their order, for a page to show before one is
        sent; None for a game with nothing to foresee. Only what `player` may see goes in."""
        return None

    # -- views ----------------------------------------------------------------------------

    @property
    def status(self) -> str:
        if self.aborted:
            return "aborted"
        return "finished" if self.finished else "in_progress"

    def receipted(self, player: str) -> tuple[int, str] | None:
        """(version, hash) of the last event `player`'s last move stored; None before any."""
        if self._mover == player:  # the newest step is that move's
            return self.version, self.chain_hash
        last = (self._receipted or {}).get(player)
        return None if last is None else (last[0], last[1])

    @property
    def revealed(self) -> bool:
        """Whether everything about the game is public, as far as the game alone knows: it is
        over and in no sealed family (a family member is revealed when every game of its family
        is over, which the service decides: service.audit.seals)."""
        return self.finished and self.family is None

    def view(self, viewer: Viewer, revealed: bool | None = None) -> dict[str, Any]:
        """The view docs/api.md describes, with what `viewer` may see of the game now
        (`revealed`: whether its secrets are public, by default `self.revealed`)."""
        public = sees_everything(viewer, self.revealed if revealed is None else revealed)
        return self.seat_view(self.public_view(public), viewer)

    def public_view(self, with_seed: bool) -> dict[str, Any]:
        """The part of every view that all viewers share (the seed and salt `with_seed`: for
        the host, or everybody once the game is over)."""
        out: dict[str, Any] = {
            "game_id": str(self.id),
            "game": self.KEY,
            "players": list(self.players),
            "status": self.status,
            "version": self.version,
            "to_act": [] if self.finished else list(self.to_act),
            "scores": dict(self.scores),
            "winners": list(self.winners),
            "seed_commitment": self.seed_commitment,
            "options": dict(self.options),
            "state": self.public_state(),
        }
        if self.parent is not None:
            out["parent"] = dict(self.parent)
        if with_seed:
            out["seed"] = self.seed
            if self.salt is not None:
                out["salt"] = self.salt
        return out

    def seat_view(self, public: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        """A new view: `public` (left unchanged, so several viewers may share it) and what
        `viewer`'s own seat adds."""
        out = dict(public)
        if viewer.player is not None:
            out["you"] = viewer.player
            out["private"] = self.private_state(viewer.player)
        return out

    def redact(self, event_type: str, data: dict[str, Any], viewer: Viewer,
               revealed: bool | None = None) -> dict[str, Any]:
        """An event's data as `viewer` may see it now (`revealed` as for `view`)."""
        return redact_event_data(self.SECRET_FIELDS, event_type, data, viewer,
                                 self.revealed if revealed is None else revealed)

    # -- what each game provides ----------------------------------------------------------

    def init_state(self) -> None:
        """Assign the game's empty state (runs inside the creation event: assignments only)."""
        raise NotImplementedError

    def begin(self) -> None:
        """Deal the first phase or round (a command: triggers the deal events)."""
        raise NotImplementedError

    @property
    def to_act(self) -> list[str]:
        """Names whose command is awaited now."""
        raise NotImplementedError

    def list_moves(self, player: str) -> list[dict[str, Any]]:
        """The legal commands of a player who is to act: each once, in a deterministic order."""
        raise NotImplementedError

    def public_state(self) -> dict[str, Any]:
        """What everybody may see."""
        raise NotImplementedError

    def private_state(self, player: str) -> dict[str, Any]:
        """What only `player` (and the host) may see, e.g. ``{"hand": [...]}``."""
        raise NotImplementedError

    def full_state(self) -> dict[str, Any]:
        """Everything, secrets included (host, replay, invariants)."""
        raise NotImplementedError


# The host's and the clock's events begin a step of their own: they end the step of the move
# before them (receipts), as a move does.
for _lifecycle in (Game.GameAborted, Game.SeatHanded, Game.ClockExpired,
                   Game.ClocksStarted):
    _lifecycle.STARTS = OTHER_START
