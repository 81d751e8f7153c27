"""A heuristic Vampire Queen bot: dump slayers, shed low sets early, keep Queens for raises."""

from __future__ import annotations

from bots.base import HeuristicBot, Move, Seat, best, least
from domain.vampire_queen import GAME
from domain.vampire_queen.cards import MINUS, QUEEN, SLAYERS, set_value, slayer_round_value


class VampireQueenBot(HeuristicBot):
    """Plays Vampire Queen from its own hand and the table, as a careful beginner would."""

    GAME = GAME

    def decide(self, seat: Seat, moves: list[Move]) -> Move:
        """Lead, raise, pass or answer a slayer by the rules of thumb below."""
        table = seat.public
        if not table["plays"]:
            return best(moves, self._lead_score, self.rng)
        if table["slayer_round"]:
            return self._answer_slayer(moves, table["highest"]["value"])
        return self._raise(moves, seat)

    def _lead_score(self, move: Move) -> float:
        cards = move["cards"]
        if cards[0] in SLAYERS:
            # A led slayer is always taken by somebody else (VQ-11): the cheapest 15 or 20
            # minus points there are to shed.
            return 1000 + MINUS[cards[0]]  # VQ-16
        queens = cards.count(QUEEN)
        if queens == len(cards):
            return -100 - queens  # Queens alone: only when nothing else is left
        value = set_value(cards)
        # Lead every copy of a low value: many cards are hard to raise, so the lead comes
        # back, and low cards are what nobody else lets us shed later. Queens stay home.
        return 4 * (len(cards) - queens) - value - 20 * queens

    def _answer_slayer(self, moves: list[Move], high: int) -> Move:
        cards = [m["cards"][0] for m in moves if m["type"] == "play"]
        if not cards:
            return moves[0]
        safe = [c for c in cards if slayer_round_value(c) < high]
        # Already beaten, a card goes to whoever takes the round: shed the most expensive
        # one that stays below the highest; else play low and hope to be beaten.
        pick = (best(safe, MINUS.__getitem__, self.rng) if safe
                else least(cards, slayer_round_value, self.rng))
        return {"type": "play", "cards": [pick]}

    def _raise(self, moves: list[Move], seat: Seat) -> Move:
        raises = [m for m in moves if m["type"] == "play"]
        if not raises:
            return moves[0]
        hand = seat.private["hand"]

        def cost(move: Move) -> float:
            cards = move["cards"]
            queens = cards.count(QUEEN)
            value = set_value(cards)  # VQ-6: Queens alone count 14
            return 20 * queens + value

        pick = least(raises, cost, self.rng)
        queens = pick["cards"].count(QUEEN)
        # Queens are for raises, but a Queen spent on a small set is a Queen wasted: use them
        # when the hand is getting short or the raise sheds several cards at once.
        if queens and len(hand) > 6 and len(pick["cards"]) - queens < 2:
            return {"type": "pass"}
        return pick


HEURISTIC = VampireQueenBot
