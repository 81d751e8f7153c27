"""Helpers of the storage tests: short games, racing writers, and the checks of the stored log.

Everything here runs on the real stores (SQLite files, PostgreSQL). The functions at module
level are also the targets of spawned processes, so each process builds its own Application.
"""

from __future__ import annotations

import random
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from domain.core import HOST, Game, canonical
from service import Games
from service.errors import Conflict
from tests.kit import SHORT_OPTIONS, seats

BARRIER_TIMEOUT = 30  # seconds; a racer stuck this long is a failure, not a hang


def two_applications(env: dict[str, str]) -> Iterator[list[Games]]:
    """Two Applications on one store, as two workers or servers hold it; closed afterwards
    (a fixture's body: `yield from two_applications(env)`)."""
    apps = [Games(env=env), Games(env=env)]
    try:
        yield apps
    finally:
        for app in apps:
            app.close()


def new_game(games: Games, key: str, seed: int | str = 1) -> UUID:
    """A short game of `key`, stored."""
    return games.create_game(key, seats(key), seed=seed, options=SHORT_OPTIONS[key]).game_id


def random_command(game: Game, rng: random.Random) -> dict[str, Any] | None:
    """A random legal command of a player to act, with the `player` the host names; None at the end."""
    if game.finished or not game.to_act:
        return None
    player = rng.choice(sorted(game.to_act))
    return {**rng.choice(game.legal_moves(player)), "player": player}


def advance(games: Games, game_id: UUID, rng: random.Random, commands: int) -> None:
    """Run up to `commands` random legal commands (fewer if the game ends)."""
    for _ in range(commands):
        command = random_command(games.game(game_id), rng)
        if command is None:
            return
        games.run_command(game_id, HOST, command)


def distinct_commands(game: Game, count: int) -> list[dict[str, Any]]:
    """`count` legal commands for the current version, as different as the rules allow."""
    options = [{**m, "player": p} for p in sorted(game.to_act) for m in game.legal_moves(p)]
    assert options, "nobody can act"
    return [options[i % len(options)] for i in range(count)]


def fresh(games: Games, game_id: UUID) -> Game:
    """The game rebuilt from the store alone, bypassing the cache."""
    head = next(games.repository.event_store.get(game_id, desc=True, limit=1))
    return games.repository.get(game_id, version=head.originator_version)


def state_of(game: Game) -> dict[str, Any]:
    """Everything an aggregate holds (its attributes), to compare two of them."""
    return {k: v for k, v in game.__dict__.items() if k != "_pending_events"}


def check_log(games: Games, game_id: UUID) -> list[dict[str, Any]]:
    """The stored log is whole: versions 1..n without gaps or repeats, the hash chain intact."""
    records = games.reads.records(game_id)
    assert [r["version"] for r in records] == list(range(1, len(records) + 1))
    prev = games.game(game_id).seed_commitment
    for record in records:
        assert record["prev_hash"] == prev, f"chain broken at version {record['version']}"
        prev = record["hash"]
    return records


def check_won_versions(records: list[dict[str, Any]], wins: list[dict[str, Any]],
                       first: int) -> None:
    """Every version after `first` was written by exactly one accepted command, as it answered."""
    by_version: dict[int, dict[str, Any]] = {}
    for win in wins:
        assert win["events"], "an accepted command stored no event"
        assert win["version"] == win["events"][-1]["version"]
        for event in win["events"]:
            assert event["version"] not in by_version, f"version {event['version']} won twice"
            by_version[event["version"]] = event
    stored = [r for r in records if r["version"] > first]
    assert sorted(by_version) == [r["version"] for r in stored], "events nobody was told of"
    for record in stored:
        told = by_version[record["version"]]
        assert (told["type"], told["timestamp"], canonical(told["data"])) == (
            record["type"], record["timestamp"], canonical(record["data"]))


class Gate:
    """A barrier that can be armed for one race and is open otherwise."""

    def __init__(self, barrier: Any = None) -> None:
        self.barrier = barrier

    def wait(self) -> None:
        """Wait for the other racers, if armed."""
        if self.barrier is not None:
            self.barrier.wait(BARRIER_TIMEOUT)


def gate_commands(games: Games, gate: Gate) -> None:
    """Make every command wait at `gate` after loading its game, so all racers load one version.

    The store stays real; the gate only fixes the interleaving that a race needs.
    """
    original = games.repository.get

    def get(aggregate_id: UUID, **kwargs: Any) -> Any:
        got = original(aggregate_id, **kwargs)
        if kwargs.get("deepcopy_from_cache", True) and kwargs.get("version") is None and \
                isinstance(got, Game):
            gate.wait()  # a command's load (reads pass deepcopy_from_cache=False)
        return got

    games.repository.get = get  # type: ignore[method-assign]


def attempt(games: Games, game_id: UUID, command: dict[str, Any],
            expected_version: int | None = None) -> dict[str, Any]:
    """Run one command; its outcome as plain data (accepted with events, conflict, or error)."""
    try:
        version, events = games.run_command(game_id, HOST, command, expected_version)
    except Conflict as exc:
        return {"outcome": "conflict", "message": str(exc)}
    except Exception as exc:  # noqa: BLE001 - anything else is reported to the test
        return {"outcome": "error", "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc()}
    return {"outcome": "won", "version": version, "events": events, "command": command}


def free_for_all(games: Games, caps: dict[str, int], threads: int, seed: int
                 ) -> list[dict[str, Any]]:
    """Threads play random legal commands with expected_version until each game ends or
    reaches its version in `caps`; every outcome is returned."""
    outcomes: list[dict[str, Any]] = []
    lock = threading.Lock()

    def play(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        for game_id, cap in caps.items():
            while True:
                game = games.game(game_id)
                command = random_command(game, rng)
                if command is None or game.version >= cap:
                    break
                outcome = attempt(games, game_id, command, expected_version=game.version)
                outcome["game_id"] = str(game_id)
                with lock:
                    outcomes.append(outcome)

    run_threads([lambda n=n: play(n) for n in range(threads)])
    return outcomes


def racer_process(env: dict[str, str], races: list[tuple[str, dict[str, Any], int]],
                  caps: dict[str, int], threads: int, seed: int, barrier: Any, results: Any
                  ) -> None:
    """Process target with its own Application: first, for each (game, command, version the
    command expects) of `races`,
    load the game together with the other processes and run the command; then `threads`
    threads in a free-for-all on the games of `caps`; last, where its cache says they are."""
    games = Games(env=env)
    gate = Gate(barrier)
    gate_commands(games, gate)
    raced = [{**attempt(games, UUID(game_id), command, expected_version=version),
              "game_id": game_id} for game_id, command, version in races]
    gate.barrier = None
    barrier.wait(BARRIER_TIMEOUT)
    played = free_for_all(games, caps, threads, seed)
    barrier.wait(BARRIER_TIMEOUT)  # every process has stopped writing
    # Each process's cache must end where the store is (fast-forwarded after others wrote).
    results.put({"raced": raced, "played": played,
                 "ends": {g: games.game(g).version for g in caps}})


def run_threads(targets: list[Callable[[], Any]]) -> None:
    """Run the targets in threads; re-raise the first exception any of them raised."""
    errors: list[BaseException] = []

    def guard(target: Callable[[], Any]) -> None:
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            errors.append(exc)

    workers = [threading.Thread(target=guard, args=(t,)) for t in targets]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert not any(w.is_alive() for w in workers), "a racer hung"
    if errors:
        raise errors[0]


def signing_key_process(folder: str, barrier: Any, results: Any) -> None:
    """Process target: load or create the signing key in `folder` together with the others."""
    from pathlib import Path

    from service.audit.signing import SigningKey

    barrier.wait(BARRIER_TIMEOUT)
    results.put(SigningKey.load_or_create(Path(folder)).public_pem)
