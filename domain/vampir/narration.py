"""Vampir in plain words, with the rulings each event applies."""

from __future__ import annotations

from typing import Any

from domain.core.narration import Narrator, tally
from domain.vampir.cards import COLOURS, JOKER, heads_of

# The locations keep the names their cards print in every language (see domain.vampir.cards).


class VampirNarrator(Narrator):
    """Vampir: deals, draws, discards, hunts and collects, colour-by-colour scoring."""

    TITLE = "Vampir"
    RULE = "VA-11"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.pile = 0

    def va_cards(self, cards: list[str]) -> str:
        """Vampir card codes in words: 'a pub vampire with 2 heads and a Somewhere joker'."""
        return self.names([self.va_card(c) for c in cards])

    def va_card(self, card: str) -> str:
        """One card in words; its location as the cards print it (a code not known: as it is)."""
        if card == JOKER:
            return self._("a Somewhere joker")
        location, heads = card[:-1], card[-1:]
        if location not in COLOURS or not heads.isdigit():
            return card
        return self.ngettext("a %(location)s vampire with %(n)s head",
                             "a %(location)s vampire with %(n)s heads", int(heads),
                             location=location)

    def heads(self, cards: list[str]) -> str:
        return self.ngettext("%(n)s head", "%(n)s heads", heads_of(cards))

    def setup_words(self) -> str:
        return self.ngettext("%(n)s round", "%(n)s rounds", self.options.get("rounds", 3))

    def on_RoundDealt(self, d: dict, _next: dict | None) -> str:
        return self._("Round %(round)s of %(rounds)s: four cards each, %(pile)s in the draw pile "
                      "and one vampire face up under each location; %(start)s starts (VA-1).",
                      round=d["round"], rounds=self.options.get("rounds"),
                      pile=d["draw_pile_size"], start=d["start"])

    def after_RoundDealt(self, d: dict) -> None:
        self.pile = d["draw_pile_size"]

    def on_Drew(self, d: dict, _next: dict | None) -> str:
        left = d["draw_pile_size"]
        if "cards" in d:
            text = self._("%(player)s draws %(cards)s", player=d["player"],
                          cards=self.va_cards(d["cards"]))
        else:
            text = self.ngettext("%(player)s draws %(n)s card", "%(player)s draws %(n)s cards",
                                 self.pile - left, player=d["player"])
        if left == 0:
            return text + self._(", the last of the pile: the round ends at once (VA-8).")
        return text + self._("; %(left)s left in the pile (VA-2).", left=left)

    def after_Drew(self, d: dict) -> None:
        self.pile = d["draw_pile_size"]

    def on_Discarded(self, d: dict, _next: dict | None) -> str:
        return self._("%(player)s discards %(card)s under the %(location)s (VA-3).",
                      player=d["player"], card=self.va_cards([d["card"]]),
                      location=d["location"])

    def on_Hunted(self, d: dict, _next: dict | None) -> str:
        cards = d["cards"]
        text = self._("%(player)s lays out a %(colour)s hunt of %(heads)s: %(cards)s (VA-4, "
                      "VA-6)", player=d["player"], colour=d["colour"], heads=self.heads(cards),
                      cards=self.va_cards(cards))
        return text + self.replaced(d)

    def on_Collected(self, d: dict, _next: dict | None) -> str:
        taken, added = d["taken"], d["cards"]
        where = {"player": d["player"], "taken": self.va_cards(taken),
                 "location": d["location"], "heads": self.heads(taken + added)}
        if added:
            text = self._("%(player)s collects %(taken)s from under the %(location)s and adds "
                          "%(added)s: a %(location)s hunt of %(heads)s (VA-5)",
                          added=self.va_cards(added), **where)
        else:
            text = self._("%(player)s collects %(taken)s from under the %(location)s: a "
                          "%(location)s hunt of %(heads)s (VA-5)", **where)
        return text + self.replaced(d)

    def replaced(self, d: dict) -> str:
        """The old hunt a new one pushes out (VA-7), if any."""
        if not d.get("replaced"):
            return "."
        return self._("; the old %(colour)s hunt leaves the game (VA-7).",
                      colour=d.get("colour") or d.get("location"))

    def on_RoundScored(self, d: dict, _next: dict | None) -> str:
        if d["reason"] == "six_colours":
            why = self._("%(player)s shows hunts in all six colours", player=d["ended_by"])
        else:
            why = self._("the draw pile is empty")
        lost = [f"{colour}: {self.names(who)}" for colour, who in d["lost"].items() if who]
        losses = (self._("the weakest hunts are lost (%(lost)s)", lost="; ".join(lost)) if lost
                  else self._("no hunt is lost"))
        return self._("Round %(round)s ends: %(why)s (VA-8). Cards in hand are out (VA-9); "
                      "%(losses)s (VA-10). Points for heads still shown: %(points)s (VA-11).",
                      round=d["round"], why=why, losses=losses, points=tally(d["points"]))

    def on_GameFinished(self, d: dict, _next: dict | None) -> str:
        return self.ending(d)
