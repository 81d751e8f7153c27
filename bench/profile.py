"""Profile the three hot paths of `gruft bench` with pyinstrument, in-process.

    .venv/bin/python bench/profile.py domain [game]   # random-bot games through the aggregate
    .venv/bin/python bench/profile.py replay [game]   # rebuilding stored games from SQLite
    .venv/bin/python bench/profile.py api [game]      # commands through the Flask app (no HTTP)

Prints pyinstrument's call tree (wall time). Sampling profilers over-weight code made of many
tiny Python calls (copy.deepcopy, the JSON encoder's Python layer): confirm a finding with
the CPU-time counters this script prints after the tree before acting on it.
"""

from __future__ import annotations

import logging
import random
import sys
import tempfile
import time
from pathlib import Path

from pyinstrument import Profiler

from bench.suite import domain_game, fill_store, store_env
from domain import available_games, game_class
from service.runners.simulate import default_players


def profile_domain(keys: list[str]) -> int:
    """Random-bot games, a few seconds per game."""
    rng, steps = random.Random(1), 0
    for key in keys:
        start = time.process_time()
        seed = 0
        while time.process_time() - start < 2.0:
            steps += domain_game(key, seed, rng)
            seed += 1
    return steps


def profile_replay(keys: list[str]) -> int:
    """Store a few games per kind, then rebuild them three times with no cache."""
    from service.app import Games

    tmp = Path(tempfile.mkdtemp(prefix="gruft-profile-"))
    stored = fill_store(tmp / "r.sqlite", tmp / "d", 8, 1)
    games = Games(env=store_env(tmp / "r.sqlite", tmp / "d", SNAPSHOT_INTERVAL="0",
                                AGGREGATE_CACHE_MAXSIZE=""))
    events = 0
    for _ in range(3):
        for key in keys:
            for game_id, count in stored[key]:
                games.repository.get(game_id)
                events += count
    return events


def profile_api(keys: list[str]) -> int:
    """Whole games through the Flask app's command endpoint, mirrored locally for legal moves."""
    from api import create_app

    logging.disable(logging.CRITICAL)  # the request log would dominate the terminal
    tmp = tempfile.mkdtemp(prefix="gruft-profile-")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{tmp}/a.sqlite",
           "GRUFT_DATA_DIR": tmp}
    client = create_app({"GRUFT_ENV": env}).test_client()
    rng, commands = random.Random(1), 0
    for seed in range(2):
        for key in keys:
            cls = game_class(key)
            players = [f"p{i}" for i in range(default_players(cls))]
            made = client.post("/games", json={"game": key, "players": players, "seed": seed})
            game_id, token = made.get_json()["game_id"], made.get_json()["host_token"]
            local = cls.start(players, seed=seed)
            while not local.finished:
                player = local.to_act[0]
                moves = local.legal_moves(player)
                move = moves[rng.randrange(len(moves))]
                answer = client.post(f"/games/{game_id}/commands", json={**move, "player": player},
                                     headers={"Authorization": f"Bearer {token}"})
                assert answer.status_code == 200, answer.get_json()
                local.execute(player, move)
                local.collect_events()
                commands += 1
    return commands


def main() -> None:
    """Profile one path and print the tree and the CPU cost per unit of work."""
    what = sys.argv[1] if len(sys.argv) > 1 else "domain"
    keys = sys.argv[2:] or available_games()
    run = {"domain": profile_domain, "replay": profile_replay, "api": profile_api}[what]
    profiler = Profiler()
    cpu = time.process_time()
    profiler.start()
    work = run(keys)
    profiler.stop()
    cpu = time.process_time() - cpu
    print(profiler.output_text(unicode=True, color=False, show_all=False))
    unit = {"domain": "command", "replay": "event", "api": "command"}[what]
    print(f"{work} {unit}s, {cpu / max(work, 1) * 1e6:.1f} us CPU per {unit} (profiler included)")


if __name__ == "__main__":
    main()
