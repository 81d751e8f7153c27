"""Games played with clocks and seats handed over export and verify; a clock run out early does
not (replays/document.py, domain/core/clocks.py)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from domain import available_games, game_class
from domain.core import Game, Replay, event_record
from domain.core.chain import BOT, SEAT
from domain.core.clocks import deadline, late
from replays.document import build_document, verify
from service.audit.signing import SigningKey, check_signature
from tests.kit import SHORT_OPTIONS, HandClock, seats
from tests.replays.test_document import codes, rechain, resign

CLOCK = {"bank": 30, "increment": 2}


def play_in_time(game: Game, hand: HandClock, rng: random.Random, player: str) -> None:
    """Play `game` to its end at random, as the server would (CL-1): a seat whose deadline
    passed gets its ClockExpired and the bot's move, never a move of its own."""
    while not game.finished:
        hand.after(rng.random() * 4)
        mover = player if player in game.expired else rng.choice(game.to_act)
        if mover not in game.expired and late(game, mover, hand.now, SEAT) is not None:
            game.expire_clock(mover, hand.now)
        by = BOT if mover in game.expired else SEAT
        game.execute(mover, rng.choice(game.legal_moves(mover)), by=by)


@pytest.fixture
def key(tmp_path):
    return SigningKey.load_or_create(tmp_path)


def played_with_clock(key_name: str, seed: int) -> tuple[list[dict], int, Game]:
    """A game with a clock, played to its end: its first seat handed to a bot and back, one
    clock run out at its deadline and the bot's move after it. Answers the records, the version of
    the ClockExpired and the game."""
    hand, rng = HandClock(), random.Random(seed)
    game = game_class(key_name).start(seats(key_name), seed=seed,
                                      options=SHORT_OPTIONS[key_name], salt="cd" * 32,
                                      clock=CLOCK, replay=Replay(timestamps=hand.stamps()))
    game.hand_seat(game.players[0], "heuristic")
    hand.after(3)
    game.hand_seat(game.players[0], None)
    player = game.to_act[0]
    hand.now = deadline(game, player)
    game.expire_clock(player, hand.now)
    expired_at = game.version
    play_in_time(game, hand, rng, player)
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



def played_waiting(key_name: str, seed: int, started_by: str) -> tuple[list[dict], Game]:
    """A game whose clocks wait for the table (`"start": "ready"`), started by `started_by`
    ("host", "present": ClocksStarted on its own; "move": a person's first move), then one
    clock run out at its deadline and the game played to its end."""
    hand, rng = HandClock(), random.Random(seed)
    game = game_class(key_name).start(seats(key_name), seed=seed,
                                      options=SHORT_OPTIONS[key_name], salt="cd" * 32,
                                      clock={**CLOCK, "start": "ready"}, replay=Replay(timestamps=hand.stamps()))
    hand.after(600)  # nobody's bank runs meanwhile
    if started_by == "move":
        mover = game.to_act[0]
        game.execute(mover, game.legal_moves(mover)[0])
    else:
        game.start_clocks(started_by)
    player = game.to_act[0]
    hand.now = deadline(game, player)
    game.expire_clock(player, hand.now)
    play_in_time(game, hand, rng, player)
    return [event_record(e) for e in game.collect_events()], game


@pytest.mark.parametrize("started_by", ["move", "present", "host"])
@pytest.mark.parametrize("key_name", available_games())
def test_clocks_started_when_the_table_was_ready_verify(key, key_name, started_by):
    records, game = played_waiting(key_name, 5, started_by)
    doc = build_document(game, records, key.sign, key.public_pem)
    verdict = verify(doc, trusted_keys=[key.public_pem], check_signature=check_signature)
    assert verdict.valid, verdict.problems
    started = [r for r in doc["events"] if r["type"] == "ClocksStarted"]
    assert [r["data"]["reason"] for r in started] == [started_by]


def test_a_clock_run_out_before_the_clocks_started_is_named(key):
    records, game = played_waiting("vampir", 6, "host")
    doc = build_document(game, records, key.sign, key.public_pem)
    # Fail to pass off a record whose ClocksStarted was removed: the ClockExpired after it
    # names a clock that never ran (re-chained and signed again by the forger).
    at = next(i for i, r in enumerate(doc["events"]) if r["type"] == "ClocksStarted")
    del doc["events"][at]
    for version, record in enumerate(doc["events"], start=1):
        record["version"] = version
    verdict = verify(resign(rechain(doc), key), trusted_keys=[key.public_pem],
                     check_signature=check_signature)
    assert not verdict.valid
    assert verdict.problems[0]["version"] == at + 1
    assert "not running" in verdict.problems[0]["message"]


@pytest.mark.parametrize("key_name", available_games())
def test_a_move_stored_after_its_seats_deadline_is_named(key, key_name):
    # CL-1: a seat's move that came after its deadline was refused (the clock's move stored
    # instead), so a record of one, though chained and signed as the server would, fails.
    hand = HandClock()
    # The record's times, as a forger would write them.
    game = game_class(key_name).start(seats(key_name), seed=7, options=SHORT_OPTIONS[key_name],
                                      salt="cd" * 32,
                                      clock={"bank": 1, "increment": 0, "start": "ready"},
                                      replay=Replay(timestamps=hand.stamps()))
    game.start_clocks("host")
    mover = game.to_act[0]
    hand.now = deadline(game, mover) + timedelta(seconds=2.5)
    late_at = game.version + 1
    game.execute(mover, game.legal_moves(mover)[0])
    doc = build_document(game, [event_record(e) for e in game.collect_events()], key.sign,
                         key.public_pem)
    verdict = verify(doc, trusted_keys=[key.public_pem], check_signature=check_signature)
    assert codes(verdict) == {"clock_late"}
    assert verdict.problems[0]["version"] == late_at
    assert "CL-1" in verdict.problems[0]["message"]


def test_a_move_stored_at_its_deadline_is_in_time(key):
    hand = HandClock()
    game = game_class("vampir").start(seats("vampir"), seed=7, options=SHORT_OPTIONS["vampir"],
                                      salt="cd" * 32, clock={"bank": 1, "increment": 0},
                                      replay=Replay(timestamps=hand.stamps()))
    mover = game.to_act[0]
    hand.now = deadline(game, mover)  # its last instant: 0 s left, not yet out
    game.execute(mover, game.legal_moves(mover)[0])
    doc = build_document(game, [event_record(e) for e in game.collect_events()], key.sign,
                         key.public_pem)
    verdict = verify(doc, trusted_keys=[key.public_pem], check_signature=check_signature)
    assert verdict.valid, verdict.problems
