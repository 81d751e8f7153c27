"""Golden replays: one recorded replay document per game, written once and never rewritten.

    .venv/bin/python -m tests.replays.golden.regenerate    # writes the golden file of a new game

Each game is played by a seeded random player through the pure domain with a fixed clock, and
signed with the test-only key beside this file (never a server's key). A golden file, once
written, is the proof that documents of its day still verify: this script writes only the games
that have none yet. When the rules or an event's shape change, the tests say so; an event's new
shape comes with its upcaster and its way back (docs/format.md, "Event shapes"), never with a
new golden file.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from domain import available_games, game_class
from domain.core import event_record, recorded_timestamps
from replays.document import build_document
from service.audit.signing import SigningKey

HERE = Path(__file__).parent
PLAYERS = {"vampire-queen": ["Ann", "Ben", "Cy", "Dee"], "voodoo-prince": ["Ann", "Ben", "Cy"],
           "vampir": ["Ann", "Ben", "Cy"], "vampiring": ["Ann", "Ben", "Cy"]}
OPTIONS = {"vampire-queen": {"phases": 2}, "voodoo-prince": {"rounds": 2},
           "vampir": {"rounds": 1}, "vampiring": {"max_turns": 40}}
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def clock():
    """One second per event from a fixed epoch."""
    step = 0
    while True:
        yield EPOCH + timedelta(seconds=step)
        step += 1


def golden_document(key: str) -> dict:
    """The golden replay of one game, played afresh by today's rules."""
    rng = random.Random(f"golden/{key}")
    cls = game_class(key)
    with recorded_timestamps(clock()):
        game = cls.start(PLAYERS[key], seed=f"golden/{key}", options=OPTIONS[key])
        while not game.finished:
            player = rng.choice(game.to_act)
            game.execute(player, rng.choice(game.legal_moves(player)))
    records = [event_record(e) for e in game.collect_events()]
    signer = SigningKey.load_or_create(HERE)
    return build_document(game, records, signer.sign, signer.public_pem)


def path_of(key: str) -> Path:
    return HERE / f"{key}.json"


def main() -> None:
    for key in available_games():
        if path_of(key).exists():
            print(f"kept {path_of(key)}: a golden file is never rewritten")
            continue
        document = golden_document(key)
        path_of(key).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote {path_of(key)}: {len(document['events'])} events")


if __name__ == "__main__":
    main()
