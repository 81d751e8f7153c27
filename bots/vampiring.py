"""A heuristic VampiRing bot: try each of its four moves against likely answers, keep the safest."""

from __future__ import annotations

import itertools

from bots.base import HeuristicBot, Move, Seat
from domain.vampiring import GAME
from domain.vampiring.game import MOVES
from domain.vampiring.rules import resolve

# Own drops weigh more than the others' (the last family standing wins), but not so much that
# a table of these bots only ever runs from each other.
OWN_WEIGHT = 1.5
SAMPLES = 24  # opponent move combinations tried per own move when there are more than this


class VampiRingBot(HeuristicBot):
    """Looks one turn ahead from the public ring, weighing its own wounds above the others'."""

    GAME = GAME

    def decide(self, seat: Seat, moves: list[Move]) -> Move:
        """The move with the least expected own loss against the others' moves (VR-5 .. VR-9)."""
        m, d = self.rng.choice(self.alike(self.costs(seat)))
        wanted = {"type": "move", "metamorphosis": m, "direction": d}
        return wanted if wanted in moves else moves[0]

    @staticmethod
    def alike(costs: dict[tuple[str, str], float]) -> list[tuple[str, str]]:
        """The moves rated best, alike. Choosing among them at random keeps a table of these
        bots from circling forever, and, the source being secret (service.runners.bot_runner), keeps an observer
        who knows this strategy from doing better than it allows (issue 23)."""
        low = min(costs.values())
        return [mine for mine in MOVES if costs[mine] <= low + 1e-9]  # sums of the same terms

    def costs(self, seat: Seat) -> dict[tuple[str, str], float]:
        """Each own move's expected loss against the others' likely moves (a sample past
        SAMPLES of them)."""
        player = seat.player
        table = seat.public
        variant = seat.options.get("variant", "castle")
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
                               variant)["lost"]
                total += OWN_WEIGHT * lost[player] - sum(lost[p] for p in others)
            return total

        return {mine: cost(mine) for mine in MOVES}


HEURISTIC = VampiRingBot
