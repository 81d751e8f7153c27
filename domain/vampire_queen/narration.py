"""Vampire Queen in plain words, with the rulings each event applies."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.core.narration import Narrator, tally
from domain.core.words import N_, Term
from domain.vampire_queen.cards import SLAYERS

NUMBER_WORDS = {2: Term(N_("two")), 3: Term(N_("three")), 4: Term(N_("four")),
                5: Term(N_("five")), 6: Term(N_("six")), 7: Term(N_("seven")),
                8: Term(N_("eight")), 9: Term(N_("nine")), 10: Term(N_("ten")),
                11: Term(N_("eleven")), 12: Term(N_("twelve"))}


class VampireQueenNarrator(Narrator):
    """Vampire Queen: deals, leads and raises, slayer rounds, round and phase ends."""

    TITLE = "Vampire Queen"
    RULE = "VQ-17"
    UNIT = N_("minus points")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.plays = 0  # plays (not passes) in the round so far
        self.slayer: str | None = None
        self.forced: str | None = None

    def vq_slayer(self, code: str) -> str:
        """A vampire slayer as the rulebooks and the table's cards name it: 'vampire slayer 15',
        'Vampirjäger 15' (a code the rules do not know is said as it is)."""
        if code not in SLAYERS:
            return code
        return self._("vampire slayer %(value)s", value=code[1:])

    def vq_set(self, cards: list[str]) -> str:
        """Cards in words: 'a 6', 'two 13s', 'a 7 and a Queen', 'two Queens'."""
        counts = Counter(cards)
        parts = []
        for code, n in counts.items():
            if code == "Q":
                continue
            if code in SLAYERS:  # never in a set (VQ-9); said in words all the same
                parts.extend([self.vq_slayer(code)] * n)
                continue
            if n == 1:
                parts.append(self._("an %(card)s", card=code) if code in ("8", "11")
                             else self._("a %(card)s", card=code))
            else:
                parts.append(self._("%(count)s %(card)ss", count=NUMBER_WORDS.get(n, n),
                                    card=code))
        queens = counts.get("Q", 0)
        if queens:
            parts.append(self._("a Queen") if queens == 1 else
                         self._("%(count)s Queens", count=NUMBER_WORDS.get(queens, queens)))
        return self.names(parts)

    def setup_words(self) -> str:
        return self.ngettext("%(n)s phase", "%(n)s phases", self.options.get("phases", 5))

    def on_PhaseDealt(self, d: dict, _next: dict | None) -> str:
        hands = d.get("hands") or {}
        slayers = d["slayers"]
        if slayers["S15"] == slayers["S20"]:
            holders = self._("%(player)s holds both slayers and starts", player=slayers["S20"])
        else:
            holders = self._("%(first)s holds the %(low)s, %(second)s holds the %(high)s and "
                             "starts", first=slayers["S15"], second=slayers["S20"],
                             low=self.vq_slayer("S15"), high=self.vq_slayer("S20"))
        where = {"phase": d["phase"], "phases": self.options.get("phases"), "holders": holders,
                 "rule": "VQ-2" if d["phase"] == 1 else "VQ-3"}
        if hands:
            return self._("Phase %(phase)s of %(phases)s is dealt: %(each)s cards each; "
                          "%(holders)s (%(rule)s).", each=len(next(iter(hands.values()))),
                          **where)
        return self._("Phase %(phase)s of %(phases)s is dealt: %(holders)s (%(rule)s).", **where)

    def after_PhaseDealt(self, d: dict) -> None:
        self.plays, self.slayer, self.forced = 0, None, None

    def on_Played(self, d: dict, _next: dict | None) -> str:
        player, cards = d["player"], d["cards"]
        if self.plays == 0 and cards[0] in SLAYERS:
            return self._("%(player)s leads the %(card)s: a slayer round, where every other "
                          "player must play one vampire card and the highest takes all (VQ-9, "
                          "VQ-10, VQ-11).", player=player, card=self.vq_slayer(cards[0]))
        if self.slayer is not None:
            if cards == ["Q"]:
                return self._("%(player)s plays %(cards)s into the slayer round, where it "
                              "counts 1 (VQ-10).", player=player, cards=self.vq_set(cards))
            return self._("%(player)s plays %(cards)s into the slayer round (VQ-10).",
                          player=player, cards=self.vq_set(cards))
        note, rules = "", ""
        if cards and all(c == "Q" for c in cards):
            note = (self._(", which alone counts 14") if len(cards) == 1
                    else self._(", which alone count 14"))
            rules = ", VQ-6"
        elif "Q" in cards:
            note = (self._(", the Queen counting %(value)s", value=d["value"])
                    if cards.count("Q") == 1
                    else self._(", the Queens counting %(value)s", value=d["value"]))
            rules = ", VQ-6"
        if self.plays == 0:
            size = (self._("one card") if len(cards) == 1 else
                    self._("%(count)s cards", count=NUMBER_WORDS.get(len(cards), len(cards))))
            return self._("%(player)s leads %(cards)s%(note)s; the others raise with %(size)s "
                          "of a higher value or pass (VQ-4, VQ-5%(rules)s).", player=player,
                          cards=self.vq_set(cards), note=note, size=size, rules=rules)
        return self._("%(player)s raises with %(cards)s%(note)s (VQ-5%(rules)s).",
                      player=player, cards=self.vq_set(cards), note=note, rules=rules)

    def after_Played(self, d: dict) -> None:
        if self.plays == 0 and d["cards"][0] in SLAYERS:
            self.slayer = d["cards"][0]
        self.plays += 1

    def on_Passed(self, d: dict, _next: dict | None) -> str:
        if d.get("forced"):
            return self._("%(player)s holds only the other slayer and must pass; %(player)s "
                          "will take the round's cards (VQ-12).", player=d["player"])
        return self._("%(player)s passes (VQ-5).", player=d["player"])

    def after_Passed(self, d: dict) -> None:
        if d.get("forced"):
            self.forced = d["player"]

    def on_Skipped(self, d: dict, _next: dict | None) -> str:
        return self._("%(player)s has no cards left and is skipped (VQ-8).", player=d["player"])

    def on_RoundEnded(self, d: dict, _next: dict | None) -> str:
        taker, cards, start = d.get("taker"), d["cards"], d["start"]
        slayer = self.vq_slayer(self.slayer) if self.slayer else self.slayer
        if taker is None:
            return self.ngettext(
                "Round %(round)s ends: %(start)s played the highest set and starts the next "
                "round; the card played is out for this phase (VQ-7).",
                "Round %(round)s ends: %(start)s played the highest set and starts the next "
                "round; the %(n)s cards played are out for this phase (VQ-7).",
                len(cards), round=d["round"], start=start)
        if taker == self.forced:
            return self.ngettext(
                "Round %(round)s ends: %(taker)s, who had to pass, takes all %(n)s card, the "
                "%(slayer)s included, and starts the next round (VQ-12).",
                "Round %(round)s ends: %(taker)s, who had to pass, takes all %(n)s cards, the "
                "%(slayer)s included, and starts the next round (VQ-12).",
                len(cards), taker=taker, round=d["round"], slayer=slayer)
        return self.ngettext(
            "The slayer round ends: %(taker)s played the highest card and takes all %(n)s card, "
            "the %(slayer)s included, and starts the next round (VQ-11); %(taker)s may not lead "
            "the %(slayer)s straight away (VQ-14).",
            "The slayer round ends: %(taker)s played the highest card and takes all %(n)s "
            "cards, the %(slayer)s included, and starts the next round (VQ-11); %(taker)s may "
            "not lead the %(slayer)s straight away (VQ-14).",
            len(cards), taker=taker, slayer=slayer)

    def after_RoundEnded(self, d: dict) -> None:
        self.plays, self.slayer, self.forced = 0, None, None

    def on_PhaseScored(self, d: dict, _next: dict | None) -> str:
        text = self._("Phase %(phase)s ends with an empty hand (VQ-15); minus points for the "
                      "cards left in hand: %(minus)s (VQ-16)", phase=d["phase"],
                      minus=tally(d["minus"]))
        if d["phase"] > 1:
            return text + ". " + self._("Totals: %(scores)s.", scores=tally(d["scores"]))
        return text + "."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        return self.ending(d, self._("The game is over; the fewest minus points win"))
