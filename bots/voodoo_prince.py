"""A heuristic Voodoo Prince bot: duck tricks early, keep trumps, race to finish when it pays."""

from __future__ import annotations

import random

from bots.base import HeuristicBot, Move, Seat, best, least
from domain.voodoo_prince import GAME
from domain.voodoo_prince.cards import TWO_PLAYER_TARGET, colour, trick_winner, value


class VoodooPrinceBot(HeuristicBot):
    """Avoids finishing first: a finisher scores the tricks the others hold, the last one little."""

    GAME = GAME

    def decide(self, seat: Seat, moves: list[Move]) -> Move:
        """Choose trump by strength, then duck or win each trick as the count of tricks says."""
        hand = seat.private["hand"]
        if moves[0]["type"] == "choose_trump":
            # The colour that holds most, high cards weighing more: trumps win tricks later.
            return best(moves, lambda m: sum(value(c) + 4 for c in hand if colour(c) == m["trump"]),
                        self.rng)
        table = seat.public
        want = self._wants_trick(seat)
        trump = table["trump"]
        trick = [entry["card"] for entry in table["trick"]]
        cards = [m["card"] for m in moves]
        if not trick:
            return {"type": "play", "card": self._lead(cards, trump, want, self.rng)}
        winning = [c for c in cards
                   if trick_winner([*trick, c], trump, table["top_card"]) == len(trick)]
        losing = [c for c in cards if c not in winning]
        if want and winning:
            pick = least(winning, lambda c: (colour(c) == trump, value(c)), self.rng)
        elif not want and losing:
            # Shed the highest card that still loses, but keep trumps for the race at the end.
            pick = best(losing, lambda c: (colour(c) != trump, value(c)), self.rng)
        elif want:
            pick = least(losing, lambda c: (colour(c) == trump, value(c)), self.rng)
        else:
            pick = least(winning, lambda c: (colour(c) == trump, value(c)), self.rng)
        return {"type": "play", "card": pick}

    def _wants_trick(self, seat: Seat) -> bool:
        table = seat.public
        me = seat.player
        tricks = table["tricks"]
        mine = tricks[me]
        others = sum(t for p, t in tricks.items() if p != me)
        if len(seat.players) == 2:
            # VP-12: finishing pays the opponent's tricks, being finished on pays 7 minus
            # ours: take tricks only once both sides hold more than half the target.
            half = TWO_PLAYER_TARGET // 2 + 1
            return mine >= half and others >= half
        active = [p for p in seat.players if p not in table["out"]]
        if len(active) <= 2:
            return True  # VP-11: the last one left scores only their own tricks
        # VP-10: finishing scores the others' tricks, so finish only once that is worth it.
        return others >= table["tricks_to_finish"] * (len(active) - 1)

    @staticmethod
    def _lead(cards: list[str], trump: str, want: bool, rng: random.Random) -> str:
        def strength(card: str) -> tuple[bool, int]:
            return colour(card) == trump, value(card)

        return best(cards, strength, rng) if want else least(cards, strength, rng)


HEURISTIC = VoodooPrinceBot
