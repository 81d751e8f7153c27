"""The shared base of every game aggregate: the rules surface a game builds on.

A game is an eventsourcing ``Aggregate``. Its public command methods check the rulings (raising
``Refusal`` with the ruling id) and compute everything random, then trigger exactly the events
that record the outcome; the ``@event`` bodies only assign, because they run again on every
replay. This base adds what every game shares: setup checks, command dispatch, the shared
lifecycle's events (abort, fork, seats handed over, clocks run out) and legal-move
normalisation. How events are made, chained and applied is domain.core.fast_events; forks,
seats, clocks and the views are domain.core.forks, .seats, .clocks and .views; what a replay
imposes, domain.core.replay.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import get_topic

from domain.core import clocks
from domain.core.chain import BOT, HOST_BY, NONCE, SERVER, clone
from domain.core.clocks import Clocked, check_clock
from domain.core.dealing import check_salt, check_seed, seed_commitment
from domain.core.errors import Aborted, BadCommand, BadSetup, GameFinished, NotYourTurn
from domain.core.fast_events import OTHER_START, Applying, Making, built_event
from domain.core.forks import Forks
from domain.core.names import check_recorded_names, seat_names
from domain.core.narration import Narrator
from domain.core.replay import Replay, upcast
from domain.core.seats import Seats, check_bot_seats
from domain.core.specs import Sample
from domain.core.views import Views
from domain.core.words import N_, Term

MAX_ABORT_REASON = 500  # characters of the reason a host gives for aborting a game


@functools.cache
def _event_types(cls: type[Game]) -> tuple[str, ...]:
    """Game.event_types, found once per class (a scan of the class, on every `?type=` page)."""
    return tuple(sorted(name for name in dir(cls) if name != "Event"
                        and isinstance(getattr(cls, name, None), type)
                        and issubclass(getattr(cls, name), Game.Event)))


class Game(Making, Forks, Seats, Clocked, Views, Aggregate):
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
    salt = None  # format 1 games (and their snapshots) have none: a class default
    # Replay format 3: whether the game's events that hold secrets carry a nonce (its creation
    # has one: fast_events.Applying.mutate); games of formats 1 and 2 (and their snapshots) read
    # the default.
    nonced = False
    # Receipts (docs/api.md): the seat whose move the events being applied follow, and each
    # seat's last move's last event as (version, hash). Bookkeeping of the record, not the table.
    _mover = None
    _receipted = None

    class Event(Applying, Aggregate.Event):
        prev_hash: str
        hash: str

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
        replay: Replay | None = None,
    ) -> Game:
        """Check the setup, record it, and deal: a new game ready for its first command.

        The service always draws a `salt` (replay format 2); a game started without one commits
        to its seed unsalted, as replay documents of format 1 did. `recorded`: the players are
        a replay document's, seated as recorded under the name rule of their day. `clock`: each
        seat's bank and increment (domain.core.clocks), or None. `bots`: the seats the server's
        bots play (seat -> bot kind), recorded in the creation. `replay`: what a replay imposes
        on every event the game makes (domain.core.replay), None for a live game.
        """
        players = cls.check_players(players, recorded=recorded)
        options = cls.check_options(options or {}, len(players))
        check_seed(seed)
        check_salt(salt)
        clock = check_clock(clock)
        bots = check_bot_seats(bots, players)
        if deal is not None:
            if not isinstance(deal, dict):
                raise BadSetup(N_("deal must be an object"))
            deal = cls.check_deal(players, options, deal)
        game = cls._made(replay, players=players, options=options, seed=seed,
                         seed_commitment=seed_commitment(seed, salt), deal=deal, salt=salt,
                         clock=clock, bots=bots)
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

    # -- the record --------------------------------------------------------------------

    @classmethod
    def event_from_record(cls, game_id: Any, record: dict[str, Any]) -> Any:
        """The stored event a record of the log or of a replay document stands for."""
        fields = {"originator_id": game_id, "originator_version": record["version"],
                  "timestamp": datetime.fromisoformat(record["timestamp"]),
                  "prev_hash": record["prev_hash"], "hash": record["hash"], **record["data"]}
        if record.get("by") is not None:
            fields["by"] = record["by"]
        if record.get(NONCE) is not None:
            fields[NONCE] = record[NONCE]
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

    def lifecycle(self, name: str, fields: dict[str, Any]) -> None:
        """Trigger the shared lifecycle's event `name` with `fields`, as Game's own class (its
        topic is this module's; eventsourcing gives each game a subclass that no method applies),
        optional fields left out when absent, as the events stored before them have none."""
        self._trigger_exact(Game.__dict__[name], fields)

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
        waited = self.clock is not None and clocks.waiting(self)
        if self.clock is not None and self._replay is None:  # never in a replay: the verifier
            # checks the record. CL-1: refused after the seat's deadline; otherwise every event
            # of the move is stored at the time it was found in time at (Making._trigger_exact).
            self.__dict__["_stamp"] = clocks.in_time(self, player, by)
        self.__dict__["_by"] = by  # Making.acting, written out: the first event is `by`'s
        try:
            getattr(self, spec.method)(player, **fields)
        finally:
            self.__dict__.pop("_by", None)
            self.__dict__.pop("_stamp", None)
        if waited and by != BOT and not self.finished:
            # A person's first move starts the clocks (docs/api.md, "The table"): that move
            # was free; every seat awaited now runs from here. A bot's move starts nothing.
            self.lifecycle("ClocksStarted", {"reason": clocks.MOVED})

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
        self.acting(HOST_BY, self.lifecycle, "GameAborted", fields)  # only the host aborts

    @event("GameAborted")
    def _game_aborted(self, reason: str, fork: dict[str, Any] | None = None) -> None:
        self.aborted = True
        self.finished = True
        self.winners = []
        if fork is not None:  # forked in play: sealed, with every fork of its family
            self.family = self.family or str(self.id)

    @event("SeatHanded")
    def _seat_handed(self, player: str, bot: str | None) -> None:
        self.handed = {**(self.handed or {}), player: bot}
        counted = self.handovers or {}
        self.handovers = {**counted, player: counted.get(player, 0) + 1}

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
        self.acting(HOST_BY if reason == clocks.HOST_STARTED else SERVER, self.lifecycle,
                    "ClocksStarted", {"reason": reason})

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
