"""Vampir in plain words, with the rulings each event applies."""

from __future__ import annotations

from typing import Any

from domain.core.narration import Narrator, names, plural, tally
from domain.vampir.cards import JOKER, heads_of


def va_cards(cards: list[str]) -> str:
    """Vampir card codes in words."""
    return names(["a Somewhere joker" if c == JOKER else c for c in cards])


class VampirNarrator(Narrator):
    """Vampir: deals, draws, discards, hunts and collects, colour-by-colour scoring."""

    TITLE = "Vampir"
    RULE = "VA-11"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.pile = 0

    def setup_words(self) -> str:
        return plural(self.options.get("rounds", 3), "round")

    def on_RoundDealt(self, d: dict, _next: dict | None) -> str:
        return (f"Round {d['round']} of {self.options.get('rounds')}: four cards each, "
                f"{d['draw_pile_size']} in the draw pile and one vampire face up under each "
                f"location; {d['start']} starts (VA-1).")

    def after_RoundDealt(self, d: dict) -> None:
        self.pile = d["draw_pile_size"]

    def on_Drew(self, d: dict, _next: dict | None) -> str:
        left = d["draw_pile_size"]
        if "cards" in d:
            text = f"{d['player']} draws {va_cards(d['cards'])}"
        else:
            text = f"{d['player']} draws {plural(self.pile - left, 'card')}"
        if left == 0:
            return f"{text}, the last of the pile: the round ends at once (VA-8)."
        return f"{text}; {left} left in the pile (VA-2)."

    def after_Drew(self, d: dict) -> None:
        self.pile = d["draw_pile_size"]

    def on_Discarded(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']} discards {va_cards([d['card']])} under the {d['location']} (VA-3)."

    def on_Hunted(self, d: dict, _next: dict | None) -> str:
        cards = d["cards"]
        text = (f"{d['player']} lays out a {d['colour']} hunt of "
                f"{plural(heads_of(cards), 'head')}: {va_cards(cards)} (VA-4, VA-6)")
        return text + self.replaced(d)

    def on_Collected(self, d: dict, _next: dict | None) -> str:
        taken, added = d["taken"], d["cards"]
        hunt = taken + added
        text = (f"{d['player']} collects {va_cards(taken)} from under the {d['location']}"
                f"{' and adds ' + va_cards(added) if added else ''}: a {d['location']} hunt of "
                f"{plural(heads_of(hunt), 'head')} (VA-5)")
        return text + self.replaced(d)

    @staticmethod
    def replaced(d: dict) -> str:
        """The old hunt a new one pushes out (VA-7), if any."""
        if not d.get("replaced"):
            return "."
        return f"; the old {d.get('colour') or d.get('location')} hunt leaves the game (VA-7)."

    def on_RoundScored(self, d: dict, _next: dict | None) -> str:
        if d["reason"] == "six_colours":
            why = f"{d['ended_by']} shows hunts in all six colours"
        else:
            why = "the draw pile is empty"
        lost = [f"{colour}: {names(who)}" for colour, who in d["lost"].items() if who]
        losses = (f"the weakest hunts are lost ({'; '.join(lost)})" if lost
                  else "no hunt is lost")
        return (f"Round {d['round']} ends: {why} (VA-8). Cards in hand are out (VA-9); "
                f"{losses} (VA-10). Points for heads still shown: {tally(d['points'])} (VA-11).")

    def on_GameFinished(self, d: dict, _next: dict | None) -> str:
        return self.ending(d)
