"""A heuristic Vampir bot: collect rich locations, lay hunts that add heads, discard what feeds nobody."""

from __future__ import annotations

from collections import Counter

from bots.base import HeuristicBot, Move, Seat, best
from domain.vampir import GAME
from domain.vampir.cards import JOKER, colour_of, heads_of


class VampirBot(HeuristicBot):
    """Grows its shown heads each turn it can; hand cards score nothing at the round's end (VA-9)."""

    GAME = GAME

    def decide(self, seat: Seat, moves: list[Move]) -> Move:
        """Collect or draw; then hunt if it pays, else discard the least useful card."""
        player = seat.player
        table = seat.public
        shown = table["hunts"][player]
        # Near the end of the pile, cards kept in hand are about to be worth nothing.
        ending = table["draw_pile_size"] <= 2 * len(seat.players)
        threshold = 1 if ending else 3
        if any(m["type"] == "draw" for m in moves):
            collects = [m for m in moves if m["type"] == "collect"]
            if collects:
                def collect_gain(m: Move) -> float:
                    laid = table["locations"][m["location"]] + m["cards"]
                    return self._gain(laid, m["location"], shown, m["cards"])
                pick = best(collects, collect_gain, self.rng)
                if collect_gain(pick) >= threshold:
                    return pick
            return {"type": "draw"}
        hunts = [m for m in moves if m["type"] == "hunt"]
        if hunts:
            pick = best(hunts, lambda m: self._gain(m["cards"], m["colour"], shown, m["cards"]),
                        self.rng)
            if self._gain(pick["cards"], pick["colour"], shown, pick["cards"]) >= threshold:
                return pick
        discards = [m for m in moves if m["type"] == "discard"]
        hand = Counter(colour_of(c) for c in seat.private["hand"])
        return best(discards, lambda m: self._discard_score(m, hand, table["locations"], shown),
                    self.rng)

    @staticmethod
    def _gain(laid: list[str], colour: str, shown: dict[str, list[str]],
              from_hand: list[str]) -> float:
        # A new hunt replaces our old one of that colour (VA-7); jokers are worth keeping.
        return heads_of(laid) - heads_of(shown.get(colour, [])) - 0.5 * from_hand.count(JOKER)

    @staticmethod
    def _discard_score(move: Move, hand: Counter, locations: dict[str, list[str]],
                       shown: dict[str, list[str]]) -> float:
        card, location = move["card"], move["location"]
        if card == JOKER:
            return -100.0  # a joker fits any hunt: the last card to give away
        colour = colour_of(card)
        # Give away a colour we hold little of and do not show, from a small pile, so the
        # next player finds nothing worth collecting there.
        return (-3 * hand[colour] - heads_of([card]) - 2 * heads_of(locations[location])
                - (2 if colour in shown else 0))


HEURISTIC = VampirBot
