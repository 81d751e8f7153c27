"""The Voodoo Prince aggregate: rounds of tricks, finishing, and scoring (rules VP-1 … VP-13)."""

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
    NotYourTurn,
    Option,
    Param,
    Refusal,
    Sample,
)
from domain.core.words import N_
from domain.voodoo_prince import deal as dealing
from domain.voodoo_prince.cards import (
    COLOUR_NAMES,
    COLOURS,
    TOP,
    TRICKS_TO_FINISH,
    TWO_PLAYER_TARGET,
    card_order,
    colour,
    trick_count,
    trick_winner,
)
from domain.voodoo_prince.moves import play_commands, playable
from domain.voodoo_prince.narration import VoodooPrinceNarrator


class VoodooPrince(Game):
    """Voodoo Prince (Reiner Knizia): finish late, but never last."""

    KEY = dealing.KEY
    MIN_PLAYERS = 2
    MAX_PLAYERS = 5
    OPTIONS = {"rounds": Option(5, 1, 20)}  # VP-1
    SHORT_OPTIONS = {"rounds": 1}
    COMMANDS = {
        "choose_trump": Command("choose_trump", {"trump": Param(str, choices=COLOURS)}),
        "play": Command("play", {"card": Param(str)}),
    }
    COMMAND_EVENTS = {
        "TrumpChosen": ("choose_trump", ("trump",)),
        "CardPlayed": ("play", ("card",)),
    }
    SECRET_FIELDS = {"RoundDealt": {"hands": PER_PLAYER, "undealt": HOST_ONLY}}
    DEAL_EVENTS = frozenset({"RoundDealt"})
    TRICKS = ("CardPlayed", "TrickWon")  # VP-6: a trick is played card by card, then won
    NARRATOR = VoodooPrinceNarrator
    METRICS = (
        Metric("finishing_position", "place in which the player went out of a round "
                                     "(1 = first out, last = never finished; VP-10, VP-11)"),
        Metric("points_per_round", "points scored in a round"),
    )
    TURN_RULE = "VP-5"
    END_RULE = "VP-13"  # after the last round the game is decided

    # -- setup ----------------------------------------------------------------------------

    def init_state(self) -> None:
        """The empty table before round 1 is dealt."""
        self.round = 0
        self.dealer = None
        self.trump = None
        self.leader = None
        self.turn = None
        self.hands = {p: [] for p in self.players}
        self.undealt = []
        self._clear_round()
        self.past_rounds = []

    def _clear_round(self) -> None:
        """A round's table before its first trick (assignments only: runs inside events)."""
        self.trick = []
        self.last_trick = None
        self.tricks = {p: 0 for p in self.players}
        self.taken = {p: [] for p in self.players}
        self.out = []
        self.set_aside = {}
        self.round_points = {p: 0 for p in self.players}

    @classmethod
    def check_deal(cls, players: list[str], options: dict[str, Any], deal: dict) -> dict:
        """A stacked deal as the rules page describes, checked and normalised."""
        return dealing.check_deal(players, options, deal)

    def begin(self) -> None:
        """Deal round 1: seat 0 deals and leads, trump drawn at random (VP-2)."""
        self._deal(1, self.players[0])

    def _deal(self, round_no: int, dealer: str) -> None:
        n = len(self.players)
        entries = self.deal["rounds"] if self.deal else []
        entry = entries[round_no - 1] if round_no <= len(entries) else None
        if entry is None:
            hands, undealt = dealing.seeded_hands(self.seed, round_no, self.players)
        else:
            hands = entry["hands"]
            undealt = dealing.stacked_undealt(hands, n)
        trump = None  # VP-3: from round 2 on the dealer chooses
        if round_no == 1:
            trump = entry["trump"] if entry and "trump" in entry else dealing.drawn_trump(self.seed)
        self._round_dealt(round=round_no, dealer=dealer, trump=trump,
                          hands={p: list(hands[p]) for p in self.players}, undealt=list(undealt))

    # -- whose turn -----------------------------------------------------------------------

    @property
    def to_act(self) -> list[str]:
        """The dealer choosing trump, the leader, or the next active player in the trick."""
        return [] if self.finished or self.turn is None else [self.turn]

    def turn_refusal(self, player: str) -> NotYourTurn:
        """While the dealer still chooses trump, the others wait under VP-3."""
        if self.trump is None and self.turn == self.dealer:
            return NotYourTurn("VP-3", N_("%(dealer)s deals and chooses trump first; %(player)s "
                                          "waits."), dealer=self.dealer, player=player)
        return super().turn_refusal(player)

    @property
    def active(self) -> list[str]:
        """Players still in the round, in seat order (VP-10)."""
        return [p for p in self.players if p not in self.out]

    def samples(self, event_type: str, data: dict[str, Any]) -> list[Sample]:
        """Finishing places (VP-10, VP-11) and each round's points."""
        if event_type == "PlayerFinished":  # applied: the finisher is the last one out so far
            return [(data["player"], "finishing_position", float(len(self.out)))]
        if event_type == "RoundEnded":
            round_points = self.past_rounds[-1]
            return [(data["last"], "finishing_position", float(len(self.players))),
                    *((p, "points_per_round", float(round_points[p])) for p in self.players)]
        return []

    def _next_active(self, player: str, out: list[str]) -> str:
        # VP-1: clockwise is increasing seat index, wrapping; finished players are skipped.
        seat = self.players.index(player)
        n = len(self.players)
        for step in range(1, n + 1):
            other = self.players[(seat + step) % n]
            if other not in out:
                return other
        return player

    def _led(self) -> str | None:
        return colour(self.trick[0]["card"]) if self.trick else None

    def list_moves(self, player: str) -> list[dict[str, Any]]:
        """Choosing one of five trumps, or every card VP-5 allows."""
        if self.trump is None:
            return [{"type": "choose_trump", "trump": c} for c in COLOURS]
        return play_commands(self.hands[player], self._led())

    # -- commands -------------------------------------------------------------------------

    def choose_trump(self, player: str, trump: str) -> None:
        """The dealer of round 2 or later names trump after seeing their hand (VP-3)."""
        self.check_trump_open()
        self._trump_chosen(player=player, trump=trump)

    def check_trump_open(self) -> None:
        """Trump is chosen only once, by a later round's dealer, before the first lead."""
        if self.round == 1:
            raise Refusal("VP-2", N_("In round 1 trump is drawn, not chosen: it is %(colour)s."),
                          colour=COLOUR_NAMES[self.trump])
        if self.trump is not None:
            raise Refusal("VP-3", N_("Trump for round %(round)s is already %(colour)s."),
                          round=self.round, colour=COLOUR_NAMES[self.trump])

    def play(self, player: str, card: str) -> None:
        """Play a card to the trick; a full trick is won, and may finish a player or the round."""
        self.check_card(player, card)
        self._card_played(player=player, card=card)
        if len(self.trick) == len(self.active):
            self._settle_trick()

    def check_card(self, player: str, card: str) -> None:
        """The card exists in this game, trump is known, the player holds it and follows suit."""
        n = len(self.players)
        if card not in card_order(n):
            raise BadCommand(N_("%(card)r is not a card of a %(n)s-player game (colours "
                                "%(colours)s, values 0–%(top)s)"), card=card, n=n,
                             colours=''.join(COLOURS), top=TOP[n])
        if self.trump is None:
            raise Refusal("VP-3", N_("%(dealer)s must choose trump before leading."),
                          dealer=self.dealer)
        hand = self.hands[player]
        # No ruling names this case; VP-5 is about what a player may play. The refusal never
        # says a card is undealt (VP-4): that would tell the player what is out of play.
        if card not in hand:
            raise Refusal("VP-5", N_("%(player)s does not hold %(card)s."), player=player,
                          card=card)
        led = self._led()
        if card not in playable(hand, led):
            held = ", ".join(c for c in hand if colour(c) == led)
            raise Refusal("VP-5", N_("%(player)s must follow %(colour)s and holds %(held)s."),
                          player=player, colour=COLOUR_NAMES[led], held=held)

    def _settle_trick(self) -> None:
        cards = [entry["card"] for entry in self.trick]
        best = trick_winner(cards, self.trump, TOP[len(self.players)])
        winner, card = self.trick[best]["player"], cards[best]
        self._trick_won(winner=winner, card=card, count=trick_count(card),
                        trick=[dict(e) for e in self.trick])
        if self.tricks[winner] < TRICKS_TO_FINISH[len(self.players)]:
            return  # VP-9: the winner leads the next trick
        # VP-10: out for the round, scoring every trick the others hold now (finished
        # players' tricks included); VP-12 reads the same for the two-player finisher.
        points = sum(t for p, t in self.tricks.items() if p != winner)
        out = [*self.out, winner]
        left = [p for p in self.players if p not in out]
        leader = self._next_active(winner, out) if len(left) > 1 else None
        self._player_finished(player=winner, points=points, leader=leader)
        if len(left) == 1:
            self._end_round(left[0])

    def _end_round(self, last: str) -> None:
        own = self.tricks[last]
        # VP-11: the last player scores only their own tricks; VP-12: with two players,
        # what the opponent lacks of 7, never below 0.
        two = len(self.players) == 2
        points = max(0, TWO_PLAYER_TARGET - own) if two else own
        # The last player's unplayed cards stay in their hand until the next deal replaces it.
        self._round_ended(round=self.round, last=last, points={last: points})
        if self.round < self.options["rounds"]:
            self._deal(self.round + 1, last)  # VP-3 / VP-12: the last player deals
        else:
            best = max(self.scores.values())
            winners = [p for p in self.players if self.scores[p] == best]  # VP-13
            self._game_ended(scores=dict(self.scores), winners=winners)

    # -- events (assignments only: they run again on every replay) --------------------------

    @event("RoundDealt")
    def _round_dealt(self, round: int, dealer: str, trump: str | None,
                     hands: dict[str, list[str]], undealt: list[str]) -> None:
        self.round = round
        self.dealer = dealer
        self.trump = trump
        self.hands = {p: list(hands[p]) for p in self.players}
        self.undealt = list(undealt)
        self._clear_round()
        self.leader = dealer  # VP-2 / VP-3: the dealer leads the first trick
        self.turn = dealer

    @event("TrumpChosen")
    def _trump_chosen(self, player: str, trump: str) -> None:
        self.trump = trump

    @event("CardPlayed")
    def _card_played(self, player: str, card: str) -> None:
        self.hands[player] = [c for c in self.hands[player] if c != card]
        self.trick = [*self.trick, {"player": player, "card": card}]
        self.turn = self._next_active(player, self.out)

    @event("TrickWon")
    def _trick_won(self, winner: str, card: str, count: int, trick: list[dict]) -> None:
        self.tricks = {**self.tricks, winner: self.tricks[winner] + count}
        self.taken = {**self.taken, winner: self.taken[winner] + [e["card"] for e in trick]}
        self.last_trick = {"trick": [dict(e) for e in trick], "winner": winner, "card": card,
                           "count": count}
        self.trick = []
        self.leader = winner
        self.turn = winner

    @event("PlayerFinished")
    def _player_finished(self, player: str, points: int, leader: str | None) -> None:
        self.out = [*self.out, player]
        self.set_aside = {**self.set_aside, player: list(self.hands[player])}
        self.hands = {**self.hands, player: []}
        self.scores = {**self.scores, player: self.scores[player] + points}
        self.round_points = {**self.round_points, player: self.round_points[player] + points}
        self.leader = leader
        self.turn = leader

    @event("RoundEnded")
    def _round_ended(self, round: int, last: str, points: dict[str, int]) -> None:
        self.scores = {p: s + points.get(p, 0) for p, s in self.scores.items()}
        self.round_points = {p: s + points.get(p, 0) for p, s in self.round_points.items()}
        self.past_rounds = [*self.past_rounds, dict(self.round_points)]
        self.leader = None
        self.turn = None

    @event("GameEnded")
    def _game_ended(self, scores: dict[str, int], winners: list[str]) -> None:
        self.scores = dict(scores)
        self.winners = list(winners)
        self.finished = True

    # -- views ----------------------------------------------------------------------------

    def public_state(self) -> dict[str, Any]:
        """Round, dealer, trump, the trick on the table, tricks held, who is out, the leader."""
        n = len(self.players)
        return {
            "round": self.round,
            "rounds": self.options["rounds"],
            "dealer": self.dealer,
            "trump": self.trump,
            "leader": self.leader,
            "trick": [dict(e) for e in self.trick],
            "last_trick": _copy_trick(self.last_trick),
            "tricks": dict(self.tricks),
            "tricks_to_finish": TRICKS_TO_FINISH[n],
            "top_card": TOP[n],
            "out": list(self.out),
            "hand_sizes": {p: len(self.hands[p]) for p in self.players},
            "round_points": dict(self.round_points),
            "past_rounds": [dict(r) for r in self.past_rounds],
        }

    def private_state(self, player: str) -> dict[str, Any]:
        """The player's own hand."""
        return {"hand": list(self.hands[player])}

    def full_state(self) -> dict[str, Any]:
        """Everything: the public state plus hands, undealt, set-aside and taken cards."""
        return {
            **self.public_state(),
            "players": list(self.players),
            "options": dict(self.options),
            "turn": self.turn,
            "hands": {p: list(self.hands[p]) for p in self.players},
            "undealt": list(self.undealt),
            "set_aside": {p: list(c) for p, c in self.set_aside.items()},
            "taken": {p: list(self.taken[p]) for p in self.players},
            "scores": dict(self.scores),
            "winners": list(self.winners),
            "finished": self.finished,
        }


def _copy_trick(won: dict | None) -> dict | None:
    if won is None:
        return None
    return {**won, "trick": [dict(e) for e in won["trick"]]}
