"""How a game's events are made, chained and applied: the domain's reach into eventsourcing.

A game's ``@event`` methods, its creation and the lifecycle's events are made here, as
eventsourcing would make them, only faster: each reach into the library's internals is listed
with its measured reason in service/store/internals.py (reach 1) and checked by
tests/service/test_internals.py; what each saves is in docs/performance.md ("What a command
costs", "The core won back"). The rules never call these directly: ``Game`` inherits them.

What a game does not use costs nothing here: a game without a clock skips the clocks, a move
that no seat's step follows skips the receipts, and a game made without a replay
(domain.core.replay) takes the clock and the command's author without asking what is imposed.
"""

from __future__ import annotations

from inspect import signature
from typing import Any

from eventsourcing.domain import (
    BoundCommandMethodDecorator,
    CanMutateAggregate,
    CommandMethodDecorator,
    OriginatorIDError,
    OriginatorVersionError,
    decorated_func_callers,
)
from eventsourcing.utils import get_topic

from domain.core import clocks
from domain.core.chain import NONCE, SERVER, event_hash, linked, new_nonce, timestamp_text
from domain.core.replay import Replay, upcast
from domain.core.visibility import holds_secrets

MOVE, OTHER_START = 1, 2  # what an event class's STARTS says (mutate, note_start)

# @event class -> (its method's body, the event fields it takes, its current shape): what
# `Applying.mutate` and `Making._trigger_exact` apply, looked up once per class.
_APPLIERS: dict[type, tuple[Any, tuple[str, ...], int]] = {}


def built_event(event_class: Any, fields: dict[str, Any]) -> Any:
    """An event built as eventsourcing's mapper builds a stored one (``__new__``, then its
    ``__dict__``): without the dataclass ``__init__``, so a field added later (the salt) may be
    absent, as it is from the events stored before it."""
    event = object.__new__(event_class)
    object.__setattr__(event, "__dict__", fields)
    return event


def note_start(game: Any, event: Any, starts: int) -> None:
    """An event that begins a step (a move: `starts` 1; the host's or the clock's: 2) ends the
    step before it: the seat that moved then keeps, as its receipt, the step's last event (the
    one before this, whose hash the game still holds). Assignments only: a game rebuilt from its
    events keeps the same. Follow-ups cost nothing here (see `Applying.mutate`)."""
    mover = game._mover
    if mover is not None:
        receipted = game.__dict__.get("_receipted")
        if receipted is None:
            receipted = game._receipted = {}
        receipted[mover] = [event.originator_version - 1, game.chain_hash]  # a list, as snapshots keep it
    game._mover = event.__dict__.get("player") if starts == MOVE else None


class Applying:
    """What ``Game.Event`` inherits: how an event is applied, live or on replay."""

    STARTS = 0  # what begins a step: MOVE (a seat's move), OTHER_START (host, clock), or 0

    def mutate(self, aggregate: Any) -> Any:
        """Apply the event, live or on replay, and keep the chain's last link.

        For our ``@event`` classes this is eventsourcing's ``mutate`` and its decorated
        ``apply`` written out (same checks, same order), with the method's fields looked
        up once per class instead of by signature on every event.
        """
        applier = _APPLIERS.get(type(self))
        if applier is None or aggregate is None:
            aggregate = super().mutate(aggregate)  # type: ignore[misc]
            if NONCE in self.__dict__:  # the creation (and every secret) of a format 3 game
                aggregate.nonced = True
        else:
            if self.originator_id != aggregate.id:
                raise OriginatorIDError(self.originator_id, aggregate.id)
            if self.originator_version != aggregate.version + 1:
                raise OriginatorVersionError(self.originator_version, aggregate.version + 1)
            body, names, _ = applier
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


def recorder(decorator: CommandMethodDecorator, event_class: Any) -> Any:
    """A stand-in for an ``@event`` method that triggers its event class directly.

    eventsourcing's bound decorator object re-reads the method's signature on every call to
    turn arguments into event fields (docs/performance.md). The stand-in is written out with
    the method's own parameters and defaults, as ``dataclasses`` writes out an ``__init__``:
    Python binds the arguments (and refuses a wrong call with its own TypeError), and the
    event's fields are the parameters in their order, defaults filled in, as the library's
    path makes them. A method with other kinds of parameters keeps the library's path.
    """
    func = decorator.decorated_func
    params = list(signature(func).parameters.values())[1:]  # the event class's own fields
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params) or func.__kwdefaults__:
        def record(self: Any, *args: Any, **fields: Any) -> None:
            BoundCommandMethodDecorator(decorator, self).trigger(*args, **fields)
    else:
        names = [p.name for p in params]
        text = (f"def {func.__name__}(self, {', '.join(names)}):\n"
                f"    self._trigger_exact(event_class, "
                f"{{{', '.join(f'{n!r}: {n}' for n in names)}}})\n")
        scope = {"event_class": event_class}
        exec(compile(text, f"<{func.__qualname__} recorder>", "exec"), scope)  # names: identifiers
        record = scope[func.__name__]
        record.__defaults__ = func.__defaults__
    record.__name__, record.__qualname__, record.__doc__, record.__module__ = (
        func.__name__, func.__qualname__, func.__doc__, func.__module__)
    record.__wrapped__ = func  # type: ignore[attr-defined]
    return record


class Making:
    """What ``Game`` inherits to make its events: the creation, each event's chain link and
    author, the ``@event`` methods swapped for direct triggers, a replay's records."""

    _replay = None  # the Replay this game makes its events from (an instance's, while replayed)
    # A live command's checked time (Game.execute, CL-1): each event it makes is stored at it, so
    # verification compares what was compared (an instance's, while the command runs).
    _stamp = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Let eventsourcing define each ``@event`` method's event class, then swap the
        method for a direct trigger of that class (see ``recorder``)."""
        super().__init_subclass__(**kwargs)
        # The written-out apply holds only while no event class of the game defines its own.
        plain_apply = cls.Event.apply is CanMutateAggregate.apply
        for name, attr in list(cls.__dict__.items()):
            if isinstance(attr, CommandMethodDecorator) and name != "__init__":
                event_class = decorated_func_callers[attr]
                setattr(cls, name, recorder(attr, event_class))
                if event_class.__name__ in cls.COMMAND_EVENTS:
                    event_class.STARTS = MOVE
                if plain_apply:
                    func = attr.decorated_func
                    _APPLIERS[event_class] = (func, tuple(signature(func).parameters)[1:],
                                              getattr(event_class, "class_version", 1))

    @classmethod
    def _made(cls, replay: Replay | None, **fields: Any) -> Any:
        """A new game: its creation event of `fields` (in the order of ``__init__``'s
        parameters, as eventsourcing passes them), made under `replay` if one is given."""
        return cls._create(cls.Created, replay=replay, **fields)

    @classmethod
    def _create(cls, event_class: Any, *, id: Any = None, replay: Replay | None = None,  # noqa: A002
                **kwargs: Any) -> Any:
        timestamp = (replay and replay.timestamp()) or event_class.create_timestamp()
        by = SERVER if replay is None or replay.authors is None else next(replay.authors, None)
        if replay is not None:
            replay.shape(event_class)  # the creation has one shape: another recorded is a mismatch
        # Format 3 (every game the service creates, always with a salt): the creation's secrets
        # (seed, salt, deal) committed with a nonce, and so every later secret (docs/format.md,
        # "Commitment nonces"); a replay takes the recorded one.
        salted = kwargs.get("salt") is not None
        nonce = (new_nonce() if salted else None) if replay is None else replay.nonce(salted)
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
                            timestamp_text(timestamp), kwargs, by, nonce=nonce)
        if id is None:
            id = (replay and replay.game_id) or cls.create_id()  # noqa: A001
        # Built as the store builds an event (the generated dataclass would require every
        # __init__ parameter and no `by`): applying it calls __init__ with the fields it has,
        # so those left out (salt, clock, bots) take their defaults.
        created = built_event(event_class, {
            "originator_id": id, "originator_version": cls.INITIAL_VERSION,
            "timestamp": timestamp, "originator_topic": get_topic(cls), "prev_hash": prev,
            "hash": digest, **kwargs})
        if by is not None:
            created.__dict__["by"] = by
        if nonce is not None:
            created.__dict__[NONCE] = nonce
        game = created.mutate(None)
        if replay is not None:
            game._replay = replay
        game._pending_events.append(created)
        return game

    def end_replay(self) -> None:
        """Make the next events as a live game does: the replay's records are used up."""
        self.__dict__.pop("_replay", None)

    def acting(self, by: str, method: Any, *args: Any, **kwargs: Any) -> None:
        """Call `method`: the first event it triggers is stored as `by`'s (docs/api.md, "Who did
        what"), those that follow from it as the server's."""
        self.__dict__["_by"] = by
        try:
            method(*args, **kwargs)
        finally:
            self.__dict__.pop("_by", None)  # none triggered: nothing left for the next

    def collect_events(self) -> list[Any]:
        """eventsourcing's ``collect_events`` (the pending events, the list emptied in place),
        in two steps instead of a ``pop(0)`` per event: the rules collect after every command."""
        collected = self._pending_events[:]
        self._pending_events.clear()
        return collected

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        # eventsourcing's Aggregate.trigger_event (our games define no TOPIC, whose check is the
        # only other thing it does); the library binds the keywords to the method's fields first.
        self._trigger_exact(event_class, kwargs)

    def _trigger_exact(self, event_class: Any, fields: dict[str, Any]) -> None:
        """`trigger_event` for fields known to be exactly the event class's own, in its order.

        The event is built as eventsourcing's mapper builds a stored one (``__new__``, then its
        ``__dict__``), not through the frozen dataclass's ``__init__``, whose only work here
        would be to check the names again; it is applied here, where its fields are at hand,
        not through ``mutate``, whose checks hold by construction (docs/performance.md).
        """
        if self._replay is not None:
            self._trigger_replayed(self._replay, event_class, fields)
            return
        applier = _APPLIERS.get(event_class)
        timestamp = self._stamp or event_class.create_timestamp()
        if timestamp < self._modified_on:
            # A clock stepped back (NTP, another worker's clock): the log stays in time order,
            # which the verifier checks.
            timestamp = self._modified_on
        # The command's sender (Game.execute) stores its first event; what follows, the server.
        prev, by, version = self.chain_hash, self.__dict__.pop("_by", SERVER), self._version + 1
        # Format 3: an event that holds a secret commits to it with a new secret nonce; a game
        # of an older format (or an event with no secret) asks nothing more.
        nonce = (new_nonce() if self.nonced and holds_secrets(self.SECRET_FIELDS,
                                                              event_class.__name__) else None)
        digest = linked(prev, version, event_class.__name__, timestamp.isoformat(), fields, by,
                        getattr(event_class, "class_version", 1) if applier is None
                        else applier[2], nonce)
        new_event = object.__new__(event_class)
        object.__setattr__(new_event, "__dict__", {
            "originator_id": self.id, "originator_version": version, "timestamp": timestamp,
            "prev_hash": prev, "hash": digest, **fields, "by": by})
        if nonce is not None:
            new_event.__dict__[NONCE] = nonce
        if applier is None:
            new_event.mutate(self)
        else:  # mutate, written out for an event made here
            applier[0](self, **fields)  # the fields are the method's own (or a lifecycle's subset)
            self._version, self._modified_on = version, timestamp
            starts = event_class.STARTS
            if starts:
                note_start(self, new_event, starts)
            self.chain_hash = digest
            if self.clock is not None:
                clocks.tick(self, new_event)
        self._pending_events.append(new_event)

    def _trigger_replayed(self, replay: Replay, event_class: Any, fields: dict[str, Any]) -> None:
        """The event as the replay records it: its timestamp, its author, its nonce (format 3)
        and its shape (an older one: its payload as that release made it, from this game as it
        stands before the event, by the type's `downcast_vM_vN(game, data)`), applied upcast."""
        shape, current = replay.shape(event_class), getattr(event_class, "class_version", 1)
        data = fields
        for newer in range(current, shape, -1):
            data = getattr(event_class, f"downcast_v{newer}_v{newer - 1}")(self, data)
        timestamp = replay.timestamp() or event_class.create_timestamp()
        if timestamp < self.modified_on and replay.timestamps is None:
            timestamp = self.modified_on  # as a live game's (see _trigger_exact)
        if replay.authors is None:
            by = self.__dict__.pop("_by", SERVER)
        else:
            by = next(replay.authors, None)
        prev = self.chain_hash
        nonce = replay.nonce(self.nonced and holds_secrets(self.SECRET_FIELDS,
                                                           event_class.__name__))
        digest = event_hash(prev, self.version + 1, event_class.__name__,
                            timestamp_text(timestamp), data, by, shape, nonce)
        state = {"originator_id": self.id, "originator_version": self.version + 1,
                 "timestamp": timestamp, "prev_hash": prev, "hash": digest, **data}
        if by is not None:
            state["by"] = by
        if nonce is not None:
            state[NONCE] = nonce
        new_event = built_event(event_class, upcast(event_class, state, shape))
        new_event.mutate(self)
        self._pending_events.append(new_event)
