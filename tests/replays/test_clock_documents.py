"""Games played with clocks and seats handed over export and verify; a clock run out early does
not (replays/document.py, domain/core/clocks.py)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from domain import available_games, game_class
from domain.core import Game, event_record, recorded_timestamps
from domain.core.clocks import deadline
from replays.document import build_document, verify
from service.audit.signing import SigningKey, check_signature
from tests.kit import SHORT_OPTIONS, HandClock, seats
from tests.replays.test_document import codes, rechain, resign

CLOCK = {"bank": 30, "increment": 2}


@pytest.fixture
def key(tmp_path):
    return SigningKey.load_or_create(tmp_path)


def played_with_clock(key_name: str, seed: int) -> tuple[list[dict], int, Game]:
    """A game with a clock, played to its end: its first seat handed to a bot and back, one
    clock run out at its deadline and the bot's move after it. Answers the records, the version of
    the ClockExpired and the game."""
    hand, rng = HandClock(), random.Random(seed)
    with recorded_timestamps(hand.stamps()):
        game = game_class(key_name).start(seats(key_name), seed=seed,
                                          options=SHORT_OPTIONS[key_name], salt="cd" * 32,
                                          clock=CLOCK)
        game.hand_seat(game.players[0], "heuristic")
        hand.after(3)
        game.hand_seat(game.players[0], None)
        player = game.to_act[0]
        hand.now = deadline(game, player)
        game.expire_clock(player, hand.now)
        expired_at = game.version
        while not game.finished:
            hand.after(rng.random() * 4)
            mover = player if player in game.expired else rng.choice(game.to_act)
            game.execute(mover, rng.choice(game.legal_moves(mover)))
    records = [event_record(e) for e in game.collect_events()]
    return records, expired_at, game


@pytest.mark.parametrize("key_name", available_games())
def test_a_game_with_a_clock_and_handovers_exports_and_verifies(key, key_name):
    records, _, game = played_with_clock(key_name, 3)
    doc = build_document(game, records, key.sign, key.public_pem)
    verdict = verify(doc, trusted_keys=[key.public_pem], check_signature=check_signature)
    assert verdict.valid, verdict.problems
    assert {"SeatHanded", "ClockExpired"} <= {r["type"] for r in doc["events"]}


def test_a_clock_recorded_as_run_out_before_its_deadline_is_named(key):
    records, version, game = played_with_clock("voodoo-prince", 4)
    doc = build_document(game, records, key.sign, key.public_pem)
    # Fail to pass off a clock as run out one second before its deadline, though the forger
    # kept the timestamps in order, recomputed the chain and signed the document again.
    record = doc["events"][version - 1]
    second_before = datetime.fromisoformat(record["timestamp"]) - timedelta(seconds=1)
    record["timestamp"] = second_before.isoformat()
    assert record["timestamp"] >= doc["events"][version - 2]["timestamp"]
    verdict = verify(resign(rechain(doc), key), trusted_keys=[key.public_pem],
                     check_signature=check_signature)
    assert codes(verdict) == {"clock_early"}
    assert verdict.problems[0]["version"] == version

