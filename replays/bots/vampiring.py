"""A heuristic VampiRing bot: try each of its four moves against likely answers, keep the safest."""

from __future__ import annotations

import itertools
import random
from typing import Any

from domain.vampiring.rules import resolve
from replays.bots import Move, Seat

MOVES = [(m, d) for m in ("a", "b") for d in ("ccw", "cw")]
SAMPLES = 24  # opponent move combinations tried per own move when there are more than this


class VampiRingBot:
    """Looks one turn ahead from the public ring: its own wounds weigh three times the others'."""

    name = "heuristic"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Any, player: str, moves: list[Move]) -> Move:
        """The move with the least expected own loss against the others' moves (VR-5 .. VR-9)."""
        if len(moves) == 1:
            return moves[0]
        table = Seat(game, player).public
        families = table["vampires"]
        others = [p for p in families if p != player]
        answers = list(itertools.product(MOVES, repeat=len(others)))
        if len(answers) > SAMPLES:
            answers = self.rng.sample(answers, SAMPLES)
        homes = table["homes"]
        haunted = {homes[p]: p for p in table["eliminated"]}  # VR-8
        blood = table["blood"]

        def cost(mine: tuple[str, str]) -> float:
            total = 0.0
            for answer in answers:
                chosen = {player: mine, **dict(zip(others, answer, strict=True))}
                plan = {p: {"metamorphosis": m, "direction": d} for p, (m, d) in chosen.items()}
                lost = resolve(table["ring"], homes, families, plan, blood, haunted,
                               table["variant"])["lost"]
                total += 3 * lost[player] - sum(lost[p] for p in others)
            return total

        costs = {mine: cost(mine) for mine in MOVES}
        m, d = min(MOVES, key=costs.__getitem__)
        wanted = {"type": "move", "metamorphosis": m, "direction": d}
        return wanted if wanted in moves else moves[0]


HEURISTIC = VampiRingBot
