"""Voodoo Prince in plain words, with the rulings each event applies."""

from __future__ import annotations

from typing import Any

from domain.core.narration import Narrator, plural
from domain.voodoo_prince.cards import COLOUR_NAMES, TOP


class VoodooPrinceNarrator(Narrator):
    """Voodoo Prince: deals, trump, cards, tricks (VP-8 doubles, VP-7 voodoo), finishing."""

    TITLE = "Voodoo Prince"
    RULE = "VP-13"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.trump: str | None = None
        self.trick: list[dict[str, str]] = []
        self.tricks = {p: 0 for p in players}

    def setup_words(self) -> str:
        return plural(self.options.get("rounds", 5), "round")

    def on_RoundDealt(self, d: dict, _next: dict | None) -> str:
        hands = d.get("hands") or {}
        each = f" {len(next(iter(hands.values())))} cards to each player" if hands else ""
        text = f"Round {d['round']} of {self.options.get('rounds')}: {d['dealer']} deals{each}"
        if d.get("trump"):
            return f"{text}; the trump indicator drawn is {COLOUR_NAMES[d['trump']]} (VP-2)."
        return f"{text}, looks at the new hand and will choose trump (VP-3)."

    def after_RoundDealt(self, d: dict) -> None:
        self.trump, self.trick, self.tricks = d.get("trump"), [], {p: 0 for p in self.players}

    def on_TrumpChosen(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']} chooses {COLOUR_NAMES[d['trump']]} as trump and leads (VP-3)."

    def after_TrumpChosen(self, d: dict) -> None:
        self.trump = d["trump"]

    def on_CardPlayed(self, d: dict, following: dict | None) -> str:
        player, card = d["player"], d["card"]
        if not self.trick:
            text = f"{player} leads {card}"
        else:
            led = self.trick[0]["card"][0]
            if card[0] == led:
                text = f"{player} plays {card}"
            elif card[0] == self.trump:
                text = f"{player} cannot follow {COLOUR_NAMES[led]} and trumps with {card} (VP-5)"
            else:
                text = f"{player} cannot follow {COLOUR_NAMES[led]} and discards {card} (VP-5)"
        won = following if following and following["type"] == "TrickWon" else None
        if won and won["data"].get("winner") == player and won["data"].get("card") == card:
            text += " and wins the trick"
            voodoo = self.voodoo(card, [*self.trick, d])
            if voodoo:
                text += f"; the voodoo 0 beats the {voodoo} (VP-7)"
            if won["data"].get("count") == 2:
                text += "; it counts twice (VP-8)"
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
        shown = ", ".join(f"{e['player']} {e['card']}" for e in d["trick"])
        text = f"{winner} takes the trick ({shown}) with {d['card']}"
        voodoo = self.voodoo(d["card"], d["trick"])
        if voodoo:
            text += f": the voodoo 0 beats the {voodoo} (VP-7)"
        if count == 2:
            text += ": won by a 5 or a 7, it counts as two tricks (VP-8)"
        return f"{text}; {winner} now holds {plural(self.tricks[winner] + count, 'trick')}."

    def after_TrickWon(self, d: dict) -> None:
        self.tricks[d["winner"]] += d["count"]
        self.trick = []

    def on_PlayerFinished(self, d: dict, _next: dict | None) -> str:
        player = d["player"]
        held = self.tricks[player]
        if len(self.players) == 2:
            return (f"{player} reaches {plural(held, 'trick')} and ends the round, scoring "
                    f"{d['points']} for the opponent's tricks (VP-12).")
        text = (f"{player} has {plural(held, 'trick')} and is out of the round, scoring "
                f"{d['points']} for the tricks the others hold (VP-10)")
        return f"{text}; {d['leader']} leads next (VP-9)." if d.get("leader") else f"{text}."

    def on_RoundEnded(self, d: dict, _next: dict | None) -> str:
        last, points = d["last"], d["points"].get(d["last"], 0)
        if len(self.players) == 2:
            text = (f"Round {d['round']} ends: {last} scores {points}, what they lack of "
                    f"seven tricks (VP-12)")
        else:
            text = (f"Round {d['round']} ends with {last} left last, scoring {points} for "
                    f"their own tricks (VP-11)")
        more = d["round"] < self.options.get("rounds", d["round"])
        return f"{text}; {last} deals the next round (VP-3)." if more else f"{text}."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        return self.ending(d)
