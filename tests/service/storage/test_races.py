"""Many writers racing on one game, on SQLite and on PostgreSQL.

Threads in one process (on one Application and on two sharing the store) and several
processes (spawned, each building its own Application), each command sent with the
expected_version it chose from: every version is won by exactly one command, every other answers
Conflict (409), no event is lost, duplicated or half-written, the hash chain stays intact, and no
loser's work reaches any cache. (Without expected_version a command is never refused for a lost
race: tests/service/storage/test_simultaneous.py.)
"""

from __future__ import annotations

import multiprocessing
import queue
import random
import threading
from typing import Any
from uuid import UUID

import pytest

from domain import available_games
from service import Games
from tests.service.storage.kit import (
    BARRIER_TIMEOUT,
    Gate,
    advance,
    attempt,
    check_log,
    check_won_versions,
    distinct_commands,
    free_for_all,
    fresh,
    gate_commands,
    new_game,
    racer_process,
    run_threads,
    state_of,
)

SPAWN = multiprocessing.get_context("spawn")
RACERS = 4
PROCESSES = 3
EXTRA = 10  # versions a free-for-all adds to each game (bounded time)


def check_one_winner(apps: list[Games], game_id: UUID, version: int,
                     outcomes: list[dict[str, Any]]) -> None:
    """One racer won the version, the others got Conflict; the log and every cache agree."""
    kinds = sorted(o["outcome"] for o in outcomes)
    assert kinds == ["conflict"] * (len(outcomes) - 1) + ["won"], outcomes
    wins = [o for o in outcomes if o["outcome"] == "won"]
    records = check_log(apps[0], game_id)
    check_won_versions(records, wins, first=version)
    assert len(records) == wins[0]["version"]
    for app in apps:
        # Check the cache holds the winner's game, untouched by the losers' executed copies.
        assert state_of(app.game(game_id)) == state_of(fresh(app, game_id))


def check_free_for_all(apps: list[Games], game_ids: list[UUID], first: dict[UUID, int],
                       outcomes: list[dict[str, Any]]) -> None:
    """Every stored version was won once, as answered; every refusal was a Conflict."""
    errors = [o for o in outcomes if o["outcome"] == "error"]
    assert not errors, errors[0]["trace"]
    for game_id in game_ids:
        mine = [o for o in outcomes if o["game_id"] == str(game_id)]
        wins = [o for o in mine if o["outcome"] == "won"]
        assert wins, "no command of the free-for-all was accepted"
        records = check_log(apps[0], game_id)
        check_won_versions(records, wins, first=first[game_id])
        for app in apps:
            assert state_of(app.game(game_id)) == state_of(fresh(app, game_id))


def race_threads(apps: list[Games], gate: Gate, game_id: UUID, commands: list[dict[str, Any]],
                 version: int) -> list[dict[str, Any]]:
    """One thread per command, spread over the Applications, all loading the same version and
    expecting it."""
    gate.barrier = threading.Barrier(len(commands))
    outcomes: list[dict[str, Any]] = []
    run_threads([lambda i=i: outcomes.append(attempt(apps[i % len(apps)], game_id, commands[i],
                                                     expected_version=version))
                 for i in range(len(commands))])
    gate.barrier = None
    return outcomes


def test_threads_race_for_one_version(make_games):
    # Racers split over two Applications on one store: two caches, one store.
    setup = make_games()
    apps = [make_games(), make_games()]
    gate = Gate()
    for app in apps:
        gate_commands(app, gate)
    for n, key in enumerate(available_games()):
        game_id = new_game(setup, key, seed=n)
        advance(setup, game_id, random.Random(n), 3)
        game = setup.game(game_id)
        for app in apps:
            app.game(game_id)  # cached at this version in both
        commands = distinct_commands(game, RACERS)
        # Check every racer loads the same version, then exactly one of them stores it.
        outcomes = race_threads(apps, gate, game_id, commands, game.version)
        check_one_winner([setup, *apps], game_id, game.version, outcomes)
        # Check the game goes on from the winner's version in every Application.
        advance(apps[1], game_id, random.Random(n), 2)
        check_log(apps[0], game_id)
        assert apps[0].game(game_id).version == apps[1].game(game_id).version


def test_threads_free_for_all(make_games):
    apps = [make_games(), make_games()]
    game_ids = [new_game(apps[0], key, seed=n) for n, key in enumerate(available_games())]
    first = {g: apps[0].game(g).version for g in game_ids}
    caps = {str(g): v + EXTRA for g, v in first.items()}
    # Check two threads on each of two Applications, racing with expected_version.
    outcomes: list[dict[str, Any]] = []
    lock = threading.Lock()

    def play(app: Games, seed: int) -> None:
        got = free_for_all(app, caps, threads=2, seed=seed)
        with lock:
            outcomes.extend(got)

    run_threads([lambda: play(apps[0], 1), lambda: play(apps[1], 2)])
    check_free_for_all(apps, game_ids, first, outcomes)


def collect(results: Any, count: int) -> list[Any]:
    """`count` answers of the spawned processes."""
    got = []
    for _ in range(count):
        try:
            got.append(results.get(timeout=BARRIER_TIMEOUT * 3))
        except queue.Empty:
            pytest.fail("a spawned racer did not answer")
    return got


def test_processes_race(storage_env, make_games):
    # Three processes, each with its own Application (three on one SQLite file, or on
    # PostgreSQL): first racing for one version of each game, then a free-for-all.
    setup = make_games()
    races: list[list[tuple[str, dict[str, Any]]]] = [[] for _ in range(PROCESSES)]
    raced: dict[UUID, int] = {}
    for n, key in enumerate(available_games()):
        game_id = new_game(setup, key, seed=10 + n)
        advance(setup, game_id, random.Random(n), 4)
        game = setup.game(game_id)
        raced[game_id] = game.version
        for racer, command in enumerate(distinct_commands(game, PROCESSES)):
            races[racer].append((str(game_id), command, game.version))
    played = [new_game(setup, key, seed=20 + n) for n, key in enumerate(available_games())]
    first = {g: setup.game(g).version for g in played}  # cached here: to be fast-forwarded
    caps = {str(g): v + EXTRA for g, v in first.items()}
    barrier, results = SPAWN.Barrier(PROCESSES), SPAWN.Queue()
    procs = [SPAWN.Process(target=racer_process,
                           args=(storage_env, races[i], caps, 2, i, barrier, results))
             for i in range(PROCESSES)]
    for proc in procs:
        proc.start()
    answers = collect(results, PROCESSES)
    for proc in procs:
        proc.join(BARRIER_TIMEOUT)
        assert proc.exitcode == 0
    # Check each raced version was won by one process, the others answered Conflict.
    for game_id, version in raced.items():
        mine = [o for a in answers for o in a["raced"] if o["game_id"] == str(game_id)]
        assert not [o for o in mine if o["outcome"] == "error"], mine
        check_one_winner([setup], game_id, version, mine)
    # Check the free-for-all: every version won once, the chain intact, only Conflicts.
    check_free_for_all([setup], played, first, [o for a in answers for o in a["played"]])
    for answer in answers:
        # Check each process's cache ended at the store's version, whoever wrote last.
        assert answer["ends"] == {str(g): setup.game(g).version for g in played}
