"""The clock runner (service/runners/clock_runner.py): real runner threads and processes on a real SQLite store.

A seat whose clock runs out has its move made by the server's heuristic bot, recorded as
`ClockExpired` (by clock) and the move (by bot), never before its deadline; every game played
with clocks and seats handed over exports and verifies; a runner killed mid-game is replaced
by its standby, which meets every deadline that passed meanwhile.
"""

from __future__ import annotations

import random
import signal
from datetime import datetime
from pathlib import Path
from uuid import UUID

import pytest

from domain import available_games, game_class
from domain.core import HOST, BadCommand, Refusal, Viewer
from domain.core.clocks import deadline
from replays.document import build_document, verify
from service import Games
from service.audit.signing import SigningKey, check_signature
from service.errors import Conflict
from tests.kit import SHORT_OPTIONS, seats, start_gruft, stop, wait_until

QUICK = {"bank": 1, "increment": 0}  # each seat's first move after 1 s, every later one at once


def check_exports(games: Games, game_id: UUID, folder: Path) -> list[dict]:
    """The game's replay document verifies; its records are answered."""
    key = SigningKey.load_or_create(folder)
    game = games.game(game_id)
    records = games.reads.records(game_id)
    verdict = verify(build_document(game, records, key.sign, key.public_pem),
                     trusted_keys=[key.public_pem], check_signature=check_signature)
    assert verdict.valid, verdict.problems
    return records


def check_never_early(key: str, game_id: UUID, records: list[dict]) -> int:
    """Every ClockExpired is stored at or after its seat's deadline (replayed from the stored
    events), and followed by that seat's move by the bot; answers how many there are."""
    cls = game_class(key)
    found = 0
    for index, record in enumerate(records):
        if record["type"] != "ClockExpired":
            continue
        before = cls.replayed(game_id, records[:index])
        player = record["data"]["player"]
        assert datetime.fromisoformat(record["timestamp"]) >= deadline(before, player)
        assert record["by"] == "clock"
        move = records[index + 1]
        assert (move["by"], move["data"].get("player")) == ("bot", player)
        found += 1
    return found


@pytest.mark.parametrize("key", available_games())
def test_seats_out_of_time_are_played_and_every_game_verifies(open_workers, key, tmp_path):
    worker = open_workers()
    games = worker.games
    rng = random.Random(key)
    game_id = games.create_game(key, seats(key), seed=11, options=SHORT_OPTIONS[key],
                                clock=QUICK).game_id
    games.start_clocks(game_id, HOST)  # they wait for the table: started at once here
    worker.bot_runner(), worker.clock_runner()
    handed = 0
    # One read a turn: between two, a bot or the clock may end the game (nobody to act then).
    while not (game := games.game(game_id)).finished:
        choice = rng.random()
        try:
            if choice < 0.3:  # a person moves in time
                player = rng.choice(game.to_act)
                games.command(game_id, Viewer(player=player),
                              rng.choice(game.legal_moves(player)))
            elif choice < 0.5:  # the host hands a seat to a bot, or takes it back
                player = rng.choice(game.players)
                games.hand_seat(game_id, HOST, player,
                                None if game.bot_kind(player) else rng.choice(["random",
                                                                               "heuristic"]))
                handed += 1
            else:  # nobody moves: wait for the clock (or a bot) to
                wait_until(lambda v=game.version: games.game(game_id).version > v,
                           "a clock or a bot to move")
        except (Refusal, BadCommand, Conflict):
            pass  # a bot or the clock moved first: look again
    records = check_exports(games, game_id, tmp_path)
    # Check clocks ran out (each seat's first did, after a second), never early.
    assert check_never_early(key, game_id, records) >= 1
    assert sum(r["type"] == "SeatHanded" for r in records) == handed


def test_a_clock_never_runs_out_for_a_seat_that_moved_in_time(open_workers, tmp_path):
    worker = open_workers()
    games = worker.games
    game_id = games.create_game("vampir", seats("vampir"), seed=3,
                                options=SHORT_OPTIONS["vampir"],
                                clock={"bank": 3600, "increment": 0}).game_id
    runner = worker.clock_runner().runner
    wait_until(lambda: game_id in runner.active, "the runner to note the game")
    # Check a whole game played at once by its seats records no ClockExpired.
    while not (game := games.game(game_id)).finished:
        player = game.to_act[0]
        games.command(game_id, Viewer(player=player), game.legal_moves(player)[0])
    records = check_exports(games, game_id, tmp_path)
    assert not any(r["type"] == "ClockExpired" for r in records)
    assert runner.expired == 0


def test_a_clock_runner_killed_mid_game_is_replaced_by_its_standby(open_workers, sqlite_env,
                                                                   tmp_path):
    # Ann never moves; her clock runs out every second (1 s each move), the bots answer her.
    worker = open_workers()
    games = worker.games
    names = seats("vampir")
    game_id = games.create_game("vampir", names, seed=4, options=SHORT_OPTIONS["vampir"],
                                bots={n: "heuristic" for n in names[1:]},
                                clock={"bank": 1, "increment": 1}).game_id
    games.start_clocks(game_id, HOST)  # they wait for the table: started at once here
    log = tmp_path / "bots.log"
    first = start_gruft(["bots", "--delay", "0"], sqlite_env, log)
    standby = None

    def expired() -> int:
        return sum(r["type"] == "ClockExpired" for r in games.reads.records(game_id))

    try:
        wait_until(lambda: expired() >= 1, "the first runner to expire Ann's clock")
        standby = start_gruft(["bots", "--delay", "0"], sqlite_env, log)  # waits for the locks
        first.send_signal(signal.SIGKILL)  # no chance to finish or let go of the locks
        first.wait(20)
        killed_at = expired()
        assert not games.game(game_id).finished, log.read_text()
        # Check the standby takes both locks and plays the game to its end from the store.
        wait_until(lambda: games.game(game_id).finished, "the standby to finish the game")
        assert expired() > killed_at
    finally:
        stop(first, signal.SIGTERM)
        if standby is not None:
            stop(standby, signal.SIGTERM)
        print(log.read_text())
    records = check_exports(games, game_id, tmp_path)
    assert check_never_early("vampir", game_id, records) == expired()


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_two_clock_runners_on_one_store_expire_each_clock_once(open_workers, store, request,
                                                                tmp_path):
    env = request.getfixturevalue(f"{store}_env")
    owners = [open_workers(env), open_workers(env)]
    workers = [owner.games for owner in owners]
    ids = [workers[0].create_game("vampiring", seats("vampiring"), seed=s,
                                  options=SHORT_OPTIONS["vampiring"],
                                  clock={"bank": 1, "increment": 3600}).game_id
           for s in (1, 2)]
    for game_id in ids:  # they wait for the table: started at once here
        owners[0].games.start_clocks(game_id, HOST)
    runners = [owner.clock_runner().runner for owner in owners]  # both try the lock
    # Nobody moves: every seat's clock runs out once (an hour's increment after it).
    seated = len(seats("vampiring"))

    def expired() -> int:
        return sum(r["type"] == "ClockExpired" for g in ids
                   for r in workers[1].reads.records(g))

    wait_until(lambda: expired() == seated * len(ids), "every seat's clock to run out")
    # Check one runner stored them all, the other none (it waited for the lock), never early.
    wait_until(lambda: sum(r.expired for r in runners) == expired(), "the runners' counts")
    assert sorted(r.expired for r in runners) == [0, expired()]
    for game_id in ids:
        check_never_early("vampiring", game_id, workers[0].reads.records(game_id))


def test_the_runner_never_runs_out_a_clock_that_waits_for_the_table(open_workers, tmp_path):
    worker = open_workers()
    games = worker.games
    game_id = games.create_game("vampir", seats("vampir"), seed=5,
                                options=SHORT_OPTIONS["vampir"], clock=QUICK).game_id
    runner = worker.clock_runner().runner
    # Check the runner looked at the game and scheduled nothing: no clock has started.
    wait_until(lambda: game_id in runner.active and game_id not in runner._due,
               "the runner to look at the game")
    game = games.game(game_id)
    assert all(deadline(game, p) is None for p in game.players)
    assert runner.expired == 0
    # Check the host's start wakes it: the awaited seat's second runs out, never early.
    games.start_clocks(game_id, HOST)
    wait_until(lambda: runner.expired >= 1, "the started clock to run out")
    records = check_exports(games, game_id, tmp_path)
    assert check_never_early("vampir", game_id, records) >= 1
