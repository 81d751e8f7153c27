"""One client cannot take every thread (issue 23, item 3): streams and long polls are capped
per address (429 past the cap) and together below the worker's threads, so with one client
holding everything it may, another's command is still answered.

The probe: with 2 workers of 20 threads, 32 streams and 9 long polls from one address made a
bystander's GET and a player's command wait 29 s."""

from __future__ import annotations

import json
import select
import socket
from contextlib import ExitStack

from tests.kit import call, served_gruft

THREADS = 20  # gruft serve caps streams and long polls at 16 of them (serving/serve_cli.py)
STREAMS, POLLS = 6, 4  # one address's share of a worker, set below
ANSWER_BOUND = 5  # seconds a client waits for an answer that must come (the probe: 29 s)


def send(port: int, path: str, source: str = "127.0.0.1", token: str | None = None,
         method: str = "GET", body: dict | None = None) -> socket.socket:
    """A request on a connection of its own, from `source` (any 127.x address is this host)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_BOUND,
                                    source_address=(source, 0))
    data = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} {path} HTTP/1.1", "Host: gruft", f"Content-Length: {len(data)}",
            "Content-Type: application/json"]
    if token:
        head.append(f"Authorization: Bearer {token}")
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    return sock


def status_of(sock: socket.socket) -> tuple[int, bytes]:
    """The status of the answer on `sock`, and what was read of it (waits ANSWER_BOUND)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    return int(data.split(b" ", 2)[1]), data


def answered(sock: socket.socket, within: float) -> bool:
    """Whether an answer has begun to arrive (pacing only: a long poll answers nothing)."""
    return bool(select.select([sock], [], [], within)[0])


def test_one_client_holding_all_it_may_leaves_threads_for_others(sqlite_env, tmp_path):
    env = {**sqlite_env, "GRUFT_STREAMS_PER_ADDRESS": str(STREAMS),
           "GRUFT_POLLS_PER_ADDRESS": str(POLLS)}
    with served_gruft(env, tmp_path / "serve.log", threads=THREADS) as port, \
            ExitStack() as held:
        status, created = call(port, "POST", "/games", {"game": "vampir",
                                                        "players": ["A", "B", "C"]})
        assert status == 201, created
        game = created["game_id"]
        version = call(port, "GET", f"/games/{game}")[1]["version"]
        # One client opens streams until refused.
        streams = []
        for _ in range(THREADS):
            sock = held.enter_context(send(port, f"/games/{game}/stream"))
            status, head = status_of(sock)
            if status != 200:
                break
            streams.append(sock)
        # Check it got its share and then a 429 with Retry-After.
        assert len(streams) == STREAMS and status == 429, head
        assert b"Retry-After: 1" in head
        # ... and long polls until refused (a held one answers nothing until the game changes).
        polls = 0
        for _ in range(THREADS):
            sock = held.enter_context(send(port, f"/games/{game}/events?after={version}&wait=30"))
            if answered(sock, 1.0):
                status, head = status_of(sock)
                break
            polls += 1
        assert polls == POLLS and status == 429, head
        # Check another client's command and read are answered meanwhile, and it may open a
        # stream of its own.
        view = call(port, "GET", f"/games/{game}", timeout=ANSWER_BOUND)[1]
        player = view["to_act"][0]
        token = created["player_tokens"][player]
        moves = call(port, "GET", f"/games/{game}/legal-moves", token=token,
                     timeout=ANSWER_BOUND)[1]
        command = send(port, f"/games/{game}/commands", "127.0.0.2", token, "POST",
                       {**moves["moves"][0], "expected_version": view["version"]})
        assert status_of(held.enter_context(command))[0] == 200
        other = held.enter_context(send(port, f"/games/{game}/stream", "127.0.0.2"))
        assert status_of(other)[0] == 200
