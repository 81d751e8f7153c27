"""Issue 23, item 2: many small stream requests against one long public game must not grow a
served worker without bound.

The probe: 1,447 requests of 110 bytes each, every one asking for a long game's events from some
`?after=`, grew two workers from about 130 MiB to 570 MiB in 111 s: each stream's first message
held every event after `after`, and a worker kept up to 4,096 such messages. Now catch-up comes
in pages and the messages a worker keeps are bounded by bytes (service/caches.py).
"""

from __future__ import annotations

import random
import socket
import threading
from pathlib import Path

from bench.servers import Served, served_gruft
from domain import game_class
from domain.core import HOST
from service import Games
from tests.kit import seats
from tests.service.storage.kit import random_command

KEY = "vampire-queen"  # its random games are the longest: ten phases, 2,752 events (seed 3)
LONG = 2_400  # commands played: the game goes on after them
REQUESTS = 2_000
CLIENTS = 8
GROWTH_BOUND = 100 * 1024 * 1024  # bytes a worker may grow by under the attack (issue 23)


def long_game(env: dict[str, str]) -> tuple[str, int]:
    """A long public game stored in `env`'s store; its id and version."""
    games = Games(env=dict(env))
    try:
        players = seats(KEY, game_class(KEY).MAX_PLAYERS)
        gid = games.create_game(KEY, players, seed=3, options={"phases": 10}).game_id
        rng = random.Random(3)
        for _ in range(LONG):
            command = random_command(games.game(gid), rng)
            if command is None:
                break
            games.run_command(gid, HOST, command)
        return str(gid), games.game(gid).version
    finally:
        games.close()


def rss(pid: int) -> int:
    """A process's resident set, in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) * 1024 for line in status.splitlines()
                if line.startswith("VmRSS:"))


def small_request(port: int, gid: str, after: int) -> bytes:
    """The attacker's request: a stream from `after`, its answer's first bytes, then gone."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"GET /games/{gid}/stream?after={after} HTTP/1.1\r\n"
                     "Host: x\r\n\r\n".encode())
        return sock.recv(64)


def attack(served: Served, gid: str, version: int) -> int:
    """REQUESTS small stream requests from CLIENTS threads, each from some `after` in the first
    two thirds of the game; how many were answered 200."""
    afters = [i % (2 * version // 3) for i in range(REQUESTS)]
    random.Random(1).shuffle(afters)
    answered, lock = [0], threading.Lock()

    def client(share: list[int]) -> None:
        for after in share:
            head = small_request(served.port, gid, after)
            if head.startswith(b"HTTP/1.1 200"):
                with lock:
                    answered[0] += 1

    threads = [threading.Thread(target=client, args=(afters[i::CLIENTS],))
               for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answered[0]


def test_many_small_stream_requests_grow_a_worker_by_less_than_100_mib(sqlite_env, tmp_path):
    gid, version = long_game(sqlite_env)
    assert version > 2_500
    # Streams closed by their client linger until a keepalive finds them gone; the attacker
    # here is one address, standing for the many addresses a real one would use.
    with served_gruft(sqlite_env, tmp_path, workers=2, GRUFT_STREAM_KEEPALIVE="0.5",
                      GRUFT_STREAMS_PER_ADDRESS="10000",
                      GRUFT_CONNECTIONS_PER_ADDRESS="0") as served:
        for after in range(0, 40):  # warm both workers: the game cached, every module loaded
            small_request(served.port, gid, after)
        before = {pid: rss(pid) for pid in served.workers()}
        answered = attack(served, gid, version)
        after = {pid: rss(pid) for pid in served.workers()}
        assert set(after) == set(before), "a worker was replaced during the attack"
        grown = {pid: after[pid] - before[pid] for pid in before}
        print(f"answered {answered} of {REQUESTS}; RSS before {before}, grown by {grown}")
        assert answered >= REQUESTS // 2, "the attack was mostly refused: it measured nothing"
        assert max(grown.values()) < GROWTH_BOUND, grown
