"""Bot seats played by the server (service.runners.bot_runner): real runner threads and processes on real stores.

Every game a bot plays must end, export and verify like any other: the bots' moves are the
seats' own commands, run through the same rules. One runner per store moves (the lock), and a
runner that dies mid-game is replaced by one that finishes it from the stored state.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
from pathlib import Path
from uuid import UUID

import pytest

from bots import make_bot
from domain import available_games, game_class
from domain.core import HOST, Viewer
from replays.document import build_document, verify
from service import Games
from service.audit.signing import SigningKey, check_signature
from service.table.seats import BOT_KINDS
from tests.kit import GRUFT, SHORT_OPTIONS, seats, start_gruft, stop, wait_until


def bots_game(games: Games, key: str, seed: int = 1, humans: tuple[str, ...] = (),
              count: int | None = None) -> UUID:
    """A short game whose seats are bots (mixed kinds), except `humans`."""
    names = seats(key, count)
    bots = {name: BOT_KINDS[i % len(BOT_KINDS)] for i, name in enumerate(names)
            if name not in humans}
    return games.create_game(key, names, seed=seed, options=SHORT_OPTIONS[key],
                             bots=bots).game_id


def check_exports(games: Games, game_id: UUID, folder: Path) -> list[dict]:
    """The game's replay document verifies (every move legal, re-run by the rules)."""
    key = SigningKey.load_or_create(folder)
    game = games.game(game_id)
    records = games.reads.records(game_id)
    verdict = verify(build_document(game, records, key.sign, key.public_pem),
                     trusted_keys=[key.public_pem], check_signature=check_signature)
    assert verdict.valid, verdict.problems
    assert verdict.winners == game.winners
    return records


def commands_of(key: str, records: list[dict]) -> dict[str, int]:
    """How many commands each seat's events record."""
    counts: dict[str, int] = {}
    for record in records:
        if record["type"] in game_class(key).COMMAND_EVENTS:
            player = record["data"]["player"]
            counts[player] = counts.get(player, 0) + 1
    return counts


def test_every_game_has_every_bot_a_seat_may_be_given():
    # Check the kinds the service accepts (docs/api.md: heuristic | random) exist for every game.
    for key in available_games():
        for kind in BOT_KINDS:
            assert make_bot(kind, key, random.Random(0)).name == kind


@pytest.mark.parametrize("key", available_games())
def test_a_game_of_bots_alone_plays_itself_to_the_end(open_workers, key, tmp_path):
    worker = open_workers()
    games = worker.games
    game_id = bots_game(games, key)
    runner = worker.bot_runner()  # the worker's runner thread, as serving.wsgi starts it
    wait_until(lambda: games.game(game_id).finished, f"{key} played to its end")
    records = check_exports(games, game_id, tmp_path)
    # Check every command was a bot's, recorded as its seat's and as the bot's (`by`), and
    # counted by the runner; what followed from them is the server's.
    counts = commands_of(key, records)
    commands = set(game_class(key).COMMAND_EVENTS)
    assert {r["by"] for r in records if r["type"] in commands} == {"bot"}
    assert {r["by"] for r in records if r["type"] not in commands} == {"server"}
    assert set(counts) <= set(games.game(game_id).players)
    wait_until(lambda: runner.runner.moves == sum(counts.values()), "the runner's count")
    assert game_id not in runner.runner.active  # a finished game is dropped


@pytest.mark.parametrize("key", available_games())
def test_one_person_and_three_bots(open_workers, key, tmp_path):
    worker = open_workers()
    games = worker.games
    game_id = bots_game(games, key, seed=5, humans=("Ann",), count=4)
    worker.bot_runner()
    rng, ann, moved = random.Random(5), Viewer(player="Ann"), 0

    def ann_awaited_alone_or_over() -> bool:
        game = games.game(game_id)
        return game.finished or game.to_act == ["Ann"]

    while True:
        # Check the bots answer until Ann is awaited again (VampiRing's bots submit beside her).
        wait_until(ann_awaited_alone_or_over, f"the bots of {key} to answer Ann")
        game = games.game(game_id)
        if game.finished:
            break
        assert game.view(Viewer(player="Ann"))["to_act"] == ["Ann"]
        games.run_command(game_id, ann, rng.choice(game.legal_moves("Ann")))
        moved += 1
    records = check_exports(games, game_id, tmp_path)
    counts = commands_of(key, records)
    # Check Ann's seat moved only when she did, and the bots played every other seat.
    assert counts["Ann"] == moved > 0
    assert set(counts) == set(seats(key, 4))


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_two_runners_on_one_store_never_both_move(open_workers, store, request, tmp_path):
    env = request.getfixturevalue(f"{store}_env")
    owners = [open_workers(env), open_workers(env)]
    workers = [owner.games for owner in owners]
    ids = [bots_game(workers[0], key, seed=2) for key in available_games()]
    runners = [owner.bot_runner().runner for owner in owners]  # both try the lock
    wait_until(lambda: all(workers[1].game(g).finished for g in ids), "every game to end")
    total = sum(sum(commands_of(workers[0].game(g).KEY, check_exports(workers[0], g, tmp_path))
                    .values()) for g in ids)
    # Check one runner made every move and the other none (it waited for the lock).
    wait_until(lambda: sum(r.moves for r in runners) == total, "the runners' counts")
    assert sorted(r.moves for r in runners) == [0, total]


def test_a_bot_move_beaten_by_another_is_a_conflict_and_chosen_again(open_workers, tmp_path):
    worker = open_workers()
    games = worker.games
    game_id = bots_game(games, "voodoo-prince", seed=3)
    real = games.run_command
    sneaked: list[int] = []

    def someone_moves_first(gid, viewer, command, expected_version=None, by=None):
        # The first time a bot is about to store a move, the host plays that seat first.
        if not sneaked:
            game = games.game(gid)
            real(gid, HOST, {**game.legal_moves(viewer.player)[0], "player": viewer.player})
            sneaked.append(game.version)
        return real(gid, viewer, command, expected_version, by=by)

    games.run_command = someone_moves_first  # type: ignore[method-assign]
    runner = worker.bot_runner().runner
    wait_until(lambda: games.game(game_id).finished, "the game to end")
    records = check_exports(games, game_id, tmp_path)
    # Check the beaten move stored nothing: the runner chose again from the newer state.
    wait_until(lambda: runner.moves == sum(commands_of("voodoo-prince", records).values()) - 1,
               "the runner's count")
    assert sneaked


def start_runner(env: dict[str, str], log: Path, delay: str) -> subprocess.Popen:
    """`gruft bots` as a process of its own on the store."""
    return start_gruft(["bots", "--delay", delay], env, log)


def test_a_runner_killed_mid_game_is_replaced_by_its_standby(open_workers, sqlite_env, tmp_path):
    worker = open_workers()
    games = worker.games
    game_id = bots_game(games, "vampir", seed=4)
    log = tmp_path / "bots.log"
    first = start_runner(sqlite_env, log, delay="0.05")  # slow enough to be killed mid-game
    standby = None
    try:
        wait_until(lambda: games.game(game_id).version >= 20, "the first runner to play")
        standby = start_runner(sqlite_env, log, delay="0")  # waits for the lock
        first.send_signal(signal.SIGKILL)  # no chance to finish a move or let go of the lock
        first.wait(20)
        killed_at = games.game(game_id).version
        assert not games.game(game_id).finished, log.read_text()
        # Check the standby takes the lock the dead runner held and finishes from the store.
        wait_until(lambda: games.game(game_id).finished, "the standby to finish the game")
        assert games.game(game_id).version > killed_at
    finally:
        stop(first, signal.SIGTERM)
        if standby is not None:
            stop(standby, signal.SIGTERM)
        print(log.read_text())
    check_exports(games, game_id, tmp_path)


def test_a_restarted_runner_finishes_what_was_owed(open_workers, sqlite_env, tmp_path):
    # Games stored while no runner ran (a server down): a runner started later plays them all,
    # including one whose human has moved meanwhile.
    worker = open_workers()
    games = worker.games
    alone = bots_game(games, "vampiring", seed=6)
    mixed = bots_game(games, "vampire-queen", seed=6, humans=("Ann",))
    if "Ann" in games.game(mixed).to_act:
        game = games.game(mixed)
        games.run_command(mixed, Viewer(player="Ann"), game.legal_moves("Ann")[0])
    later_worker = open_workers()  # a new worker after the restart
    later = later_worker.games
    later_worker.bot_runner()
    wait_until(lambda: later.game(alone).finished, "the bots-only game to end")
    wait_until(lambda: later.game(mixed).to_act == ["Ann"], "the bots to wait for Ann")
    check_exports(later, alone, tmp_path)


def test_gruft_bots_gives_up_when_another_runner_holds_the_lock(sqlite_env, tmp_path):
    from service.readmodels import RunnerLock, views_env
    from service.runners.bot_runner import LOCK_NAME

    held = RunnerLock(views_env(sqlite_env), LOCK_NAME)
    assert held.acquire()
    try:
        done = subprocess.run([str(GRUFT), "bots", "--lock-wait", "0.2"], capture_output=True,
                              text=True, env={**os.environ, **sqlite_env}, timeout=60)
    finally:
        held.release()
    assert done.returncode == 3, done.stderr
    assert "another bot runner holds the lock" in done.stderr
    # Check the projection's runner has a lock of its own: the bots' lock does not hold it.
    projections = RunnerLock(views_env(sqlite_env))
    assert held.acquire() and projections.acquire()
    projections.release()
    held.release()


def test_a_failing_bot_stalls_only_its_own_game(open_workers, monkeypatch, tmp_path):
    import service.runners.bot_runner

    def make(kind, key, rng):
        if key == "vampir":
            raise RuntimeError("this bot is broken")
        return make_bot(kind, key, rng)

    monkeypatch.setattr(service.runners.bot_runner, "make_bot", make)
    worker = open_workers()
    games = worker.games
    broken = bots_game(games, "vampir", seed=8)
    fine = bots_game(games, "voodoo-prince", seed=8)
    start = games.game(broken).version
    embedded = worker.bot_runner()
    wait_until(lambda: games.game(fine).finished, "the other game to end")
    check_exports(games, fine, tmp_path)
    # Check the broken bot stored nothing and its runner still runs (the game waits, in play).
    assert games.game(broken).version == start and embedded._thread.is_alive()
    assert broken in embedded.runner.active


def test_bots_make_one_call_per_move_beside_a_person_moving_with_them(open_workers, tmp_path):
    # VampiRing: three bots and Ann choose at the same time every turn; Ann moves the moment
    # she is awaited, from a thread of her own. A bot's call lost to hers is chosen again: at
    # most one extra call per move of Ann's, so about one call per bot move.
    import threading

    worker = open_workers()

    games = worker.games
    game_id = bots_game(games, "vampiring", seed=8, humans=("Ann",), count=4)
    runner = worker.bot_runner().runner
    ann_moves = []

    def ann() -> None:
        while not (game := games.game(game_id)).finished:  # one read a turn: bots move too
            moves = game.legal_moves("Ann")
            if not moves:
                wait_until(lambda v=game.version: games.game(game_id).version > v, "a move")
                continue
            games.run_command(game_id, Viewer(player="Ann"), moves[0])
            ann_moves.append(1)

    thread = threading.Thread(target=ann)
    thread.start()
    thread.join(120)
    records = check_exports(games, game_id, tmp_path)
    bot_moves = sum(1 for r in records if r.get("by") == "bot")
    wait_until(lambda: runner.moves == bot_moves, "the runner's count")
    assert ann_moves and runner.moves > 0
    assert runner.attempts - runner.moves <= len(ann_moves)
    print(f"bot calls per bot move: {runner.attempts / runner.moves:.2f} "
          f"({runner.attempts} calls, {runner.moves} moves, {len(ann_moves)} of Ann's)")
