"""VampiRing in plain words, with the rulings each event applies."""

from __future__ import annotations

from typing import Any

from domain.core.narration import Narrator, names, plural, tally
from domain.vampiring.rules import BLOOD, home_owner, home_positions, resolve

VR_SHAPES = {"M": "Man", "W": "Wolf", "B": "Bat"}
VR_CHANGES = {"a": "Man→Wolf→Bat→Man", "b": "Man→Bat→Wolf→Man"}
VR_DIRECTIONS = {"cw": "clockwise", "ccw": "counter-clockwise"}
VR_EFFECTS = {"garlic": "wounds count double", "mirror": "every relation reversed",
              "tower": "Men are safe", "forest": "Wolves are safe", "cave": "Bats are safe"}


def vr_card(card: str) -> str:
    """A ring card in words: 'the tower', "Ann's Home"."""
    owner = home_owner(card)
    return f"{owner}'s Home" if owner is not None else f"the {card}"


class VampiRingNarrator(Narrator):
    """VampiRing: the ring, secret moves, each turn's fights, hauntings and eliminations."""

    TITLE = "VampiRing"
    RULE = "VR-10, VR-11"

    def setup_words(self) -> str:
        words = f"{self.options.get('variant', 'castle')} variant"
        if self.options.get("max_turns"):
            words += f", at most {plural(self.options['max_turns'], 'turn')}"
        return words

    def on_RingLaid(self, d: dict, _next: dict | None) -> str:
        return (f"The ring of {len(d['ring'])} cards is laid; every family starts as a Man, a "
                f"Wolf and a Bat on its own Home with {BLOOD} drops of blood (VR-1, VR-2).")

    def on_MoveSubmitted(self, d: dict, _next: dict | None) -> str:
        if "metamorphosis" not in d:
            return f"{d['player']} submits a secret move (VR-4)."
        return (f"{d['player']} secretly chooses metamorphosis {d['metamorphosis']} "
                f"({VR_CHANGES[d['metamorphosis']]}) and {VR_DIRECTIONS[d['direction']]} "
                "(VR-4).")

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
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
            hurt = ", ".join(f"{w['player']}'s {VR_SHAPES[shapes[(w['player'], w['id'])]]} "
                             f"−{w['wounds']}" for w in fight["wounds"])
            effect = VR_EFFECTS.get(fight["card"])
            owner = home_owner(fight["card"])
            if owner is not None and self.options.get("variant") == "castle":
                effect = f"{owner}'s family is safe at home"
            where = vr_card(fight["card"]) + (f" ({effect}, VR-7)" if effect else "")
            parts.append(f"a fight on {where}: {hurt or 'nobody is hurt'} (VR-6)")
        for haunt in d["haunted"]:
            parts.append(f"{haunt['player']}'s vampire is haunted on {haunt['home']}'s Home (VR-8)")
        text = f"Turn {d['turn']} resolves (VR-5): " + ("; ".join(parts) or "no fight")
        lost = {p: n for p, n in d["lost"].items() if n}
        text += f". Blood lost: {tally(lost)} (VR-9)" if lost else ". No blood is lost"
        if d["eliminated"]:
            text += f"; {names(d['eliminated'])} eliminated (VR-9)"
        return text + "."

    def on_GameEnded(self, d: dict, _next: dict | None) -> str:
        if d.get("reason") == "max_turns":
            return self.ending(d, "The turn limit is reached (VR-12)")
        if d.get("reason") == "no_family":
            return self.ending(d, "No family is left")
        return self.ending(d, "One family is left")
