"""The VampiRing aggregate: a ring of cards, families of three vampires, simultaneous moves."""

from __future__ import annotations

from collections import Counter
from typing import Any

from eventsourcing.domain import event

from domain.core import (
    ACTOR,
    BadSetup,
    Command,
    Game,
    GameFinished,
    Metric,
    NotYourTurn,
    Option,
    Param,
    Sample,
    clone,
    shuffled,
)
from domain.core.chain import keep_stored
from domain.core.words import N_
from domain.vampiring.narration import VampiRingNarrator
from domain.vampiring.rules import (
    BLOOD,
    DIRECTIONS,
    METAMORPHOSES,
    home_positions,
    landings,
    resolve,
    ring_cards,
    start_family,
    total_lost,
)

# Every command a living player may send: both metamorphoses, both directions (VR-4).
MOVES = tuple((m, d) for m in sorted(METAMORPHOSES) for d in sorted(DIRECTIONS))


class VampiRing(Game):
    """VampiRing: every living family moves at once; the last one standing wins."""

    KEY = "vampiring"
    MIN_PLAYERS = 2
    MAX_PLAYERS = 6
    TURN_RULE = "VR-4"
    END_RULE = "VR-10"
    OPTIONS = {
        "variant": Option("castle", choices=("castle", "mansion")),  # VR-3
        "max_turns": Option(None, 1, 10000, nullable=True),  # VR-12
    }
    SHORT_OPTIONS = {"max_turns": 30}
    COMMANDS = {
        "move": Command("move", {
            "metamorphosis": Param(str, choices=tuple(sorted(METAMORPHOSES))),
            "direction": Param(str, choices=tuple(sorted(DIRECTIONS))),
        }),
    }
    COMMAND_EVENTS = {"MoveSubmitted": ("move", ("metamorphosis", "direction"))}
    # VR-4: a submitted move is seen by its player alone until the turn resolves.
    SECRET_FIELDS = {"MoveSubmitted": {"metamorphosis": ACTOR, "direction": ACTOR}}
    DEAL_EVENTS = frozenset({"RingLaid"})
    REVEALED_MOVES = {"TurnResolved": "moves"}  # VR-4: every move is shown when the turn resolves
    NARRATOR = VampiRingNarrator
    METRICS = (Metric("turns_survived", "turns the player's family lasted (VR-9), per game"),)
    # The state's second shape (snapshots record it): `turn_start` beside `last_turn`, for
    # turns resolved by TurnResolved's second shape. A first-shape state (snapshots of 0.1.0)
    # is a second-shape one whose last turn is known in full: nothing to change.
    class_version = 2
    turn_start = None  # a class default: what the state of 0.1.0 (snapshots, fork tables) lacks

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """A snapshot of the first shape: `last_turn` in full, no `turn_start` (class default)."""

    # -- setup ----------------------------------------------------------------------------

    def init_state(self) -> None:
        """Assign the empty state; the ring is laid by begin()."""
        self.ring: list[str] = []
        self.homes: dict[str, int] = {}
        self.families: dict[str, dict[str, dict[str, Any]]] = {}
        self.blood = {p: BLOOD for p in self.players}
        self.eliminated: dict[str, int] = {}
        self.pending: dict[str, dict[str, str]] = {}
        self.turns_played = 0
        # The last turn in full (fights, paths, wounds): known from a snapshot or a fork's
        # table of the first shape; otherwise derived from `turn_start` when a view asks.
        self.last_turn: dict[str, Any] | None = None
        # The last turn's number and moves, and the families and blood it started from.
        self.turn_start: dict[str, Any] | None = None
        self.end_reason: str | None = None

    @classmethod
    def check_deal(cls, players: list[str], options: dict[str, Any], deal: dict) -> dict:
        """A stacked ring: exactly the VR-2 cards, in the order given."""
        unknown = sorted(set(deal) - {"ring"})
        if unknown:
            raise BadSetup(N_("a vampiring deal has only a 'ring', not %(unknown)s"),
                           unknown=', '.join(unknown))
        ring = deal.get("ring")
        if not isinstance(ring, list) or not all(isinstance(c, str) for c in ring):
            raise BadSetup(N_("the deal's 'ring' must be a list of card names"))
        wanted = Counter(ring_cards(players))
        if Counter(ring) != wanted:
            missing = sorted((wanted - Counter(ring)).elements())
            extra = sorted((Counter(ring) - wanted).elements())
            raise BadSetup(N_("the ring must hold exactly one Home and one carriage per player "
                              "and one of each special card (%(n_wanted)s cards; missing: "
                              "%(missing)s; not allowed: %(extra)s)"), n_wanted=len(wanted),
                           missing=', '.join(missing) or 'none', extra=', '.join(extra) or 'none')
        return {"ring": list(ring)}

    def begin(self) -> None:
        """Lay the ring, stacked or seeded (VR-2), with every family on its Home (VR-1)."""
        if self.deal is not None:
            ring = list(self.deal["ring"])
        else:
            ring = shuffled(self.seed, "vampiring/ring", ring_cards(self.players))
        on_ring = home_positions(ring)
        homes = {p: on_ring[p] for p in self.players}
        self._ring_laid(ring=ring, homes=homes,
                        families={p: start_family(homes[p]) for p in self.players})

    @event("RingLaid")
    def _ring_laid(self, ring: list[str], homes: dict[str, int],
                   families: dict[str, dict[str, dict[str, Any]]]) -> None:
        # Assigned, not copied: the aggregate only ever replaces these (see _turn_resolved).
        self.ring = ring
        self.homes = homes
        self.families = families

    # -- turns ----------------------------------------------------------------------------

    @property
    def to_act(self) -> list[str]:
        """Living players who have not submitted this turn's move (VR-4)."""
        if self.finished:
            return []
        return [p for p in self.players if p in self.families and p not in self.pending]

    def turn_refusal(self, player: str) -> NotYourTurn:
        """Why `player` may not move now (never what anybody submitted)."""
        if player in self.pending:
            return NotYourTurn("VR-4", N_("%(player)s has already submitted a move this turn; it "
                                          "is final."), player=player)
        if player in self.eliminated:
            return NotYourTurn("VR-9", N_("%(player)s's family was eliminated in turn "
                                          "%(eliminated)s; it no longer moves."), player=player,
                               eliminated=self.eliminated[player])
        return super().turn_refusal(player)

    def end_refusal(self) -> GameFinished:
        """A game stopped by `max_turns` cites VR-12; one decided by the families, VR-10."""
        if self.end_reason == "max_turns":
            return GameFinished("VR-12", N_("The game ended after its %(turns_played)s allowed "
                                            "turns; no more moves."),
                                turns_played=self.turns_played)
        return super().end_refusal()

    def samples(self, event_type: str, data: dict[str, Any]) -> list[Sample]:
        """The turns each family lasted (VR-9), once the game has ended."""
        if event_type != "GameEnded":
            return []
        return [(p, "turns_survived", float(self.eliminated.get(p, self.turns_played)))
                for p in self.players]

    def list_moves(self, player: str) -> list[dict[str, Any]]:
        """Every living family may take either metamorphosis in either direction (VR-4)."""
        return [{"type": "move", "metamorphosis": m, "direction": d} for m, d in MOVES]

    def previews(self, player: str, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Where the player's three vampires would land with each move (VR-4, VR-5): the
        ring, the Homes and the player's own family only, all of it public."""
        family = self.families.get(player)
        if family is None:
            return [{} for _ in moves]
        home = self.homes[player]
        return [{"vampires": landings(self.ring, home, family, m["metamorphosis"],
                                      m["direction"])} for m in moves]

    def move(self, player: str, metamorphosis: str, direction: str) -> None:
        """Submit a secret move (VR-4); the last one in resolves the turn (VR-5 .. VR-12)."""
        self._move_submitted(player=player, metamorphosis=metamorphosis, direction=direction)
        if len(self.pending) == len(self.families):  # every living family is in (VR-4)
            self._resolve()

    @event("MoveSubmitted")
    def _move_submitted(self, player: str, metamorphosis: str, direction: str) -> None:
        self.pending[player] = {"metamorphosis": metamorphosis, "direction": direction}

    def _resolve(self) -> None:
        """Resolve the turn whose moves are all in, then end the game if it is over."""
        turn = self.turns_played + 1
        outcome = self.resolution(self.pending, turn)  # VR-8: Homes of earlier turns haunt
        blood = {p: self.blood[p] - outcome["lost"].get(p, 0) for p in self.players}
        # VR-11: a family still in, or eliminated now, scores everything lost so far.
        lost_so_far = total_lost(blood)
        scores = {p: self.scores[p] if p in self.eliminated else lost_so_far
                  for p in self.players}
        self._turn_resolved(turn=turn, moves=outcome["moves"], vampires={
            p: {vid: {"shape": v["shape"], "position": v["position"]} for vid, v in fam.items()}
            for p, fam in outcome["vampires"].items()}, eliminated=outcome["eliminated"],
            blood=blood, scores=scores)
        left = list(self.families)
        if len(left) <= 1:  # VR-10
            winners = left
            final = dict(scores)
            for p in winners:  # VR-11: the winner adds remaining drops x starting players
                final[p] += blood[p] * len(self.players)
            self._game_ended(reason="last_family" if winners else "no_family",
                             winners=winners, scores=final)
        # Reading (VR-10 before VR-12, the rulebook's "the player who eliminates the last of
        # his opponents wins"): a game decided in the turn max_turns is reached is won.
        elif self.options["max_turns"] is not None and turn >= self.options["max_turns"]:
            self._game_ended(reason="max_turns", winners=[], scores=dict(scores))  # VR-12

    class TurnResolved(Game.Event):
        """A turn resolved (VR-5 .. VR-9). Shape 2 records the outcome the state takes — each
        family's vampires (shape, position), the families eliminated, blood and scores — and
        the moves; shape 1 (0.1.0) also recorded the detail the ring and the moves give again:
        every vampire's path, the fights, the hauntings, wounds and drops lost."""

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Shape 1 to 2: the vampires without their paths; fights, haunted, wounds and lost
            dropped (the views derive them again)."""
            keep_stored(state, 1)
            state["vampires"] = {p: {vid: {"shape": v["shape"], "position": v["position"]}
                                     for vid, v in family.items()}
                                 for p, family in state["vampires"].items()}
            for detail in ("fights", "haunted", "wounds", "lost"):
                del state[detail]

        @staticmethod
        def downcast_v2_v1(game: VampiRing, data: dict[str, Any]) -> dict[str, Any]:
            """The turn in shape 1, as 0.1.0 recorded it, from the game before it: verifying
            and importing a document of 0.1.0 compares and stores what it holds."""
            return {"turn": data["turn"], "blood": data["blood"], "scores": data["scores"],
                    **game.resolution(data["moves"], data["turn"])}

    @event(TurnResolved)
    def _turn_resolved(self, turn: int, moves: dict, vampires: dict, eliminated: list,
                       blood: dict, scores: dict) -> None:
        # The families and blood the turn started from: replaced below, never changed in
        # place, so keeping them costs nothing; a view derives the turn's detail from them.
        self.turn_start = {"turn": turn, "moves": moves, "families": self.families,
                           "blood": self.blood}
        self.last_turn = None
        # The event's own dicts, not copies: the aggregate only replaces these, never changes
        # them in place, and every view clones them (on replay they are private anyway).
        self.families = {p: fam for p, fam in vampires.items() if p not in eliminated}
        self.blood = blood
        for p in eliminated:
            self.eliminated[p] = turn
        self.scores = scores
        self.pending = {}
        self.turns_played = turn

    def resolution(self, moves: dict[str, dict[str, str]], turn: int) -> dict[str, Any]:
        """Turn `turn` resolved from the families and blood as they stand, with `moves`:
        paths, fights, hauntings (Homes of families eliminated before it, VR-8), wounds."""
        haunted = {self.homes[p]: p for p, t in self.eliminated.items() if t < turn}
        return resolve(self.ring, self.homes, self.families, moves, self.blood, haunted,
                       self.options["variant"])

    def turn_detail(self) -> dict[str, Any] | None:
        """The last turn in full, as shape 1 recorded it (a new dict), or None before any."""
        start = self.turn_start
        if start is None:
            return clone(self.last_turn)
        turn = start["turn"]
        haunted = {self.homes[p]: p for p, t in self.eliminated.items() if t < turn}
        outcome = resolve(self.ring, self.homes, start["families"], start["moves"],
                          start["blood"], haunted, self.options["variant"])
        return {"turn": turn, **outcome}

    def table_state(self) -> dict[str, Any]:
        """The table a fork carries, in the state's first shape (0.1.0's, which forks made then
        carry): the last turn in full, each living family's vampires as that turn left them."""
        table = super().table_state()
        table.pop("turn_start", None)
        detail = self.turn_detail()
        table["last_turn"] = detail
        if detail is not None:
            table["families"] = {p: detail["vampires"][p] for p in self.families}
        return table

    @event("GameEnded")
    def _game_ended(self, reason: str, winners: list[str], scores: dict[str, int]) -> None:
        self.end_reason = reason
        self.winners = list(winners)
        self.scores = dict(scores)
        self.finished = True

    # -- views ----------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        """The ring, every vampire, blood per family and who has submitted, never what."""
        return {
            "turn": self.turns_played if self.finished else self.turns_played + 1,
            "turns_played": self.turns_played,
            "ring": list(self.ring),
            "homes": dict(self.homes),
            "vampires": self._family_view(),
            "blood": dict(self.blood),
            "lost": {p: BLOOD - b for p, b in self.blood.items()},
            "eliminated": dict(self.eliminated),
            "haunted": sorted(self.homes[p] for p in self.eliminated),  # VR-8
            "submitted": [p for p in self.players if p in self.pending],
            "last_turn": self.turn_detail(),
            "end": self.end_reason,
        }

    def _family_view(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Every living vampire's shape and position (VR-1), copied for a view."""
        return {p: {vid: {"shape": v["shape"], "position": v["position"]}
                    for vid, v in fam.items()}
                for p, fam in self.families.items()}

    def private_state(self, player: str) -> dict[str, Any]:
        """A player's own submitted move this turn, if any."""
        move = self.pending.get(player)
        return {"move": dict(move) if move else None}

    def full_state(self) -> dict[str, Any]:
        """Everything, pending moves included."""
        return {
            "players": list(self.players),
            "options": dict(self.options),
            "ring": list(self.ring),
            "homes": dict(self.homes),
            "families": self._family_view(),
            "blood": dict(self.blood),
            "eliminated": dict(self.eliminated),
            "pending": clone(self.pending),
            "turns_played": self.turns_played,
            "last_turn": self.turn_detail(),
            "finished": self.finished,
            "end": self.end_reason,
            "scores": dict(self.scores),
            "winners": list(self.winners),
        }
