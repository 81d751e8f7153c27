"""Voodoo Prince in plain words, with the rulings each event applies."""

from __future__ import annotations

from typing import Any

from domain.core.narration import Narrator
from domain.voodoo_prince.cards import COLOUR_NAMES, TOP


class VoodooPrinceNarrator(Narrator):
    """Voodoo Prince: deals, trump, cards, tricks (VP-8 doubles, VP-7 voodoo), finishing."""

    TITLE = "Voodoo Prince"
    RULE = "VP-13"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.trump: str | None = None
        self.trick: list[dict[str, str]] = []
        self.tricks = {p: 0 for p in self.players}

    def vp_card(self, card: str) -> str:
        """A card in words, as the table's cards are titled: 'yellow 9', 'gelb 9' (a code the
        rules do not know is said as it is)."""
        colour = COLOUR_NAMES.get(card[:1])
        if colour is None:
            return card
        return self._("%(colour)s %(value)s", colour=colour, value=card[1:])

    def setup_words(self) -> str:
        return self.ngettext("%(n)s round", "%(n)s rounds", self.options.get("rounds", 5))

    def on_RoundDealt(self, d: dict, _next: dict | None) -> str:
        hands = d.get("hands") or {}
        where = {"round": d["round"], "rounds": self.options.get("rounds"), "dealer": d["dealer"]}
        if hands:
            text = self.ngettext("Round %(round)s of %(rounds)s: %(dealer)s deals %(n)s card to "
                                 "each player", "Round %(round)s of %(rounds)s: %(dealer)s deals "
                                 "%(n)s cards to each player",
                                 len(next(iter(hands.values()))), **where)
        else:
            text = self._("Round %(round)s of %(rounds)s: %(dealer)s deals", **where)
        if d.get("trump"):
            return text + self._("; the trump indicator drawn is %(colour)s (VP-2).",
                                 colour=COLOUR_NAMES[d["trump"]])
        return text + self._(", looks at the new hand and will choose trump (VP-3).")

    def after_RoundDealt(self, d: dict) -> None:
        self.trump, self.trick, self.tricks = d.get("trump"), [], {p: 0 for p in self.players}

    def on_TrumpChosen(self, d: dict, _next: dict | None) -> str:
        return self._("%(player)s chooses %(colour)s as trump and leads (VP-3).",
                      player=d["player"], colour=COLOUR_NAMES[d["trump"]])

    def after_TrumpChosen(self, d: dict) -> None:
        self.trump = d["trump"]

    def on_CardPlayed(self, d: dict, following: dict | None) -> str:
        player, card = d["player"], d["card"]
        if not self.trick:
            text = self._("%(player)s leads %(card)s", player=player, card=self.vp_card(card))
        else:
            led = self.trick[0]["card"][0]
            if card[0] == led:
                text = self._("%(player)s plays %(card)s", player=player,
                                  card=self.vp_card(card))
            elif card[0] == self.trump:
                text = self._("%(player)s cannot follow %(colour)s and trumps with %(card)s "
                              "(VP-5)", player=player, colour=COLOUR_NAMES[led],
                              card=self.vp_card(card))
            else:
                text = self._("%(player)s cannot follow %(colour)s and discards %(card)s "
                              "(VP-5)", player=player, colour=COLOUR_NAMES[led],
                              card=self.vp_card(card))
        won = following if following and following["type"] == "TrickWon" else None
        if won and won["data"].get("winner") == player and won["data"].get("card") == card:
            text += self._(" and wins the trick")
            voodoo = self.voodoo(card, [*self.trick, d])
            if voodoo:
                text += self._("; the voodoo 0 beats the %(card)s (VP-7)",
                               card=self.vp_card(voodoo))
            if won["data"].get("count") == 2:
                text += self._("; it counts twice (VP-8)")
        return text + "."

    def voodoo(self, card: str, trick: list[dict[str, str]]) -> str | None:
        """The top card a winning 0 beat (VP-7), if it did."""
        top = f"{card[0]}{TOP.get(len(self.players), 10)}"
        cards = [e["card"] for e in trick]
        return top if card[1:] == "0" and top in cards else None

    def after_CardPlayed(self, d: dict) -> None:
        self.trick = [*self.trick, {"player": d["player"], "card": d["card"]}]

    def on_TrickWon(self, d: dict, _next: dict | None) -> str:
        winner, count = d["winner"], d["count"]
        shown = ", ".join(f"{e['player']} {self.vp_card(e['card'])}" for e in d["trick"])
        text = self._("%(winner)s takes the trick (%(shown)s) with %(card)s", winner=winner,
                      shown=shown, card=self.vp_card(d["card"]))
        voodoo = self.voodoo(d["card"], d["trick"])
        if voodoo:
            text += self._(": the voodoo 0 beats the %(card)s (VP-7)", card=self.vp_card(voodoo))
        if count == 2:
            text += self._(": won by a 5 or a 7, it counts as two tricks (VP-8)")
        return text + self.ngettext("; %(winner)s now holds %(n)s trick.",
                                    "; %(winner)s now holds %(n)s tricks.",
                                    self.tricks[winner] + count, winner=winner)

    def after_TrickWon(self, d: dict) -> None:
        self.tricks[d["winner"]] += d["count"]
        self.trick = []

    def on_PlayerFinished(self, d: dict, _next: dict | None) -> str:
        player = d["player"]
        held = self.tricks[player]
        if len(self.players) == 2:
            return self.ngettext(
                "%(player)s reaches %(n)s trick and ends the round, scoring %(points)s for the "
                "opponent's tricks (VP-12).", "%(player)s reaches %(n)s tricks and ends the "
                "round, scoring %(points)s for the opponent's tricks (VP-12).", held,
                player=player, points=d["points"])
        text = self.ngettext(
            "%(player)s has %(n)s trick and is out of the round, scoring %(points)s for the "
            "tricks the others hold (VP-10)", "%(player)s has %(n)s tricks and is out of the "
            "round, scoring %(points)s for the tricks the others hold (VP-10)", held,
            player=player, points=d["points"])
        if d.get("leader"):
            return text + self._("; %(leader)s leads next (VP-9).", leader=d["leader"])
        return text + "."

    def on_RoundEnded(self, d: dict, _next: dict | None) -> str:
        last, points = d["last"], d["points"].get(d["last"], 0)
        if len(self.players) == 2:
            text = self._("Round %(round)s ends: %(last)s scores %(points)s, what they lack of "
                          "seven tricks (VP-12)", round=d["round"], last=last, points=points)
        else:
            text = self._("Round %(round)s ends with %(last)s left last, scoring %(points)s for "
                          "their own tricks (VP-11)", round=d["round"], last=last, points=points)
        if d["round"] < self.options.get("rounds", d["round"]):
            return text + self._("; %(last)s deals the next round (VP-3).", last=last)
        return text + "."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        return self.ending(d)
