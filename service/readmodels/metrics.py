"""What the statistics count per game kind: score direction and the per-game averages.

The index and the basic statistics read only the generic fields every game has (`players`,
`finished`, `scores`, `winners`). The per-game averages need a game's own events; each is a
small function of one event (its type name and data) and the game right after that event.
A game with no entry here still gets `played`, `won` and `average_score`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain import game_class

# (player, metric, value): one sample; a metric's average is the mean of its samples.
Sample = tuple[str, str, float]
Sampler = Callable[[dict[str, Any], Any], list[Sample]]

@dataclass(frozen=True)
class Metric:
    """A per-game average: its name in the stats answer and what one sample is."""

    name: str
    description: str


METRICS: dict[str, tuple[Metric, ...]] = {
    "vampire-queen": (
        Metric("minus_points_per_phase", "minus points scored in a phase (VQ-16), per phase"),
    ),
    "voodoo-prince": (
        Metric("finishing_position", "place in which the player went out of a round "
                                     "(1 = first out, last = never finished; VP-10, VP-11)"),
        Metric("points_per_round", "points scored in a round"),
    ),
    "vampir": (
        Metric("points_per_round", "points scored in a round (VA-9 .. VA-11)"),
    ),
    "vampiring": (
        Metric("turns_survived", "turns the player's family lasted (VR-9), per game"),
    ),
}


def score_sign(game: str) -> int:
    """+1 where a higher average score ranks higher, -1 where a lower one does (the game says
    whether the fewest points win: Vampire Queen's minus points, VQ-17)."""
    return -1 if game_class(game).LOWER_SCORE_WINS else 1


def _vq_phase_scored(data: dict[str, Any], game: Any) -> list[Sample]:
    return [(p, "minus_points_per_phase", float(v)) for p, v in data["minus"].items()]


def _vp_player_finished(data: dict[str, Any], game: Any) -> list[Sample]:
    # The game has already applied the event: the finisher is the last one out so far.
    return [(data["player"], "finishing_position", float(len(game.out)))]


def _vp_round_ended(data: dict[str, Any], game: Any) -> list[Sample]:
    samples = [(data["last"], "finishing_position", float(len(game.players)))]
    round_points = game.past_rounds[-1]
    return samples + [(p, "points_per_round", float(round_points[p])) for p in game.players]


def _vampir_round_scored(data: dict[str, Any], game: Any) -> list[Sample]:
    return [(p, "points_per_round", float(v)) for p, v in data["points"].items()]


def _vampiring_ended(data: dict[str, Any], game: Any) -> list[Sample]:
    return [(p, "turns_survived", float(game.eliminated.get(p, game.turns_played)))
            for p in game.players]


SAMPLERS: dict[tuple[str, str], Sampler] = {
    ("vampire-queen", "PhaseScored"): _vq_phase_scored,
    ("voodoo-prince", "PlayerFinished"): _vp_player_finished,
    ("voodoo-prince", "RoundEnded"): _vp_round_ended,
    ("vampir", "RoundScored"): _vampir_round_scored,
    ("vampiring", "GameEnded"): _vampiring_ended,
}


def samples(game_key: str, event_type: str, data: dict[str, Any], game: Any) -> list[Sample]:
    """The metric samples one event of a game yields (usually none)."""
    sampler = SAMPLERS.get((game_key, event_type))
    return sampler(data, game) if sampler is not None else []
