"""Vampir (Reiner Knizia): draw and discard, hunt vampires in six colours, lose the weakest hunts."""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import event

from domain.core import (
    ACTOR,
    HOST_ONLY,
    PER_PLAYER,
    Command,
    Game,
    Metric,
    Option,
    Param,
    Refusal,
    Sample,
    clone,
)
from domain.core.words import N_, Phrase
from domain.vampir import deal as dealing
from domain.vampir import moves, scoring
from domain.vampir.cards import (
    COLOURS,
    DRAW_SIZE,
    HUNT_MIN,
    JOKER,
    STARTING_CARDS,
    check_card,
    check_cards,
    colour_of,
    missing_from,
    ordered,
    without,
)
from domain.vampir.narration import VampirNarrator

TURN_RULE = "VA-1"  # seats clockwise from the round's start seat


class Vampir(Game):
    """The Vampir aggregate: rounds of draw/discard, hunts and collects, scored colour by colour."""

    KEY = "vampir"
    MIN_PLAYERS = 3
    MAX_PLAYERS = 5
    TURN_RULE = TURN_RULE
    END_RULE = "VA-11"  # after the last round the highest total wins
    OPTIONS = {"rounds": Option(default=3, low=1, high=10)}
    SHORT_OPTIONS = {"rounds": 1}
    COMMANDS = {
        "draw": Command("draw", {}),
        "discard": Command("discard", {
            "card": Param(str),
            "location": Param(str, required=False, choices=COLOURS),
        }),
        "hunt": Command("hunt", {
            "cards": Param(list),
            "colour": Param(str, choices=COLOURS),
        }),
        "collect": Command("collect", {
            "location": Param(str, choices=COLOURS),
            "cards": Param(list, required=False),
        }),
    }
    COMMAND_EVENTS = {
        "Drew": ("draw", ()),
        "Discarded": ("discard", ("card", "location")),
        "Hunted": ("hunt", ("cards", "colour")),
        "Collected": ("collect", ("location", "cards")),
    }
    SECRET_FIELDS = {
        "RoundDealt": {"hands": PER_PLAYER, "draw_pile": HOST_ONLY},
        "Drew": {"cards": ACTOR},
    }
    DEAL_EVENTS = frozenset({"RoundDealt"})
    NARRATOR = VampirNarrator
    METRICS = (Metric("points_per_round", "points scored in a round (VA-9 .. VA-11)"),)

    # -- setup ------------------------------------------------------------------------------

    def init_state(self) -> None:
        """Assign the empty state; the first round is dealt by begin()."""
        self.round = 0
        self.start_seat = 0
        self.turn_seat = 0
        self.drawn = False  # the player to act has drawn and now discards or hunts (VA-2)
        self.hands: dict[str, list[str]] = {p: [] for p in self.players}
        self.locations: dict[str, list[str]] = {c: [] for c in COLOURS}
        self.hunts: dict[str, dict[str, list[str]]] = {p: {} for p in self.players}
        self.pile: list[str] = []
        # Cards out of play this round: replaced hunts (VA-7), hands (VA-9), lost hunts (VA-10).
        self.out: list[str] = []
        self.round_points: list[dict[str, int]] = []
        self.last_round: dict[str, Any] | None = None

    def begin(self) -> None:
        """Deal round 1 (VA-1)."""
        self._deal_round(1)

    @classmethod
    def check_deal(cls, players: list[str], options: dict[str, Any], deal: dict) -> dict:
        """A stacked deal: per round, 4-card hands and the pile, exactly the 100 shuffled cards."""
        return dealing.check_deal(players, options["rounds"], deal)

    def _deal_round(self, number: int) -> None:
        """Deal round `number` from the stacked deal if it has one, else from the seed.

        The event does not say which: the creation event's deal is for the host only, and a
        public flag would tell the players that the cards were arranged.
        """
        stacked = self.deal["rounds"] if self.deal else []
        entry = stacked[number - 1] if number <= len(stacked) else None
        if entry is None:
            entry = dealing.seeded_round(self.seed, number, self.players)
        hands, pile = entry["hands"], entry["draw_pile"]
        # VA-1: the start seat moves one seat clockwise each round.
        start = self.players[(number - 1) % len(self.players)]
        self._round_dealt(round=number, start=start,
                          hands={p: list(hands[p]) for p in self.players},
                          draw_pile=list(pile), draw_pile_size=len(pile),
                          locations={c: list(STARTING_CARDS[c]) for c in COLOURS})

    @event("RoundDealt")
    def _round_dealt(self, round: int, start: str, hands: dict[str, list[str]],
                     draw_pile: list[str], draw_pile_size: int,
                     locations: dict[str, list[str]]) -> None:
        self.round = round
        self.start_seat = self.players.index(start)
        self.turn_seat = self.start_seat
        self.drawn = False
        self.hands = {p: list(hands[p]) for p in self.players}
        self.locations = {c: list(locations[c]) for c in COLOURS}
        self.hunts = {p: {} for p in self.players}
        self.pile = list(draw_pile)
        self.out = []

    # -- whose turn -------------------------------------------------------------------------

    @property
    def to_act(self) -> list[str]:
        """The one player whose turn it is (VA-1), or nobody once the game is over."""
        return [] if self.finished else [self.players[self.turn_seat]]

    def list_moves(self, player: str) -> list[dict[str, Any]]:
        """Every distinct legal command of the player to act."""
        if self.drawn:
            return moves.after_draw(self.hands[player])
        return moves.start_of_turn(self.hands[player], self.locations)

    # -- commands ---------------------------------------------------------------------------

    def draw(self, player: str) -> None:
        """VA-2: take the top two cards of the draw pile (VA-8: the last card ends the round)."""
        if self.drawn:
            raise Refusal("VA-2", N_("%(player)s has drawn already; now discard a card or lay "
                                     "out a hunt."), player=player)
        taken = self.pile[:DRAW_SIZE]
        self._drew(player=player, cards=taken, draw_pile_size=len(self.pile) - len(taken))
        if not self.pile:
            # VA-8: the draw that empties the pile ends the round at once; no discard or hunt.
            self._end_round("draw_pile_empty", player)

    @event("Drew")
    def _drew(self, player: str, cards: list[str], draw_pile_size: int) -> None:
        self.hands[player] = ordered(self.hands[player] + cards)
        self.pile = self.pile[len(cards):]
        self.drawn = True

    def discard(self, player: str, card: str, location: str | None = None) -> None:
        """VA-3: after a draw, lay one hand card under the location of its colour."""
        check_card(card)
        self._check_drawn(player, N_("%(player)s must draw two cards before choosing to discard "
                                     "(or collect a location instead)."))
        if card not in self.hands[player]:
            raise Refusal("VA-3", N_("%(player)s holds no %(card)s."), player=player, card=card)
        colour = colour_of(card)
        if colour is None and location is None:
            raise Refusal("VA-3", N_("Say under which location the joker goes."))
        if colour is not None and location not in (None, colour):
            raise Refusal("VA-3", N_("%(card)s goes under the %(colour)s, not under the "
                                     "%(location)s."), card=card, colour=colour, location=location)
        self._discarded(player=player, card=card, location=location or colour)

    @event("Discarded")
    def _discarded(self, player: str, card: str, location: str) -> None:
        self.hands[player] = without(self.hands[player], [card])
        self.locations[location] = self.locations[location] + [card]
        self._pass_turn()

    def hunt(self, player: str, cards: list[str], colour: str) -> None:
        """VA-4: after a draw, lay out one hunt from the hand."""
        cards = check_cards(cards)
        self._check_drawn(player, N_("%(player)s must draw two cards before choosing to hunt "
                                     "(or collect a location instead)."))
        self._check_holds(player, cards, "VA-4")
        _check_hunt(cards, colour, "VA-6", Phrase(N_("a %(colour)s hunt"), colour=colour))
        self._hunted(player=player, cards=cards, colour=colour,
                     replaced=list(self.hunts[player].get(colour, [])))
        self._after_hunt(player)

    @event("Hunted")
    def _hunted(self, player: str, cards: list[str], colour: str, replaced: list[str]) -> None:
        self.hands[player] = without(self.hands[player], cards)
        self._lay(player, colour, cards, replaced)

    def collect(self, player: str, location: str, cards: list[str] | None = None) -> None:
        """VA-5: take every card under a location and lay them out in a hunt of its colour."""
        cards = check_cards(cards or [])
        if self.drawn:
            raise Refusal("VA-5", N_("%(player)s has drawn this turn; a collect replaces the "
                                     "draw, so now discard a card or lay out a hunt."),
                          player=player)
        taken = self.locations[location]
        if not taken:
            raise Refusal("VA-5", N_("No card lies under the %(location)s; there is nothing to "
                                     "collect."), location=location)
        self._check_holds(player, cards, "VA-5")
        wrong = [c for c in cards if colour_of(c) not in (None, location)]
        if wrong:
            raise Refusal("VA-5", N_("A collect at the %(location)s lays out a %(location)s "
                                     "hunt; %(wrong)s cannot join it."), location=location,
                          wrong=", ".join(wrong))
        # VA-5: "if no such hunt can be made the collect is illegal" (a hunt as VA-6 has it).
        hunt = ordered(taken + cards)
        _check_hunt(hunt, location, "VA-5", Phrase(
            N_("A collect lays out a hunt (VA-6), but the %(location)s hunt it would make "
               "(%(cards)s)"), location=location, cards=", ".join(hunt)))
        self._collected(player=player, location=location, cards=cards, taken=list(taken),
                        replaced=list(self.hunts[player].get(location, [])))
        self._after_hunt(player)

    @event("Collected")
    def _collected(self, player: str, location: str, cards: list[str], taken: list[str],
                   replaced: list[str]) -> None:
        self.hands[player] = without(self.hands[player], cards)
        self.locations[location] = []
        self._lay(player, location, ordered(taken + cards), replaced)

    # -- guards and shared steps ---------------------------------------------------------------

    def _check_drawn(self, player: str, refusal: str) -> None:
        if not self.drawn:
            raise Refusal("VA-2", refusal, player=player)

    def _check_holds(self, player: str, cards: list[str], rule: str) -> None:
        missing = missing_from(self.hands[player], cards)
        if not missing:
            return
        shown = [c for hunt in self.hunts[player].values() for c in hunt]
        if not missing_from(shown, missing):
            # VA-7: the cards lie in the player's own laid hunts, which can never be taken from.
            raise Refusal("VA-7", N_("%(missing)s lie in %(player)s's laid hunts; a laid hunt "
                                     "can never be added to or taken from."),
                          missing=', '.join(missing), player=player)
        raise Refusal(rule, N_("%(player)s does not hold %(missing)s."), player=player,
                      missing=', '.join(missing))

    def _lay(self, player: str, colour: str, cards: list[str], replaced: list[str]) -> None:
        # VA-7: a new hunt of a colour already shown first removes the old one from the game.
        if replaced:  # `out` is kept in canonical order; nothing new, nothing to re-sort
            self.out = ordered(self.out + replaced)
        self.hunts[player] = {c: (list(cards) if c == colour else self.hunts[player][c])
                              for c in COLOURS if c == colour or c in self.hunts[player]}
        self._pass_turn()

    def _pass_turn(self) -> None:
        self.drawn = False
        self.turn_seat = (self.turn_seat + 1) % len(self.players)

    def _after_hunt(self, player: str) -> None:
        # VA-8: a turn after which a player shows hunts in all six colours ends the round.
        if len(self.hunts[player]) == len(COLOURS):
            self._end_round("six_colours", player)

    def _end_round(self, reason: str, player: str) -> None:
        heads = scoring.shown_heads(self.players, self.hunts)
        lost = scoring.losers(self.players, heads)
        points = scoring.points(self.players, heads, lost)
        totals = {p: self.scores[p] + points[p] for p in self.players}
        self._round_scored(round=self.round, reason=reason, ended_by=player, heads=heads,
                           lost=lost, points=points, scores=totals)
        if self.round < self.options["rounds"]:
            self._deal_round(self.round + 1)
        else:
            self._game_finished(scores=totals, winners=scoring.leaders(totals))

    @event("RoundScored")
    def _round_scored(self, round: int, reason: str, ended_by: str,
                      heads: dict[str, dict[str, int]], lost: dict[str, list[str]],
                      points: dict[str, int], scores: dict[str, int]) -> None:
        # VA-9: cards still in hands are out; VA-10: the losing hunts leave the table.
        gone = [c for p in self.players for c in self.hands[p]]
        for colour in COLOURS:
            for p in lost[colour]:
                gone.extend(self.hunts[p][colour])
        self.hunts = {p: {c: list(h) for c, h in self.hunts[p].items() if p not in lost[c]}
                      for p in self.players}
        self.hands = {p: [] for p in self.players}
        self.out = ordered(self.out + gone)
        self.scores = dict(scores)
        self.round_points = self.round_points + [dict(points)]
        self.last_round = {"round": round, "reason": reason, "ended_by": ended_by,
                           "heads": {p: dict(h) for p, h in heads.items()},
                           "lost": {c: list(ps) for c, ps in lost.items()},
                           "points": dict(points)}

    @event("GameFinished")
    def _game_finished(self, scores: dict[str, int], winners: list[str]) -> None:
        self.scores = dict(scores)
        self.winners = list(winners)
        self.finished = True

    # -- views ------------------------------------------------------------------------------

    def samples(self, event_type: str, data: dict[str, Any]) -> list[Sample]:
        """Each round's points (VA-9 .. VA-11)."""
        if event_type != "RoundScored":
            return []
        return [(p, "points_per_round", float(v)) for p, v in data["points"].items()]

    def public_state(self) -> dict[str, Any]:
        """Locations, every laid hunt, sizes of hands and pile, round results; no hidden card."""
        return {
            "round": self.round,
            "rounds": self.options["rounds"],
            "start_player": self.players[self.start_seat],
            "turn": None if self.finished else self.players[self.turn_seat],
            "step": None if self.finished else ("discard_or_hunt" if self.drawn
                                                else "draw_or_collect"),
            "locations": {c: list(self.locations[c]) for c in COLOURS},
            "hunts": {p: {c: list(h) for c, h in self.hunts[p].items()} for p in self.players},
            "hand_sizes": {p: len(self.hands[p]) for p in self.players},
            "draw_pile_size": len(self.pile),
            "round_points": [dict(r) for r in self.round_points],
            "last_round": clone(self.last_round),
        }

    def private_state(self, player: str) -> dict[str, Any]:
        """The player's own hand."""
        return {"hand": list(self.hands[player])}

    def full_state(self) -> dict[str, Any]:
        """Everything, hands, pile order and the cards out of play included."""
        return {
            **self.public_state(),
            "turn_seat": self.turn_seat,
            "drawn": self.drawn,
            "hands": {p: list(self.hands[p]) for p in self.players},
            "draw_pile": list(self.pile),
            "out": list(self.out),
            "scores": dict(self.scores),
            "winners": list(self.winners),
            "finished": self.finished,
        }


def _check_hunt(cards: list[str], colour: str, rule: str, what: Phrase) -> None:
    """VA-6: three or more cards of one colour, jokers filling in, at least one real vampire."""
    strays = [c for c in cards if colour_of(c) not in (None, colour)]
    if strays:
        raise Refusal(rule, N_("%(what)s holds %(strays)s; a hunt is one colour only."), what=what,
                      strays=', '.join(strays))
    if len(cards) < HUNT_MIN:
        raise Refusal(rule, N_("%(what)s has %(n)s card(s); a hunt needs %(hunt_min)s or more."),
                      what=what, n=len(cards), hunt_min=HUNT_MIN)
    if all(c == JOKER for c in cards):
        raise Refusal(rule, N_("%(what)s is all jokers; a hunt needs at least one real vampire."),
                      what=what)
