"""A heuristic Vampire Queen bot: dump slayers, shed low sets early, keep Queens for raises."""

from __future__ import annotations

from replays.bots import HeuristicBot, Move, Seat, best

SLAYER_MINUS = {"S15": 15, "S20": 20}


def _minus(card: str) -> int:
    """Minus points of a card left in hand (VQ-16)."""
    return 14 if card == "Q" else SLAYER_MINUS.get(card) or int(card)


def _slayer_round_value(card: str) -> int:
    """A card's value in a slayer round: a Queen counts 1 (VQ-10)."""
    return 1 if card == "Q" else int(card)


class VampireQueenBot(HeuristicBot):
    """Plays Vampire Queen from its own hand and the table, as a careful beginner would."""

    def decide(self, seat: Seat, moves: list[Move]) -> Move:
        """Lead, raise, pass or answer a slayer by the rules of thumb below."""
        table = seat.public
        if not table["plays"]:
            return best(moves, self._lead_score)
        if table["slayer_round"]:
            return self._answer_slayer(moves, table["highest"]["value"])
        return self._raise(moves, seat)

    def _lead_score(self, move: Move) -> float:
        cards = move["cards"]
        if cards[0] in SLAYER_MINUS:
            # A led slayer is always taken by somebody else (VQ-11): the cheapest 15 or 20
            # minus points there are to shed.
            return 1000 + SLAYER_MINUS[cards[0]]
        queens = cards.count("Q")
        if queens == len(cards):
            return -100 - queens  # Queens alone: only when nothing else is left
        value = int(cards[0])
        # Lead every copy of a low value: many cards are hard to raise, so the lead comes
        # back, and low cards are what nobody else lets us shed later. Queens stay home.
        return 4 * (len(cards) - queens) - value - 20 * queens

    def _answer_slayer(self, moves: list[Move], high: int) -> Move:
        cards = [m["cards"][0] for m in moves if m["type"] == "play"]
        if not cards:
            return moves[0]
        safe = [c for c in cards if _slayer_round_value(c) < high]
        # Already beaten, a card goes to whoever takes the round: shed the most expensive
        # one that stays below the highest; else play low and hope to be beaten.
        pick = max(safe, key=_minus) if safe else min(cards, key=_slayer_round_value)
        return {"type": "play", "cards": [pick]}

    def _raise(self, moves: list[Move], seat: Seat) -> Move:
        raises = [m for m in moves if m["type"] == "play"]
        if not raises:
            return moves[0]
        hand = seat.private["hand"]

        def cost(move: Move) -> float:
            cards = move["cards"]
            queens = cards.count("Q")
            value = 14 if queens == len(cards) else int(cards[0])
            return 20 * queens + value

        pick = min(raises, key=cost)
        queens = pick["cards"].count("Q")
        # Queens are for raises, but a Queen spent on a small set is a Queen wasted: use them
        # when the hand is getting short or the raise sheds several cards at once.
        if queens and len(hand) > 6 and len(pick["cards"]) - queens < 2:
            return {"type": "pass"}
        return pick


HEURISTIC = VampireQueenBot
