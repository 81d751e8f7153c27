"""The stream path of a served worker (issue 21, item 2): its keepalive, its resync and its
cut-off of a slow client, through `gruft serve` — gunicorn, the stream writer sending on the
sockets — as in production. The same writer runs under the Flask test client
(tests/api/test_stream.py), where only how the bytes leave differs.

The games are played here, in the test's own Application on the same SQLite file: a served
worker learns of them from its log follower, as it learns of another worker's commands.
"""

from __future__ import annotations

import random
import socket
import time

from bench.servers import served_gruft
from domain import game_class
from domain.core import HOST
from service import Games
from tests.api.sse import SocketStream
from tests.kit import seats
from tests.service.storage.kit import random_command

READ_TIMEOUT = 10.0  # seconds a stream read may wait for what must come
KEY = "vampire-queen"  # long games: many messages


def new_game(games: Games) -> str:
    players = seats(KEY, game_class(KEY).MAX_PLAYERS)
    return str(games.create_game(KEY, players, seed=3).game_id)


def play(games: Games, gid: str, rng: random.Random) -> int | None:
    """One random legal command; the new version (None: the game is over)."""
    command = random_command(games.game(gid), rng)
    if command is None:
        return None
    return games.command(gid, HOST, command).version


def test_an_idle_served_stream_gets_keepalives_with_pings(sqlite_env, tmp_path):
    games = Games(env=dict(sqlite_env))
    try:
        gid = new_game(games)
        with served_gruft(sqlite_env, tmp_path, workers=1, GRUFT_STREAM_KEEPALIVE="0.2") as served:
            stream = SocketStream(served.port, f"/games/{gid}/stream", timeout=READ_TIMEOUT)
            try:
                assert stream.status == 200
                assert stream.next().data["view"]["game_id"] == gid
                # Check nothing but keepalives comes while nothing happens, each with its ping.
                assert [stream.next() for _ in range(3)] == ["keepalive"] * 3
                assert stream.parsed.pings >= 2
            finally:
                stream.close()
    finally:
        games.close()


def test_a_change_the_worker_was_never_told_of_reaches_the_stream_by_its_resync(
        sqlite_env, tmp_path):
    games = Games(env=dict(sqlite_env))
    try:
        gid = new_game(games)
        # The worker's log follower reads when asked and then once a minute: a command stored
        # here is never announced to it, and only the stream's own resync (every second of
        # idleness here; a minute by default) reads the store and finds it. (Views handed all
        # at once: patient ones make the follower look again when they come due.)
        with served_gruft(sqlite_env, tmp_path, workers=1, GRUFT_STREAM_KEEPALIVE="0.2",
                          GRUFT_STREAM_RESYNC="1", GRUFT_LIVE_POLL="60",
                          GRUFT_VIEWS_PATIENCE="0") as served:
            stream = SocketStream(served.port, f"/games/{gid}/stream", timeout=READ_TIMEOUT)
            try:
                first = stream.next()
                version = play(games, gid, random.Random(1))
                assert version is not None and version > first.id
                # Within 100 keepalives (20 s): long before the follower's next look (60 s).
                update = stream.until_version(version, limit=100)[-1]
                assert update.id == version
                assert update.data["view"]["version"] == version
                # Check it came by the resync: the keepalives before it found nothing new.
                assert stream.parsed.comments.count("keepalive") >= 1
            finally:
                stream.close()
    finally:
        games.close()


def slow_client(port: int, path: str) -> socket.socket:
    """A client that asks for a stream with a small receive window and then never reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return sock


def test_a_served_slow_client_holds_up_nobody_and_is_cut_off(sqlite_env, tmp_path):
    games = Games(env=dict(sqlite_env))
    try:
        gid = new_game(games)
        path = f"/games/{gid}/stream"
        with served_gruft(sqlite_env, tmp_path, workers=1, GRUFT_STREAM_KEEPALIVE="0.5",
                          GRUFT_STREAM_MAX_PENDING="16384") as served:
            slow = slow_client(served.port, path)
            fast = SocketStream(served.port, path, timeout=READ_TIMEOUT)
            rng = random.Random(2)
            try:
                fast.next()
                cut = False
                while not cut:
                    version = play(games, gid, rng)
                    assert version is not None, (
                        "the game ended before the slow client was cut off: "
                        + served.log.read_text()[-2000:])
                    # Check the reading client gets each version at once, whatever the other.
                    assert fast.until_version(version)[-1].id == version
                    cut = "cut off: its client fell" in served.log.read_text()
                # Check the cut-off client's connection ends, with no orderly last chunk.
                slow.settimeout(READ_TIMEOUT)
                got = bytearray()
                deadline = time.monotonic() + READ_TIMEOUT
                while time.monotonic() < deadline:
                    try:
                        data = slow.recv(65536)
                    except ConnectionResetError:
                        break
                    if not data:
                        break
                    got += data
                else:
                    raise AssertionError("the cut-off connection stayed open")
                assert not got.endswith(b"0\r\n\r\n")
                # Check the other stream goes on.
                version = play(games, gid, rng)
                assert fast.until_version(version)[-1].id == version
            finally:
                slow.close()
                fast.close()
    finally:
        games.close()
