"""Slow and idle clients cost only their own connection (issue 32, item 1): `gruft serve` reads
each request whole, under deadlines, before a thread serves it, and caps connections per address
before reading anything (serving/reading_worker.py).

The probe: 2,400 connections from one address each sending half a request froze the server (a
bystander got no answer within 40 s); a single half-sent request still held its thread after
90 s; 2,500 idle connections reopened as fast as they were dropped made a bystander wait ~4 s.
Here a served gruft of 20 threads meets the same attacks, ten times its threads, from 127.0.0.3
(any 127.x address is this host); a bystander on 127.0.0.1 must be answered while they hold.
No test times anything: a bystander's socket timeout (ANSWER_BOUND) is the failure.
docs/deployment.md has the figures measured with 2,500 connections.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from tests.kit import call, served_gruft, wait_until

THREADS = 20
ATTACK = 10 * THREADS  # the attacker's connections, every thread's worth many times over
ATTACKER = "127.0.0.3"
HALF = b"GET /games HTTP/1.1\r\nHost: x\r\nX-a: "  # the probe's half-sent request
ANSWER_BOUND = 10  # seconds a bystander waits for an answer that must come (the probe: > 40 s)
CLOSE_BOUND = 30  # seconds a client waits for the server to close what it must close


def connect(port: int, source: str = ATTACKER, timeout: float = CLOSE_BOUND) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                    source_address=(source, 0))


def ending(sock: socket.socket) -> str | None:
    """How the server ends `sock` within its timeout ("closed" or "reset"), reading and dropping
    whatever it says first; None when the timeout passes first."""
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        return "reset"
    return "closed"


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes `sock` (an end of file or a reset) within its timeout."""
    return ending(sock) is not None


def open_attack(port: int, held: ExitStack, send: bytes = b"") -> int:
    """ATTACK connections from the attacker, each sending `send`; how many the server let it
    send on (past its per-address cap it resets them)."""
    sent = 0
    for _ in range(ATTACK):
        sock = held.enter_context(connect(port))
        try:
            sock.sendall(send)
            sent += 1
        except OSError:  # reset already: past the address's cap
            pass
    return sent


def bystander(port: int, game: dict) -> None:
    """A player's view, legal moves and command, each on a connection of its own."""
    game_id = game["game_id"]
    view = call(port, "GET", f"/games/{game_id}", timeout=ANSWER_BOUND)
    assert view[0] == 200, view
    player = view[1]["to_act"][0]
    token = game["player_tokens"][player]
    moves = call(port, "GET", f"/games/{game_id}/legal-moves", token=token, timeout=ANSWER_BOUND)
    assert moves[0] == 200, moves
    done = call(port, "POST", f"/games/{game_id}/commands",
                {**moves[1]["moves"][0], "expected_version": view[1]["version"]}, token=token,
                timeout=ANSWER_BOUND)
    assert done[0] == 200, done


@contextmanager
def served(sqlite_env, tmp_path, **settings: str) -> Iterator[tuple[int, dict]]:
    """gruft serve (1 worker of THREADS threads) and a game of Vampir made on it."""
    with served_gruft({**sqlite_env, **settings}, tmp_path / "serve.log",
                      threads=THREADS) as port:
        status, game = call(port, "POST", "/games", {"game": "vampir",
                                                     "players": ["A", "B", "C"]})
        assert status == 201, game
        yield port, game


def test_half_sent_requests_hold_no_thread_and_are_closed_at_their_deadline(sqlite_env,
                                                                           tmp_path):
    with served(sqlite_env, tmp_path, GRUFT_HEADER_TIMEOUT="2") as (port, game), \
            ExitStack() as held:
        # The probe's attack: connections each sending half a request, and no more.
        sent = open_attack(port, held, HALF)
        assert sent > THREADS  # more than every thread, had each been given one
        # Check a bystander is answered while the attack holds.
        bystander(port, game)
        # Check a half-sent request is closed once its headers are late (the probe: still
        # open after 90 s), and the bystander is answered again after.
        late = held.enter_context(connect(port))
        late.sendall(HALF)
        assert closed_by_server(late)
        bystander(port, game)


def answers(sock: socket.socket, count: int) -> list[int]:
    """The statuses of the next `count` answers on `sock` (each read whole by its length)."""
    statuses, data = [], b""
    while len(statuses) < count:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, (statuses, data)
            data += chunk
        head, data = data.split(b"\r\n\r\n", 1)
        if head.startswith(b"HTTP/1.1 100 "):
            continue  # an interim answer
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")))
        while len(data) < length:
            data += sock.recv(65536)
        statuses.append(int(head.split(b" ")[1]))
        data = data[length:]
    return statuses


def test_a_body_that_does_not_come_is_closed_at_its_deadline(sqlite_env, tmp_path):
    with served(sqlite_env, tmp_path, GRUFT_BODY_TIMEOUT="1") as (port, game), \
            ExitStack() as held:
        # Check requests read whole before a thread gets them are answered as before: a body
        # sent in pieces, a chunked one, one sent after `100 Continue`, and two requests
        # pipelined on a kept-alive connection.
        body = b'{"game": "vampir", "players": ["A", "B", "C"]}'
        head = (b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n" % len(body))
        sock = held.enter_context(connect(port, "127.0.0.1"))
        for piece in (head, b"\r\n", body[:5], body[5:]):
            sock.sendall(piece)
        chunked = (b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%b\r\n0\r\n\r\n" % (len(body), body))
        sock.sendall(chunked[:60])
        sock.sendall(chunked[60:])
        assert answers(sock, 2) == [201, 201]
        sock.sendall(head + b"Expect: 100-continue\r\n\r\n")
        assert sock.recv(25) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        assert answers(sock, 1) == [201]
        sock.sendall(b"GET /games/%b HTTP/1.1\r\nHost: x\r\n\r\n" % game["game_id"].encode() * 2)
        assert answers(sock, 2) == [200, 200]
        # Headers whole, a body of 100 bytes promised, 3 sent.
        for _ in range(ATTACK // 4):
            sock = held.enter_context(connect(port))
            sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                         b"\r\nContent-Length: 100\r\n\r\n{\"g")
        bystander(port, game)
        assert closed_by_server(sock)
        # A replay document over 1 MiB is read by its thread (the app takes one per address at
        # a time): check one that stops coming is refused after the same silence.
        doc = held.enter_context(connect(port, "127.0.0.1"))
        doc.sendall(b"POST /replays/verify HTTP/1.1\r\nHost: x\r\nContent-Type: "
                    b"application/json\r\nContent-Length: %d\r\n\r\n{\"g" % (2 << 20))
        assert answers(doc, 1) == [400]
        assert closed_by_server(doc)


def test_idle_connections_reopened_as_fast_as_dropped_leave_a_bystander_answered(sqlite_env,
                                                                                  tmp_path):
    with served(sqlite_env, tmp_path, GRUFT_HEADER_TIMEOUT="1") as (port, game):
        # The probe's second attack: idle connections, each reopened once the server drops it.
        stop = threading.Event()
        reopened = [0]

        def attack() -> None:
            with selectors.DefaultSelector() as watch:
                def reopen() -> None:
                    try:
                        sock = connect(port, timeout=1)
                    except OSError:  # the backlog is full: the next round tries again
                        return
                    sock.setblocking(False)
                    watch.register(sock, selectors.EVENT_READ)
                    reopened[0] += 1

                for _ in range(ATTACK):
                    reopen()
                while not stop.is_set():
                    # A connection the server closed (or reset, or answered) is readable.
                    for key, _ in watch.select(0.05):
                        watch.unregister(key.fileobj)
                        key.fileobj.close()
                        reopen()
                    for _ in range(ATTACK - len(watch.get_map())):
                        reopen()
                for key in list(watch.get_map().values()):
                    key.fileobj.close()

        thread = threading.Thread(target=attack, daemon=True)
        thread.start()
        try:
            wait_until(lambda: reopened[0] > 2 * ATTACK, "the attacker to reopen connections")
            # Check a bystander is answered while the attack holds, again and again.
            for _ in range(3):
                bystander(port, game)
        finally:
            stop.set()
            thread.join(CLOSE_BOUND)
        assert not thread.is_alive()


def test_connections_past_an_address_s_share_are_closed_before_anything_is_read(sqlite_env,
                                                                              tmp_path):
    share = 8
    with served(sqlite_env, tmp_path, GRUFT_CONNECTIONS_PER_ADDRESS=str(share),
                GRUFT_HEADER_TIMEOUT="600") as (port, game), ExitStack() as held:
        # Idle connections, as many as the address may hold: they stay open.
        idle = [held.enter_context(connect(port)) for _ in range(share)]
        # Check one more is closed at once, unanswered: a reset, nothing read, no thread.
        extra = held.enter_context(connect(port))
        assert ending(extra) == "reset"
        # ... while another address is served, and the first ones were closed by no one.
        bystander(port, game)
        for sock in idle:
            sock.settimeout(0.01)
            assert not closed_by_server(sock)
        # Check a connection closed gives its place back.
        idle.pop().close()
        wait_until(lambda: answered_on(port), "a place to come back to the address")


def answered_on(port: int) -> bool:
    """Whether a request from the attacker's address is answered now."""
    with connect(port, timeout=ANSWER_BOUND) as sock:
        try:
            sock.sendall(b"GET /signing-key HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return sock.recv(12).startswith(b"HTTP/1.1 200")
        except OSError:
            return False


def error_of(sock: socket.socket) -> tuple[int, dict, bytes]:
    """The status, error body and head of the one answer on `sock` (the server closes it)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    return int(head.split(b" ")[1]), json.loads(body)["error"], head


def test_what_one_address_has_being_read_is_bounded(sqlite_env, tmp_path):
    with served(sqlite_env, tmp_path) as (port, game), ExitStack() as held:
        # Fail headers past 64 KiB that never end: a 400 of the API's shape, then closed.
        sock = held.enter_context(connect(port))
        sock.sendall(b"GET /games HTTP/1.1\r\nHost: x\r\n" + b"X-a: %s\r\n" % (b"a" * 1000) * 70)
        status, error, _ = error_of(sock)
        assert (status, error["code"]) == (400, "bad_request"), error
        # Bodies of 1 MiB each, all but their last byte sent: past 8.5 MiB being read for one
        # address, its connections are read no further for now (TCP holds the sender back).
        # Each is sent from a thread of its own: how much of a body the kernel buffers while
        # the server reads no further is the kernel's affair (a blocked send timed out here).
        waiting, finish, failed = [], threading.Event(), []

        def send(sock: socket.socket) -> None:
            try:
                sock.sendall(b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: "
                             b"application/json\r\nContent-Length: %d\r\n\r\n" % (1 << 20)
                             + b" " * ((1 << 20) - 1))
                finish.wait()
                sock.sendall(b"x")
            except OSError as exc:
                failed.append(exc)

        senders = []
        for _ in range(10):
            sock = held.enter_context(connect(port))
            sock.settimeout(None)  # the sender waits for as long as the server holds it back
            waiting.append(sock)
            senders.append(threading.Thread(target=send, args=(sock,), daemon=True))
            senders[-1].start()
        # Check a bystander is answered meanwhile, and each body, finished, is answered (not a
        # game: a 400 from the app), the ones held back once the first are.
        bystander(port, game)
        finish.set()
        for sock in waiting:
            sock.settimeout(CLOSE_BOUND * 4)
        assert [answers(sock, 1)[0] for sock in waiting] == [400] * 10
        assert not failed, failed
