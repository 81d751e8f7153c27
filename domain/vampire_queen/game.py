"""Vampire Queen (Wolfgang Kramer): the aggregate, rulings VQ-1 … VQ-17.

The state between commands is always "someone is to act in the current round": a command
records the player's action, then every automatic consequence (skips, the round's end, the
phase's scoring, the next deal, the game's end) as further events in the same command.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import event

from domain.core import (
    HOST_ONLY,
    PER_PLAYER,
    BadCommand,
    Command,
    Game,
    Metric,
    Option,
    Param,
    Refusal,
    Sample,
)
from domain.core.words import N_
from domain.vampire_queen import deal as dealing
from domain.vampire_queen.cards import (
    ORDER,
    S15,
    S20,
    SLAYERS,
    describe,
    holds,
    minus_points,
    remove_cards,
    set_value,
    slayer_round_value,
    sort_cards,
)
from domain.vampire_queen.moves import forced_to_pass, lead_moves, raise_moves, slayer_round_moves
from domain.vampire_queen.narration import VampireQueenNarrator


class VampireQueen(Game):
    """A game of Vampire Queen for 3 to 12 players over `phases` phases."""

    KEY = dealing.KEY
    LOWER_SCORE_WINS = True  # VQ-17: the fewest minus points win
    MIN_PLAYERS = 3
    MAX_PLAYERS = 12
    TURN_RULE = "VQ-1"  # one turn each per round, clockwise from the start player
    END_RULE = "VQ-17"  # the game ends after the last phase
    OPTIONS = {"phases": Option(5, 1, 20)}
    SHORT_OPTIONS = {"phases": 1}
    COMMANDS = {
        "play": Command("play", {"cards": Param(list)}),
        "pass": Command("pass_turn"),
    }
    COMMAND_EVENTS = {"Played": ("play", ("cards",)), "Passed": ("pass", ())}
    SECRET_FIELDS = {"PhaseDealt": {"hands": PER_PLAYER, "set_aside": HOST_ONLY}}
    DEAL_EVENTS = frozenset({"PhaseDealt"})
    NARRATOR = VampireQueenNarrator
    METRICS = (Metric("minus_points_per_phase", "minus points scored in a phase (VQ-16), per phase"),)

    # -- state ----------------------------------------------------------------------------

    def init_state(self) -> None:
        """No phase dealt yet."""
        self.phase = 0
        self.round = 0
        self.hands = {p: [] for p in self.players}
        self.out = []  # cards laid aside this phase (VQ-7)
        self.set_aside = []  # cards not dealt this phase (VQ-2)
        self.minus_points = []  # per phase: {player: minus points} (VQ-16)
        self.barred = None  # VQ-14: {"player", "slayer"} for the round after a slayer round
        self._reset_round(self.players[0])

    def _reset_round(self, start: str) -> None:
        # Called only inside events (creation, a deal, a round's end): plain assignments.
        self.start = start
        self.start_seat = self.players.index(start)
        self.turn = 0  # turns taken in this round
        self.plays = []
        self.slayer = None  # the slayer led, in a slayer round
        self.count = 0  # cards per set this round (VQ-4)
        self.high = 0  # value to beat (normal) or highest card so far (slayer round)
        self.high_player = None
        self.forced = None  # VQ-12: who was forced to pass this slayer round

    @property
    def to_act(self) -> list[str]:
        """The one player whose turn it is (VQ-1), nobody once finished."""
        if self.finished:
            return []
        return [self.players[(self.start_seat + self.turn) % len(self.players)]]

    # -- setup ----------------------------------------------------------------------------

    @classmethod
    def check_deal(cls, players: list[str], options: dict[str, Any], deal: dict) -> dict:
        """A stacked deal: per phase, every player's hand of the table size, no slayers."""
        return dealing.check_deal(players, options["phases"], deal)

    def begin(self) -> None:
        """Deal phase 1: seat 0 holds S15, seat 1 holds S20 and starts (VQ-2)."""
        self._deal(1, {S15: self.players[0], S20: self.players[1]})

    def _deal(self, phase: int, slayers: dict[str, str]) -> None:
        entries = self.deal["phases"] if self.deal else []
        entry = entries[phase - 1] if phase <= len(entries) else None
        if entry is None:
            hands, set_aside = dealing.seeded_hands(self.seed, self.players, phase)
        else:
            hands, set_aside = dealing.stacked_hands(entry["hands"])
        # VQ-3: the holder of S20 starts the phase.
        self._phase_dealt(phase=phase, start=slayers[S20], slayers=dict(slayers), hands=hands,
                          set_aside=set_aside)

    @event("PhaseDealt")
    def _phase_dealt(self, phase: int, start: str, slayers: dict, hands: dict,
                     set_aside: list) -> None:
        self.phase = phase
        self.round = 1
        self.hands = {
            p: sort_cards([*hands[p], *(s for s in SLAYERS if slayers[s] == p)])
            for p in self.players
        }
        self.set_aside = list(set_aside)
        self.out = []
        self.barred = None  # VQ-14: gone in a new phase
        self._reset_round(start)

    # -- commands -------------------------------------------------------------------------

    def play(self, player: str, cards: list[str]) -> None:
        """Lead or raise with a set, lead a slayer, or play one card in a slayer round."""
        unknown = sorted({c for c in cards if c not in ORDER})
        if unknown:
            raise BadCommand(N_("%(unknown)s is not a Vampire Queen card (cards: 1 … 13, Q, S15, "
                                "S20)"), unknown=', '.join(map(repr, unknown)))
        cards = sort_cards(cards)
        value = self.check_play(player, cards)
        self._played(player=player, cards=cards, value=value)
        self._go_on()

    def pass_turn(self, player: str) -> None:
        """Pass: always allowed to a later player in a normal round; forced by VQ-12."""
        if self.turn == 0:
            raise Refusal("VQ-4", N_("%(player)s is the start player and must lead; only later "
                                     "players may pass."), player=player)
        forced = False
        if self.slayer is not None:
            if not forced_to_pass(self.hands[player]):
                raise Refusal("VQ-10", N_("Nobody may pass in a slayer round: %(player)s must "
                                          "play one vampire card."), player=player)
            forced = True
        self._passed(player=player, forced=forced)
        self._go_on()

    def check_play(self, player: str, cards: list[str]) -> int:
        """The value the cards are played at, or the Refusal citing the ruling they break."""
        leading = self.turn == 0
        hand = self.hands[player]
        slayers = [c for c in cards if c in SLAYERS]
        if self.slayer is not None and not leading:
            if slayers:
                raise Refusal("VQ-13", N_("A second vampire slayer may never be played in a "
                                          "slayer round."))
            if forced_to_pass(hand):
                raise Refusal("VQ-12", N_("%(player)s holds only the other vampire slayer and "
                                          "must pass."), player=player)
            if len(cards) != 1:
                raise Refusal("VQ-10", N_("In a slayer round every player plays exactly one "
                                          "vampire card, not %(n_cards)s."), n_cards=len(cards))
            self.check_holds(player, cards, "VQ-10")
            return slayer_round_value(cards[0])
        if slayers:
            if not leading:
                raise Refusal("VQ-9", N_("Only the start player may play a vampire slayer, and "
                                         "only to lead a round."))
            if len(cards) != 1:
                raise Refusal("VQ-9", N_("A vampire slayer is led as a single card, never joined "
                                         "by others."))
            if self.barred == {"player": player, "slayer": cards[0]}:
                raise Refusal("VQ-14", N_("%(player)s has just taken %(cards)s and may not lead "
                                          "it in this round."), player=player, cards=cards[0])
            self.check_holds(player, cards, "VQ-4")
            return 0
        if not cards:
            raise Refusal("VQ-4" if leading else "VQ-5", N_("Play one or more cards, or pass."))
        if not leading and len(cards) != self.count:
            played = (N_("This round is played with %(count)s card, not %(n)s.") if self.count == 1
                      else N_("This round is played with %(count)s cards, not %(n)s."))
            raise Refusal("VQ-5", played, count=self.count, n=len(cards))
        value = set_value(cards)
        if value is None:
            raise Refusal("VQ-6", N_("%(cards)s is not a set: cards of one value, Queens may "
                                     "join."), cards=describe(cards))
        if not leading and value <= self.high:
            raise Refusal("VQ-5", N_("%(cards)s counts %(value)s; a raise must be higher than "
                                     "%(high)s."), cards=describe(cards), value=value,
                          high=self.high)
        self.check_holds(player, cards, "VQ-4" if leading else "VQ-5")
        return value

    def check_holds(self, player: str, cards: list[str], rule: str) -> None:
        """Refuse cards the player does not hold, citing the ruling of the move tried."""
        if not holds(self.hands[player], cards):
            raise Refusal(rule, N_("%(player)s does not hold %(cards)s."), player=player,
                          cards=describe(cards))

    @event("Played")
    def _played(self, player: str, cards: list, value: int) -> None:
        self.hands[player] = remove_cards(self.hands[player], cards)
        self.plays.append({"player": player, "action": "play", "cards": list(cards),
                           "value": value})
        if self.turn == 0:
            self.count = len(cards)
            self.slayer = cards[0] if cards[0] in SLAYERS else None
            self.high, self.high_player = value, player
        elif value > self.high or (self.slayer is not None and value == self.high):
            # VQ-11: among equal highest cards of a slayer round the last played counts.
            self.high, self.high_player = value, player
        self.turn += 1

    @event("Passed")
    def _passed(self, player: str, forced: bool) -> None:
        self.plays.append({"player": player, "action": "pass", "cards": [], "value": None})
        if forced:
            self.forced = player
        self.turn += 1

    # -- automatic follow-ups -------------------------------------------------------------

    def _go_on(self) -> None:
        """Skip empty hands (VQ-8); end the round after everyone's turn, then maybe the phase."""
        while self.turn < len(self.players):
            player = self.to_act[0]
            if self.hands[player]:
                return
            self._skipped(player=player)
        self._end_round()

    @event("Skipped")
    def _skipped(self, player: str) -> None:
        self.plays.append({"player": player, "action": "skip", "cards": [], "value": None})
        self.turn += 1

    def _end_round(self) -> None:
        cards = sort_cards(c for entry in self.plays for c in entry["cards"])
        if self.slayer is None:
            taker, start = None, self.high_player  # VQ-7
        else:
            taker = self.forced or self.high_player  # VQ-12 overrides VQ-11
            start = taker
        self._round_ended(phase=self.phase, round=self.round, start=start, taker=taker,
                          cards=cards)
        # VQ-15: only at the end of a round, and only an empty hand after any take-back.
        if any(not hand for hand in self.hands.values()):
            self._end_phase()

    @event("RoundEnded")
    def _round_ended(self, phase: int, round: int, start: str, taker: str | None,
                     cards: list) -> None:
        if taker is None:
            self.out = [*self.out, *cards]  # VQ-7: out for this phase
            self.barred = None
        else:
            self.hands[taker] = sort_cards([*self.hands[taker], *cards])  # VQ-11, VQ-12
            self.barred = {"player": taker, "slayer": self.slayer}  # VQ-14
        self.round = round + 1
        self._reset_round(start)

    def _end_phase(self) -> None:
        minus = {p: minus_points(self.hands[p]) for p in self.players}  # VQ-16
        scores = {p: self.scores[p] + minus[p] for p in self.players}
        self._phase_scored(phase=self.phase, minus=minus, scores=scores)
        if self.phase < self.options["phases"]:
            self._deal(self.phase + 1, self.slayer_holders())  # VQ-3: slayers stay where they are
        else:
            fewest = min(scores.values())
            self._game_ended(winners=[p for p in self.players if scores[p] == fewest],
                             scores=scores)  # VQ-17

    @event("PhaseScored")
    def _phase_scored(self, phase: int, minus: dict, scores: dict) -> None:
        self.minus_points = [*self.minus_points, dict(minus)]
        self.scores = dict(scores)

    @event("GameEnded")
    def _game_ended(self, winners: list, scores: dict) -> None:
        self.winners = list(winners)
        self.scores = dict(scores)
        self.finished = True

    # -- legal moves and views ------------------------------------------------------------

    def list_moves(self, player: str) -> list[dict[str, Any]]:
        """Every legal command of the player to act."""
        hand = self.hands[player]
        if self.turn == 0:
            barred = self.barred if self.barred and self.barred["player"] == player else None
            return lead_moves(hand, barred["slayer"] if barred else None)  # VQ-14
        if self.slayer is not None:
            return slayer_round_moves(hand)
        return raise_moves(hand, self.count, self.high)

    def samples(self, event_type: str, data: dict[str, Any]) -> list[Sample]:
        """Each phase's minus points (VQ-16)."""
        if event_type != "PhaseScored":
            return []
        return [(p, "minus_points_per_phase", float(v)) for p, v in data["minus"].items()]

    def slayer_holders(self) -> dict[str, str | None]:
        """Who holds each slayer (None while it lies on the table in a slayer round)."""
        holders: dict[str, str | None] = {S15: None, S20: None}
        for p in self.players:
            for card in self.hands[p][-2:]:  # slayers sort last
                if card in SLAYERS:
                    holders[card] = p
        return holders

    def public_state(self) -> dict[str, Any]:
        """Phase, round, the round's plays, slayers, hand sizes, minus points (no hand)."""
        return {
            "phase": self.phase,
            "phases": self.options["phases"],
            "round": self.round,
            "start_player": self.start,
            "slayer_round": self.slayer is not None,
            "slayer_led": self.slayer,
            "count": self.count,
            "highest": {"player": self.high_player, "value": self.high}
            if self.high_player else None,
            "plays": [dict(entry, cards=list(entry["cards"])) for entry in self.plays],
            "slayers": self.slayer_holders(),
            "barred": dict(self.barred) if self.barred else None,
            "hand_sizes": {p: len(self.hands[p]) for p in self.players},
            "cards_out": len(self.out),
            "minus_points": [dict(m) for m in self.minus_points],
            "total_minus_points": dict(self.scores),
        }

    def private_state(self, player: str) -> dict[str, Any]:
        """The player's hand, sorted by value."""
        return {"hand": list(self.hands[player])}

    def full_state(self) -> dict[str, Any]:
        """Everything, secrets included, JSON-native and in a fixed order."""
        return {
            "players": list(self.players),
            "options": dict(self.options),
            "phase": self.phase,
            "round": self.round,
            "start": self.start,
            "turn": self.turn,
            "plays": [dict(entry, cards=list(entry["cards"])) for entry in self.plays],
            "slayer": self.slayer,
            "count": self.count,
            "high": self.high,
            "high_player": self.high_player,
            "forced": self.forced,
            "barred": dict(self.barred) if self.barred else None,
            "hands": {p: list(self.hands[p]) for p in self.players},
            "out": sort_cards(self.out),
            "set_aside": list(self.set_aside),
            "minus_points": [dict(m) for m in self.minus_points],
            "scores": dict(self.scores),
            "finished": self.finished,
            "winners": list(self.winners),
        }
