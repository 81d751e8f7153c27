"""Where each phase, round, trick or turn begins (domain.core.landmarks), on played games."""

from __future__ import annotations

import random

import pytest

from bots import make_bot
from domain import GAMES
from domain.core import event_record
from domain.core.landmarks import starts
from service.runners.simulate import play_game

PLAYERS = ["Ann", "Ben", "Cy"]


def played(key: str, seed: int, options: dict) -> list[dict]:
    cls = GAMES[key]
    bots = {p: make_bot("heuristic", key, random.Random(seed)) for p in PLAYERS}
    game, _ = play_game(cls, PLAYERS, bots, seed=seed, options=options, keep_events=True)
    return [event_record(e) for e in game.collect_events()]


def at(records: list[dict], version: int) -> dict:
    return records[version - 1]


@pytest.mark.parametrize("seed", [1, 2])
def test_voodoo_prince_rounds_and_tricks(seed):
    records = played("voodoo-prince", seed, {"rounds": 2})
    marks = starts(GAMES["voodoo-prince"], records)
    versions = [m["version"] for m in marks]
    assert versions == sorted(versions)
    rounds = [m for m in marks if m["unit"] == "round"]
    assert [m["label"] for m in rounds] == ["Round 1", "Round 2"]
    assert all(at(records, m["version"])["type"] == "RoundDealt" for m in rounds)
    for number in (1, 2):
        tricks = [m for m in marks if m["label"].startswith(f"Round {number} · trick")]
        assert [m["label"] for m in tricks] == [f"Round {number} · trick {k}"
                                                for k in range(1, len(tricks) + 1)]
        # VP-6: each trick begins with a card played and ends when it is won
        for m in tricks:
            assert at(records, m["version"])["type"] == "CardPlayed"
            before = [r["type"] for r in records[:m["version"] - 1]]
            last = max(i for i, t in enumerate(before) if t in ("RoundDealt", "TrickWon", "TrumpChosen"))
            assert "CardPlayed" not in before[last + 1:]
        dealt = next(m["version"] for m in rounds if m["label"] == f"Round {number}")
        end = next((m["version"] for m in rounds if m["version"] > dealt), len(records) + 1)
        won = sum(r["type"] == "TrickWon" for r in records[dealt - 1:end - 1])
        assert len(tricks) in (won, won + 1)  # a round may end mid-trick (VP's finish)
    assert [m["depth"] for m in marks if m["unit"] == "trick"] == [1] * len(
        [m for m in marks if m["unit"] == "trick"])


def test_vampire_queen_phases_and_rounds():
    records = played("vampire-queen", 3, {"phases": 2})
    marks = starts(GAMES["vampire-queen"], records)
    phases = [m for m in marks if m["unit"] == "phase"]
    assert [m["label"] for m in phases] == ["Phase 1", "Phase 2"]
    assert all(at(records, m["version"])["type"] == "PhaseDealt" for m in phases)
    second = [m for m in marks if m["label"].startswith("Phase 2 · round")]
    assert second[0]["label"] == "Phase 2 · round 1" and second[0]["version"] == phases[1]["version"]
    # Every other round begins right after the previous one ended
    for m in second[1:]:
        assert at(records, m["version"] - 1)["type"] == "RoundEnded"


def test_vampiring_turns_and_vampir_rounds():
    records = played("vampiring", 4, GAMES["vampiring"].SHORT_OPTIONS)
    turns = starts(GAMES["vampiring"], records)
    resolved = sum(r["type"] == "TurnResolved" for r in records)
    assert [m["label"] for m in turns] == [f"Turn {k}" for k in range(1, len(turns) + 1)]
    assert len(turns) in (resolved, resolved + 1)
    assert all(at(records, m["version"] - 1)["type"] == "TurnResolved" for m in turns[1:])
    records = played("vampir", 5, {"rounds": 2})
    rounds = starts(GAMES["vampir"], records)
    assert [m["label"] for m in rounds] == ["Round 1", "Round 2"]
    assert all(at(records, m["version"])["type"] == "RoundDealt" for m in rounds)


def test_no_units_no_starts():
    assert starts(GAMES["vampir"], [{"version": 1, "type": "Created", "data": {}}]) == []
