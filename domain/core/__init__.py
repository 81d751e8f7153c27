"""The shared core of every game: errors, seeded dealing, the chain, visibility, the base."""

from domain.core.chain import (
    canonical,
    clone,
    event_data,
    event_hash,
    event_record,
    record_hash,
)
from domain.core.dealing import SeededStream, seed_commitment, shuffled
from domain.core.errors import (
    Aborted,
    BadCommand,
    BadSetup,
    GameError,
    GameFinished,
    NotYourTurn,
    OutOfTime,
    Refusal,
)
from domain.core.game import Game
from domain.core.replay import Replay
from domain.core.specs import Command, Metric, Option, Param, Sample
from domain.core.visibility import ACTOR, HOST, HOST_ONLY, PER_PLAYER, SPECTATOR, Viewer

__all__ = [
    "Aborted", "ACTOR", "HOST", "HOST_ONLY", "PER_PLAYER", "SPECTATOR", "BadCommand", "BadSetup", "Command",
    "Game", "GameError", "GameFinished", "Metric", "NotYourTurn", "Option", "OutOfTime", "Param", "Refusal",
    "Replay",
    "Sample",
    "SeededStream", "Viewer", "canonical", "clone", "event_data",
    "event_hash", "event_record", "record_hash", "seed_commitment", "shuffled",
]
