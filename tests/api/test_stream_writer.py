"""service.live.stream_writer: one thread writes every stream of a worker after its first message; a slow
client never holds up the others, and one that falls too far behind is cut off.

The writer is driven here on socket pairs (the served streams go through it in
tests/service/storage/test_live_serve.py): the far end of each pair is the client.
"""

from __future__ import annotations

import json
import random
import re
import socket
import time

import pytest

from api.messages import SharedMessages
from domain.core import HOST, SPECTATOR, Viewer
from service import Games
from service.live import stream_writer
from tests.service.storage.kit import new_game, random_command

WAIT = 20.0  # seconds a read may wait for what must come


def chunks(data: bytes) -> list[bytes]:
    """The bodies of the HTTP/1.1 chunk frames in `data` (whole frames only)."""
    bodies, at = [], 0
    while True:
        end = data.find(b"\r\n", at)
        if end < 0:
            return bodies
        size = int(data[at:end], 16)
        if len(data) < end + 2 + size + 2:
            return bodies
        assert data[end + 2 + size:end + 4 + size] == b"\r\n"
        bodies.append(data[end + 2:end + 2 + size])
        at = end + 4 + size


def read_until(client: socket.socket, got: bytearray, done) -> None:
    """Read from `client` into `got` until `done(got)`; fails after WAIT seconds."""
    client.settimeout(0.2)
    deadline = time.monotonic() + WAIT
    while not done(got):
        assert time.monotonic() < deadline, "nothing more came"
        try:
            data = client.recv(65536)
        except TimeoutError:
            continue
        if not data:
            return
        got += data


def ids(got: bytes) -> list[int]:
    return [int(m) for body in chunks(got) for m in re.findall(rb"^id: (\d+)$", body, re.M)]


@pytest.fixture
def store(sqlite_env):
    games = Games(env=sqlite_env)
    yield games
    games.live.stop_watches()  # ends the writer's streams at its next tick
    games.close()


def tcp_pair(buffer: int | None = None) -> tuple[socket.socket, socket.socket]:
    """A connected (server, client) pair over loopback TCP; `buffer`: both ends' buffer sizes."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.socket()
        if buffer:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer)
        client.connect(listener.getsockname())
        server, _ = listener.accept()
    if buffer:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, buffer)
    return server, client


def handed(writer, games: Games, gid, keep: list, buffer: int | None = None,
           viewer: Viewer = SPECTATOR) -> tuple[socket.socket, object, socket.socket]:
    """A stream of `viewer` handed to the writer at the game's version;
    (client, outlet, server)."""
    server, client = tcp_pair(buffer)
    keep += [server, client]
    watch = games.live.watch(gid)
    keep.append(watch)
    version = games.delivery.current(gid).version
    args = {"game_id": gid, "viewer": viewer, "player": None}
    return client, writer.add(watch, args, version, 15.0, "/test", server), server


def test_a_slow_client_holds_up_nobody_and_is_cut_off_when_too_far_behind(store):
    writer = stream_writer.StreamWriter(store, SharedMessages(), max_pending=16 * 1024,
                                        send_buffer=4096)
    gid = new_game(store, "vampiring")
    keep: list = []
    fast, fast_outlet, _ = handed(writer, store, gid, keep)
    slow, slow_outlet, _ = handed(writer, store, gid, keep, buffer=4096)
    rng, got, versions = random.Random(4), bytearray(), []
    while not slow_outlet.done.is_set():  # the slow client never reads
        command = random_command(store.game(gid), rng)
        if command is None:
            break
        versions.append(store.command(gid, HOST, command).version)
        # Check the reading client gets each version at once, whatever the other one does.
        read_until(fast, got, lambda g: versions[-1] in ids(g))
    assert slow_outlet.done.wait(WAIT) and slow_outlet.gone, "the slow client was never cut off"
    assert not fast_outlet.done.is_set()
    assert ids(got) == sorted(set(ids(got))) and ids(got)[-1] == versions[-1]
    # Check the cut-off client's connection was shut: what it got ends, and ends mid-way or at
    # a whole frame, never with a last chunk after a frame cut short.
    slow.settimeout(WAIT)
    rest = bytearray()
    while data := slow.recv(65536):
        rest += data
    assert b"0\r\n\r\n" not in rest[-5:]


def test_each_version_once_in_order_and_the_last_message_ends_the_stream(store):
    writer = stream_writer.StreamWriter(store, SharedMessages())
    gid = new_game(store, "vampir")
    keep: list = []
    seat = Viewer(player=store.game(gid).players[0])
    streams = {viewer: handed(writer, store, gid, keep, viewer=viewer)
               for viewer in (SPECTATOR, seat)}
    start = store.game(gid).version
    rng, logs = random.Random(7), {}
    while (command := random_command(store.game(gid), rng)) is not None:
        # What the log shows each viewer while the game is in play (the end reveals more).
        logs = {viewer: store.reads.log(gid, viewer, after=start, limit=1000)[0] for viewer in streams}
        store.command(gid, HOST, command)
    game = store.game(gid)
    assert game.finished
    for viewer, (client, outlet, _) in streams.items():
        got = bytearray()
        read_until(client, got, lambda g: game.version in ids(g))
        assert outlet.done.wait(WAIT) and not outlet.gone
        seen = ids(got)
        assert seen == sorted(set(seen)) and seen[-1] == game.version
        # Check the messages show this viewer what the log and the view show it, no more.
        data = [json.loads(body.split(b"\ndata: ", 1)[1]) for body in chunks(got)
                if body.startswith(b"id:")]
        streamed = [e for message in data for e in message["events"]]
        assert streamed[:len(logs[viewer])] == logs[viewer]
        assert [e["version"] for e in streamed] == list(range(start + 1, game.version + 1))
        assert data[-1]["view"] == store.reads.view(gid, viewer)
