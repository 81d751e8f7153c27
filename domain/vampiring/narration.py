"""VampiRing in plain words, with the rulings each event applies."""

from __future__ import annotations

from typing import Any

from domain.core.narration import Narrator, tally
from domain.core.words import N_, Term
from domain.vampiring.rules import BLOOD, home_owner, home_positions, resolve

VR_SHAPES = {"M": Term(N_("Man")), "W": Term(N_("Wolf")), "B": Term(N_("Bat"))}
VR_CHANGES = {"a": N_("Man→Wolf→Bat→Man"), "b": N_("Man→Bat→Wolf→Man")}
VR_DIRECTIONS = {"cw": N_("clockwise"), "ccw": N_("counter-clockwise")}
VR_EFFECTS = {"garlic": N_("wounds count double"), "mirror": N_("every relation reversed"),
              "tower": N_("Men are safe"), "forest": N_("Wolves are safe"),
              "cave": N_("Bats are safe")}
# The ring's special cards by name, as the play page names them.
VR_CARDS = {"carriage": N_("carriage"), "parchment": N_("parchment"), "tower": N_("tower"),
            "forest": N_("forest"), "cave": N_("cave"), "garlic": N_("garlic"),
            "mirror": N_("mirror"), "graveyard": N_("graveyard"), "cross": N_("cross")}


class VampiRingNarrator(Narrator):
    """VampiRing: the ring, secret moves, each turn's fights, hauntings and eliminations."""

    TITLE = "VampiRing"
    RULE = "VR-10, VR-11"

    def vr_card(self, card: str) -> str:
        """A ring card in words: 'the tower', "Ann's Home"."""
        owner = home_owner(card)
        if owner is not None:
            return self._("%(player)s's Home", player=owner)
        return self._("the %(card)s", card=Term(VR_CARDS.get(card, card)))

    def setup_words(self) -> str:
        variant = self.options.get("variant", "castle")
        if self.options.get("max_turns"):
            return self.ngettext("%(variant)s variant, at most %(n)s turn",
                                 "%(variant)s variant, at most %(n)s turns",
                                 self.options["max_turns"], variant=Term(variant))
        return self._("%(variant)s variant", variant=Term(variant))

    def on_RingLaid(self, d: dict, _next: dict | None) -> str:
        return self._("The ring of %(n)s cards is laid; every family starts as a Man, a Wolf and "
                      "a Bat on its own Home with %(blood)s drops of blood (VR-1, VR-2).",
                      n=len(d["ring"]), blood=BLOOD)

    def on_MoveSubmitted(self, d: dict, _next: dict | None) -> str:
        if "metamorphosis" not in d:
            return self._("%(player)s submits a secret move (VR-4).", player=d["player"])
        return self._("%(player)s secretly chooses metamorphosis %(metamorphosis)s "
                      "(%(changes)s) and %(direction)s (VR-4).", player=d["player"],
                      metamorphosis=d["metamorphosis"],
                      changes=Term(VR_CHANGES[d["metamorphosis"]]),
                      direction=Term(VR_DIRECTIONS[d["direction"]]))

    def __init__(self, players: list[str], options: dict[str, Any], *language: Any) -> None:
        super().__init__(players, options, *language)
        # The table as the events leave it: a TurnResolved of the second shape records the
        # outcome only, and its fights and wounds are found again from the moves (VR-5 .. VR-9).
        self.ring: list[str] = []
        self.families: dict[str, Any] = {}
        self.blood = {p: BLOOD for p in players}
        self.eliminated: dict[str, int] = {}

    def after_RingLaid(self, d: dict) -> None:
        self.ring, self.families = d["ring"], d["families"]

    def after_Forked(self, d: dict) -> None:
        table = d["table"]
        self.ring, self.families = table["ring"], table["families"]
        self.blood, self.eliminated = table["blood"], table["eliminated"]

    def after_TurnResolved(self, d: dict) -> None:
        self.families = {p: fam for p, fam in d["vampires"].items() if p not in d["eliminated"]}
        self.blood = d["blood"]
        self.eliminated = {**self.eliminated, **dict.fromkeys(d["eliminated"], d["turn"])}

    def detail(self, d: dict) -> dict:
        """A TurnResolved's fights, hauntings and drops lost: its own (shape 1), or found from
        the table before it and its moves (shape 2)."""
        if "fights" in d:
            return d
        homes = home_positions(self.ring)
        haunted = {homes[p]: p for p in self.eliminated}
        return {**d, **resolve(self.ring, homes, self.families, d["moves"], self.blood, haunted,
                               self.options.get("variant", "castle"))}

    def on_TurnResolved(self, d: dict, _next: dict | None) -> str:
        d = self.detail(d)
        parts = []
        for fight in d["fights"]:
            shapes = {(v["player"], v["id"]): v["shape"] for v in fight["vampires"]}
            hurt = ", ".join(self._("%(player)s's %(shape)s −%(wounds)s", player=w["player"],
                                    shape=VR_SHAPES[shapes[(w["player"], w["id"])]],
                                    wounds=w["wounds"]) for w in fight["wounds"])
            effect = VR_EFFECTS.get(fight["card"])
            effect = self._(effect) if effect else None
            owner = home_owner(fight["card"])
            if owner is not None and self.options.get("variant") == "castle":
                effect = self._("%(player)s's family is safe at home", player=owner)
            where = self.vr_card(fight["card"]) + (f" ({effect}, VR-7)" if effect else "")
            parts.append(self._("a fight on %(where)s: %(hurt)s (VR-6)", where=where,
                                hurt=hurt or self._("nobody is hurt")))
        for haunt in d["haunted"]:
            parts.append(self._("%(player)s's vampire is haunted on %(home)s's Home (VR-8)",
                                player=haunt["player"], home=haunt["home"]))
        text = self._("Turn %(turn)s resolves (VR-5): %(fights)s", turn=d["turn"],
                      fights="; ".join(parts) or self._("no fight"))
        lost = {p: n for p, n in d["lost"].items() if n}
        text += (self._(". Blood lost: %(lost)s (VR-9)", lost=tally(lost)) if lost
                 else self._(". No blood is lost"))
        if d["eliminated"]:
            text += self._("; %(players)s eliminated (VR-9)", players=self.names(d["eliminated"]))
        return text + "."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        if d.get("reason") == "max_turns":
            return self.ending(d, self._("The turn limit is reached (VR-12)"))
        if d.get("reason") == "no_family":
            return self.ending(d, self._("No family is left"))
        return self.ending(d, self._("One family is left"))
