"""Vampire Queen in plain words, with the rulings each event applies."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.core.narration import NUMBER_WORDS, Narrator, names, plural, tally
from domain.vampire_queen.cards import SLAYERS


def vq_set(cards: list[str]) -> str:
    """Vampire Queen cards in words: 'a 6', 'two 13s', 'a 7 and a Queen', 'two Queens'."""
    counts = Counter(cards)
    parts = []
    for code, n in counts.items():
        if code == "Q":
            continue
        if n == 1:
            parts.append(f"{'an' if code in ('8', '11') else 'a'} {code}")
        else:
            parts.append(f"{NUMBER_WORDS.get(n, n)} {code}s")
    queens = counts.get("Q", 0)
    if queens:
        parts.append("a Queen" if queens == 1 else f"{NUMBER_WORDS.get(queens, queens)} Queens")
    return names(parts)


class VampireQueenNarrator(Narrator):
    """Vampire Queen: deals, leads and raises, slayer rounds, round and phase ends."""

    TITLE = "Vampire Queen"
    RULE = "VQ-17"
    UNIT = "minus points"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        self.plays = 0  # plays (not passes) in the round so far
        self.slayer: str | None = None
        self.forced: str | None = None

    def setup_words(self) -> str:
        return plural(self.options.get("phases", 5), "phase")

    def on_PhaseDealt(self, d: dict, _next: dict | None) -> str:
        hands = d.get("hands") or {}
        each = f" {len(next(iter(hands.values())))} cards each;" if hands else ""
        slayers = d["slayers"]
        if slayers["S15"] == slayers["S20"]:
            holders = f"{slayers['S20']} holds both slayers and starts"
        else:
            holders = (f"{slayers['S15']} holds the slayer S15, {slayers['S20']} holds S20 "
                       "and starts")
        rule = "VQ-2" if d["phase"] == 1 else "VQ-3"
        return (f"Phase {d['phase']} of {self.options.get('phases')} is dealt:{each} "
                f"{holders} ({rule}).")

    def after_PhaseDealt(self, d: dict) -> None:
        self.plays, self.slayer, self.forced = 0, None, None

    def on_Played(self, d: dict, _next: dict | None) -> str:
        player, cards = d["player"], d["cards"]
        if self.plays == 0 and cards[0] in SLAYERS:
            return (f"{player} leads the vampire slayer {cards[0]}: a slayer round, where "
                    "every other player must play one vampire card and the highest takes all "
                    "(VQ-9, VQ-10, VQ-11).")
        if self.slayer is not None:
            note = ", where it counts 1" if cards == ["Q"] else ""
            return f"{player} plays {vq_set(cards)} into the slayer round{note} (VQ-10)."
        note, rules = "", ""
        if cards and all(c == "Q" for c in cards):
            note = ", which alone counts 14" if len(cards) == 1 else ", which alone count 14"
            rules = ", VQ-6"
        elif "Q" in cards:
            counting = "the Queen counting" if cards.count("Q") == 1 else "the Queens counting"
            note, rules = f", {counting} {d['value']}", ", VQ-6"
        if self.plays == 0:
            size = "one card" if len(cards) == 1 else f"{NUMBER_WORDS.get(len(cards))} cards"
            return (f"{player} leads {vq_set(cards)}{note}; the others raise with {size} "
                    f"of a higher value or pass (VQ-4, VQ-5{rules}).")
        return f"{player} raises with {vq_set(cards)}{note} (VQ-5{rules})."

    def after_Played(self, d: dict) -> None:
        if self.plays == 0 and d["cards"][0] in SLAYERS:
            self.slayer = d["cards"][0]
        self.plays += 1

    def on_Passed(self, d: dict, _next: dict | None) -> str:
        if d.get("forced"):
            return (f"{d['player']} holds only the other slayer and must pass; "
                    f"{d['player']} will take the round's cards (VQ-12).")
        return f"{d['player']} passes (VQ-5)."

    def after_Passed(self, d: dict) -> None:
        if d.get("forced"):
            self.forced = d["player"]

    def on_Skipped(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']} has no cards left and is skipped (VQ-8)."

    def on_RoundEnded(self, d: dict, _next: dict | None) -> str:
        taker, cards, start = d.get("taker"), d["cards"], d["start"]
        count = plural(len(cards), "card")
        if taker is None:
            out = "the card played is" if len(cards) == 1 else f"the {count} played are"
            return (f"Round {d['round']} ends: {start} played the highest set and starts the "
                    f"next round; {out} out for this phase (VQ-7).")
        if taker == self.forced:
            return (f"Round {d['round']} ends: {taker}, who had to pass, takes all {count}, "
                    f"the slayer {self.slayer} included, and starts the next round (VQ-12).")
        return (f"The slayer round ends: {taker} played the highest card and takes all {count}, "
                f"the slayer {self.slayer} included, and starts the next round (VQ-11); "
                f"{taker} may not lead {self.slayer} straight away (VQ-14).")

    def after_RoundEnded(self, d: dict) -> None:
        self.plays, self.slayer, self.forced = 0, None, None

    def on_PhaseScored(self, d: dict, _next: dict | None) -> str:
        text = (f"Phase {d['phase']} ends with an empty hand (VQ-15); minus points for the "
                f"cards left in hand: {tally(d['minus'])} (VQ-16)")
        return f"{text}. Totals: {tally(d['scores'])}." if d["phase"] > 1 else f"{text}."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        return self.ending(d, "The game is over; the fewest minus points win")
