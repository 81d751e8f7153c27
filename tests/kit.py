"""Helpers that play whole games through the rules, the service or the REST API, with random
legal moves; and real `gruft` processes (a served API, a bot runner) to test against."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from domain import available_games, game_class

# Options that keep a test game short, per game key (each game's own SHORT_OPTIONS).
SHORT_OPTIONS = {key: dict(game_class(key).SHORT_OPTIONS) for key in available_games()}
NAMES = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou"]


def seats(key: str, count: int | None = None) -> list[str]:
    """Player names for a game: its minimum count unless given."""
    cls = game_class(key)
    return NAMES[: count or max(cls.MIN_PLAYERS, 3 if cls.MAX_PLAYERS >= 3 else 2)]


def played_document(game: Any, rng: random.Random, key: Any) -> dict[str, Any]:
    """A started game played to its end through the rules alone, exported as a replay document
    signed with `key` (a service.audit.signing.SigningKey: a test's own, or the server's)."""
    from domain.core import event_record
    from replays.document import build_document

    while not game.finished:
        player = rng.choice(game.to_act)
        game.execute(player, rng.choice(game.legal_moves(player)))
    records = [event_record(e) for e in game.collect_events()]
    return build_document(game, records, key.sign, key.public_pem)


def play_out(games: Any, game_id: Any, rng: random.Random, max_commands: int = 5000) -> int:
    """Finish a stored game with random legal moves through the service; answers commands run."""
    from domain.core import HOST

    count = 0
    while True:
        game = games.game(game_id)
        if game.finished:
            return count
        player = rng.choice(game.to_act)
        move = rng.choice(game.legal_moves(player))
        games.run_command(game_id, HOST, {**move, "player": player})
        count += 1
        assert count < max_commands, "game did not finish"


def play_over_rest(client: Any, created: dict, rng: random.Random, max_commands: int = 5000
                   ) -> int:
    """Finish a game over REST, each seat acting with its own token; answers commands sent."""
    game_id = created["game_id"]
    tokens = {p: {"Authorization": f"Bearer {t}"} for p, t in created["player_tokens"].items()}
    count = 0
    while True:
        view = client.get(f"/games/{game_id}").get_json()
        if view["status"] == "finished":
            return count
        player = rng.choice(view["to_act"])
        moves = client.get(f"/games/{game_id}/legal-moves", headers=tokens[player]).get_json()
        assert moves["player"] == player and moves["moves"], moves
        answer = client.post(f"/games/{game_id}/commands", headers=tokens[player],
                             json={**rng.choice(moves["moves"]), "expected_version": view["version"]})
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["version"] > view["version"]
        count += 1
        assert count < max_commands, "game did not finish"


# -- real gruft processes ---------------------------------------------------------------------

GRUFT = Path(sys.executable).with_name("gruft")  # the command as installed in this venv
PATIENCE = 60.0  # seconds a test waits for a process (a server, the bots) before calling it stuck


def outside_tool(name: str, package: str) -> str:
    """The path of a program from outside the project (scripts/test.sh installs Debian's
    `package` for it): a test skips without it, except in CI (CI set), where it fails."""
    import shutil

    import pytest

    found = shutil.which(name)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed (Debian's {package}: scripts/test.sh installs it)")
    pytest.skip(f"{name} is not installed (apt-get install {package})")


def wait_until(check: Callable[[], bool], what: str, timeout: float = PATIENCE,
               every: float = 0.02) -> None:
    """Poll `check` every `every` seconds until it holds; fail naming `what` if it still does
    not after `timeout`."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(every)


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         timeout: float = 30) -> tuple[int, Any]:
    """One request on a connection of its own (so the kernel spreads them over the workers)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json", "Connection": "close"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        conn.close()


# What a gruft process a test starts runs first: it asks the kernel for SIGINT when the process
# that started it dies (Linux's PR_SET_PDEATHSIG, kept across the exec; as bench.servers does),
# then becomes `gruft`. A test's `finally` stops its servers, but a test process that dies
# (an xdist worker that crashed) runs none: its gunicorn, master and workers, served on after
# the whole suite had ended. (Not a preexec_fn: the test process has threads.)
DIE_WITH_PARENT = """\
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # 1 = PR_SET_PDEATHSIG
if os.getppid() == int(sys.argv[1]):  # else the starter is gone already: nothing to serve
    os.execv(sys.argv[2], sys.argv[2:])
"""


def start_gruft(argv: list[str], env: dict[str, str], log: Path, **popen: Any
                ) -> subprocess.Popen:
    """`gruft <argv>` as a process of its own, on this environment with `env` over it, its
    output appended to `log`; in a process group of its own (`stop` ends it whole), and ended
    by the kernel if this process dies first. Start it from the test's own thread: the kernel
    counts the thread that started it as its parent."""
    with log.open("a") as out:
        return subprocess.Popen(
            [sys.executable, "-c", DIE_WITH_PARENT, str(os.getpid()), str(GRUFT), *argv],
            env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, **popen)


# gunicorn's master waits up to its graceful timeout (30 s) for a worker that is slow to end,
# then kills it and runs its exit hooks (the metrics folder removed): a test waits past that
# before it kills the group itself, or the hooks never run.
STOP_WAIT_SECONDS = 40


def stop(proc: subprocess.Popen, signum: int = signal.SIGINT) -> None:
    """Stop a process started here (it may be dead already): `signum`, then after
    STOP_WAIT_SECONDS a kill of its whole process group (a gunicorn master killed alone leaves
    its workers serving); whatever of the group is left once it has ended is killed too."""
    if proc.poll() is None:
        proc.send_signal(signum)
        try:
            proc.wait(STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


@contextmanager
def served_gruft(env: dict[str, str], log: Path, workers: int = 1, threads: int | None = None
                 ) -> Iterator[int]:
    """`gruft serve` with `env` over this environment; its port once it answers, stopped on
    the way out (SIGINT, gunicorn's quick shutdown), the end of its log then printed (pytest
    shows it when the test failed)."""
    from bench.servers import listening_socket

    # The server inherits a socket bound here: a port chosen here and bound by gunicorn later
    # could meanwhile be taken by another test's server, and we would talk to that one.
    sock = listening_socket()
    port = sock.getsockname()[1]
    more = ["--threads", str(threads)] if threads else []
    proc = start_gruft(["serve", "--fd", str(sock.fileno()), "--workers", str(workers), *more],
                       env, log, pass_fds=(sock.fileno(),))
    sock.close()  # gunicorn holds it now

    def up() -> bool:
        assert proc.poll() is None, log.read_text()
        try:
            return call(port, "GET", "/signing-key")[0] == 200
        except (OSError, http.client.HTTPException, ValueError):  # not up yet
            return False

    try:
        wait_until(up, f"gruft serve to answer (its log: {log})")
        yield port
    finally:
        stop(proc)
        print(log.read_text()[-4000:])


T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)  # when a HandClock starts


class HandClock:
    """The time every new event is stamped with (`Replay(timestamps=hand.stamps())`), moved on
    by hand: a test of clocks says exactly how long each move took."""

    def __init__(self) -> None:
        self.now = T0

    def stamps(self) -> Iterator[datetime]:
        """Endless: the time now, for each event stamped."""
        while True:
            yield self.now

    def after(self, seconds: float) -> datetime:
        """Move the time on by `seconds`; answers the new time."""
        self.now += timedelta(seconds=seconds)
        return self.now
