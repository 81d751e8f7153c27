"""Two Applications on one PostgreSQL store, as two workers: commands, reads and restarts
interleaved at random find no read of a stale game and lose no event (issue 30, item 3; the
cache coherence protocol of docs/architecture.md).

Each worker keeps its own cache of games (GAMES) and trusts it for a command as far as its
follower heard (FRESHNESS): a command on the other worker makes this one's copy stale until the
NOTIFY arrives. Whatever the interleaving: a read answers at least the newest version any
command answered before it, a command either stores on the newest version or is refused because
the game moved past the version it was chosen on, and the store ends holding every event each
accepted command answered, in an unbroken run of versions.
"""

from __future__ import annotations

import random
from uuid import UUID

import pytest

from domain.core import Viewer
from service import Games
from service.errors import Conflict
from tests.kit import SHORT_OPTIONS, seats

pytestmark = pytest.mark.postgres

KEYS = ["vampir", "vampiring", "voodoo-prince", "vampire-queen"]
STEPS = 120


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_applications_interleaved_read_no_stale_game_and_lose_no_event(postgres_env, seed):
    rng = random.Random(seed)
    env = {**postgres_env, "GRUFT_BOT_DELAY": "0"}
    workers = [Games(env=env), Games(env=env)]
    answered: dict[UUID, list[int]] = {}  # game -> every version a command answered, in order
    restarts = 0
    try:
        for _ in range(STEPS):
            choice = rng.random()
            worker = rng.randrange(2)
            if not answered or choice < 0.08:
                key = rng.choice(KEYS)
                created = workers[worker].create_game(key, seats(key), seed=rng.randrange(1000),
                                                      options=SHORT_OPTIONS[key])
                answered[created.game_id] = [workers[worker].game(created.game_id).version]
            elif choice < 0.12:  # a worker restarts: a new Application, an empty cache
                workers[worker].close()
                workers[worker] = Games(env=env)
                restarts += 1
            elif choice < 0.45:  # a read on either worker sees every answered command
                game_id = rng.choice(list(answered))
                seen = workers[worker].game(game_id).version
                assert seen >= answered[game_id][-1], (game_id, seen, answered[game_id])
            else:  # a move chosen on one worker's read, sent to either
                game_id = rng.choice(list(answered))
                game = workers[rng.randrange(2)].game(game_id)
                if game.finished or not game.to_act:
                    continue
                player = rng.choice(game.to_act)
                moves = game.legal_moves(player)
                if not moves:
                    continue
                try:
                    outcome = workers[worker].command(game_id, Viewer(player=player),
                                                      rng.choice(moves),
                                                      expected_version=game.version)
                except Conflict:
                    # Refused only because the game moved past the version it was chosen on.
                    assert workers[worker].game(game_id).version > game.version
                    continue
                assert outcome.version > max(answered[game_id])
                answered[game_id].append(outcome.version)
        # Check a fresh Application finds every answered version, in an unbroken run of events.
        fresh = Games(env=env)
        try:
            for game_id, versions in answered.items():
                stored = [e.originator_version for e in
                          fresh.repository.event_store.get(game_id)]
                assert stored == list(range(1, len(stored) + 1))
                assert stored[-1] == versions[-1] == fresh.game(game_id).version
                assert set(versions) <= set(stored)
        finally:
            fresh.close()
        assert restarts and sum(len(v) - 1 for v in answered.values()) > STEPS // 4
    finally:
        for games in workers:
            games.close()
