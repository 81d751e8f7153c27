"""What the statistics count per game kind: score direction and the per-game averages.

The index and the basic statistics read only the generic fields every game has (`players`,
`finished`, `scores`, `winners`). The per-game averages are the games' own: each game declares
its `METRICS` and turns an event it has just applied into samples (`Game.samples`), beside its
rules in domain/<game>/. A game with none still gets `played`, `won` and `average_score`.
"""

from __future__ import annotations

from domain import available_games, game_class
from domain.core import Metric, Sample

__all__ = ["METRICS", "Sample", "score_sign"]

METRICS: dict[str, tuple[Metric, ...]] = {key: game_class(key).METRICS
                                           for key in available_games()}


def score_sign(game: str) -> int:
    """+1 where a higher average score ranks higher, -1 where a lower one does (the game says
    whether the fewest points win: Vampire Queen's minus points, VQ-17)."""
    return -1 if game_class(game).LOWER_SCORE_WINS else 1

