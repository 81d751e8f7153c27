"""Live streams under load: how soon a command reaches every stream of its game, and what open
streams cost the commands (`gruft bench`'s stream figures).

Many Server-Sent Events streams (`GET /games/{id}/stream`, several per game: each seat's own and
spectators) are held by one selector thread of the benchmarking process (`StreamHolder`):
non-blocking sockets speaking raw HTTP/1.1, reading only each message's `id:` line (the version
it brings), so a thousand streams cost the client little. Meanwhile the load generator's mirror
players (bench.load) send commands to those games. For each command answered, the delay is
from the moment its answer was read to the moment the last of its game's streams delivered a
message of that version or later (a stream may coalesce several commands into one message).
The same load is also run against fresh games with no stream open: commands per second with
the streams against without is the streams' cost.
"""

from __future__ import annotations

import bisect
import errno
import selectors
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.load import (
    Connection,
    MirroredGame,
    MirrorPlayer,
    Recorder,
    Run,
    create_mirrored,
    drive,
    percentile,
)
from domain import available_games

MAX_CONNECTING = 100  # streams being opened at once (the server answers each with a full view)


class Stream:
    """One SSE stream: the HTTP exchange and its messages' ids with their arrival times."""

    def __init__(self, game_id: str, token: str | None) -> None:
        self.game_id, self.token = game_id, token
        self.sock: socket.socket | None = None
        self.status = 0  # the HTTP status, once the headers are read
        self.chunked = False
        self.head = bytearray()  # until the headers end
        self.raw = bytearray()  # chunked body not yet decoded
        self.chunk_left = 0  # bytes of the current chunk still to come
        self.need_crlf = False  # the CRLF that closes a chunk
        self.text = bytearray()  # decoded body not yet split into messages
        self.ids: list[int] = []  # versions of the messages received, in order
        self.times: list[float] = []  # when each arrived (time.perf_counter)
        self.ended = False  # the server ended the stream (the game is over) or closed it
        self.failed = ""  # why it could not be opened

    def request(self, port: int) -> bytes:
        """The HTTP/1.1 request that opens the stream."""
        auth = f"Authorization: Bearer {self.token}\r\n" if self.token else ""
        return (f"GET /games/{self.game_id}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Accept: text/event-stream\r\n{auth}\r\n").encode("ascii")

    def feed(self, data: bytes, now: float) -> None:
        """Bytes read from the socket."""
        if not self.status:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(self.head[:end]).decode("latin-1").split("\r\n")
            self.status = int(lines[0].split()[1])
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in lines[1:])}
            self.chunked = headers.get("transfer-encoding", "").lower() == "chunked"
            data = bytes(self.head[end + 4:])
            self.head.clear()
            if self.status != 200:
                self.failed = f"status {self.status}"
                self.ended = True
                return
        if self.chunked:
            self.raw += data
            self._dechunk()
        else:
            self.text += data
        self._messages(now)

    def _dechunk(self) -> None:
        raw = self.raw
        while not self.ended:  # after the last chunk come only trailers
            if self.chunk_left:
                take = min(self.chunk_left, len(raw))
                if not take:
                    return
                self.text += raw[:take]
                del raw[:take]
                self.chunk_left -= take
                if self.chunk_left:
                    return
                self.need_crlf = True
            if self.need_crlf:
                if len(raw) < 2:
                    return
                del raw[:2]
                self.need_crlf = False
            line_end = raw.find(b"\r\n")
            if line_end < 0:
                return
            size = int(bytes(raw[:line_end]).split(b";")[0], 16)
            del raw[:line_end + 2]
            if size == 0:  # the last chunk: the server ended the stream
                self.ended = True
                return
            self.chunk_left = size

    def _messages(self, now: float) -> None:
        text = self.text
        if b"\r" in text:  # SSE lines may end with CRLF as well as LF
            text[:] = text.replace(b"\r\n", b"\n")
        while True:
            end = text.find(b"\n\n")
            if end < 0:
                return
            # A message's id line: first, or after another field (never inside the JSON data,
            # which is one line); a comment (": keepalive") has none.
            if text.startswith(b"id:"):
                at = 0
            else:
                at = text.find(b"\nid:", 0, end)
                at = at + 1 if at >= 0 else -1
            if at >= 0:
                line_end = text.find(b"\n", at)
                self.ids.append(int(text[at + 3:line_end]))
                self.times.append(now)
            del text[:end + 2]

    def arrival(self, version: int) -> float | None:
        """When the first message of `version` or later arrived, if one did."""
        i = bisect.bisect_left(self.ids, version)
        return self.times[i] if i < len(self.ids) else None


class StreamHolder:
    """Opens and holds many streams on one selector thread until stopped."""

    def __init__(self, port: int, streams: list[Stream]) -> None:
        self.port = port
        self.streams = streams
        self.selector = selectors.DefaultSelector()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="stream-holder", daemon=True)
        self.waiting = list(reversed(streams))  # not yet opened
        self.opening = 0  # opened, first message not yet received

    def start(self) -> StreamHolder:
        self.thread.start()
        return self

    def stop(self) -> None:
        """Close every stream and end the thread."""
        self.stopping.set()
        self.thread.join(timeout=30)

    @property
    def ready(self) -> int:
        """Streams that delivered their first message."""
        return sum(1 for s in self.streams if s.ids)

    @property
    def failed(self) -> list[Stream]:
        return [s for s in self.streams if s.failed]

    def wait(self, condition: Any, timeout: float) -> bool:
        """Poll `condition()` until true or `timeout` seconds pass."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline or not self.thread.is_alive():
                return False
            time.sleep(0.05)
        return True

    def _open(self, stream: Stream) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        code = sock.connect_ex(("127.0.0.1", self.port))
        if code not in (0, errno.EINPROGRESS):
            sock.close()
            stream.failed, stream.ended = f"connect: {errno.errorcode.get(code, code)}", True
            return
        stream.sock = sock
        self.opening += 1
        self.selector.register(sock, selectors.EVENT_WRITE, stream)

    def _close(self, stream: Stream) -> None:
        if stream.sock is not None:
            self.selector.unregister(stream.sock)
            stream.sock.close()
            stream.sock = None
        if not stream.ids:
            self.opening -= 1

    def _run(self) -> None:
        recv = bytearray(1 << 18)
        view = memoryview(recv)
        try:
            while not self.stopping.is_set():
                while self.waiting and self.opening < MAX_CONNECTING:
                    self._open(self.waiting.pop())
                for key, mask in self.selector.select(timeout=0.05):
                    stream: Stream = key.data
                    sock = stream.sock
                    if mask & selectors.EVENT_WRITE:
                        error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                        if error:
                            stream.failed, stream.ended = f"connect: {errno.errorcode.get(error)}", True
                            self._close(stream)
                            continue
                        sock.sendall(stream.request(self.port))  # a few hundred bytes
                        self.selector.modify(sock, selectors.EVENT_READ, stream)
                        continue
                    now = time.perf_counter()
                    had = bool(stream.ids)
                    while True:
                        try:
                            n = sock.recv_into(recv)
                        except BlockingIOError:
                            break
                        except OSError as exc:
                            stream.failed = stream.failed or f"recv: {exc}"
                            n = 0
                        if n == 0:
                            stream.ended = True
                            break
                        stream.feed(view[:n], now)
                        if stream.ended:
                            break
                    if stream.ids and not had:
                        self.opening -= 1
                    if stream.ended:
                        self._close(stream)
        finally:
            for stream in self.streams:
                if stream.sock is not None:
                    self._close(stream)
            self.selector.close()


@dataclass
class StreamRound:
    """One round of the stream measurement: the load with streams open, and without."""

    with_streams: Run
    without: Run
    latencies_ms: list[float] = field(default_factory=list)  # per command answered
    first_ms: list[float] = field(default_factory=list)  # the same, to the first of its streams
    missed: int = 0  # commands whose update some stream of the game never delivered
    streams: int = 0  # streams open (their first message received) when the load began
    failed: int = 0  # streams that could not be opened


def make_games(port: int, count: int, seed: int) -> list[MirroredGame]:
    """`count` games of every kind in turn, created over the API and mirrored."""
    conn = Connection(port, Recorder(), keep_alive=True)
    keys = available_games()
    return [create_mirrored(conn, keys[n % len(keys)], seed * 10_000 + n) for n in range(count)]


def game_streams(game: MirroredGame, per_game: int) -> list[Stream]:
    """Each seat's own stream, then spectators' (no token), `per_game` in all."""
    tokens: list[str | None] = list(game.player_tokens.values())[:per_game]
    tokens += [None] * (per_game - len(tokens))
    return [Stream(game.game_id, token) for token in tokens]


def command_load(port: int, games: list[MirroredGame], clients: int, seconds: float,
                 max_steps: int, seed: int, answered: Any = None) -> Run:
    """The mirror players, each playing its share of `games` in turn."""
    def make(i: int, recorder: Recorder) -> MirrorPlayer:
        return MirrorPlayer(Connection(port, recorder), seed * 100 + i, games=games[i::clients],
                            answered=answered)

    return drive(clients, seconds, max_steps, make)


def abort_all(port: int, games: list[MirroredGame]) -> None:
    """Abort the games still in play, so the server ends their streams (and frees their threads)."""
    conn = Connection(port, Recorder(), keep_alive=True, timeout=5.0)
    for game in games:
        if not game.local.finished:
            try:
                conn.call("abort", "POST", f"/games/{game.game_id}/abort",
                          {"reason": "benchmark round over"}, token=game.host_token)
            except OSError:
                return  # the server does not answer: closing the streams is all we can do


def streamed_load(port: int, games: list[MirroredGame], per_game: int, clients: int,
                  seconds: float, max_steps: int, seed: int) -> StreamRound:
    """The command load with `per_game` streams open on each game; the delays it measured."""
    streams = {g.game_id: game_streams(g, per_game) for g in games}
    holder = StreamHolder(port, [s for group in streams.values() for s in group]).start()
    answers: list[tuple[str, int, float]] = []

    def answered(game: MirroredGame, move: dict, answer: dict, at: float) -> None:
        if game.game_id in streams:  # not a game started since, when these were over
            answers.append((game.game_id, answer["version"], at))  # list.append is atomic

    def caught_up() -> bool:
        return all(s.ended or (s.ids and s.ids[-1] >= last.get(g, 0))
                   for g, group in streams.items() for s in group)

    try:
        total = len(holder.streams)
        holder.wait(lambda: holder.ready + len(holder.failed) >= total, 120)
        result = StreamRound(Run(0, {}, Counter(), Counter()), Run(0, {}, Counter(), Counter()),
                             streams=holder.ready, failed=len(holder.failed))
        result.with_streams = command_load(port, games, clients, seconds, max_steps, seed,
                                           answered)
        last: dict[str, int] = {}
        for game_id, version, _ in answers:
            last[game_id] = max(last.get(game_id, 0), version)
        holder.wait(caught_up, 10)  # updates of the last commands may still be on their way
        for game_id, version, at in answers:
            arrivals = [s.arrival(version) for s in streams[game_id] if not s.failed]
            if any(t is None for t in arrivals):
                result.missed += 1
            elif arrivals:
                result.latencies_ms.append(max(0.0, (max(arrivals) - at) * 1000))
                result.first_ms.append(max(0.0, (min(arrivals) - at) * 1000))
        abort_all(port, games)
        holder.wait(lambda: all(s.ended for s in holder.streams), 10)
    finally:
        holder.stop()
    return result


def stream_round(port: int, games: int, per_game: int, clients: int, seconds: float,
                 max_steps: int, seed: int, streams_first: bool) -> StreamRound:
    """The same load on fresh games of the same seeds, with `per_game` streams per game open
    and with none; the order alternates between rounds (`streams_first`)."""
    result: StreamRound | None = None
    without: Run | None = None
    for streamed in ((True, False) if streams_first else (False, True)):
        played = make_games(port, games, seed)
        if streamed:
            result = streamed_load(port, played, per_game, clients, seconds, max_steps, seed)
        else:
            without = command_load(port, played, clients, seconds, max_steps, seed)
    assert result is not None and without is not None
    result.without = without
    return result


@dataclass
class StreamFigures:
    """The stream measurement over all rounds."""

    rounds: list[StreamRound]
    games: int
    per_game: int

    @property
    def latencies_ms(self) -> list[float]:
        return [ms for r in self.rounds for ms in r.latencies_ms]

    def update_percentile(self, q: float, first: bool = False) -> float:
        """The q-th percentile of the delay from a command's answer to its update on every
        stream of its game (or on the `first` of them), in ms."""
        return percentile([ms for r in self.rounds for ms in (r.first_ms if first
                                                             else r.latencies_ms)], q)

    @property
    def best_with(self) -> Run:
        return max((r.with_streams for r in self.rounds), key=lambda run: run.per_s)

    @property
    def best_without(self) -> Run:
        return max((r.without for r in self.rounds), key=lambda run: run.per_s)


def stream_figures(port: int, rounds: int, games: int, per_game: int, clients: int,
                   seconds: float, max_steps: int, seed: int) -> StreamFigures:
    """`rounds` stream rounds, each with fresh games."""
    done = [stream_round(port, games, per_game, clients, seconds, max_steps,
                         seed * 1000 + n, streams_first=n % 2 == 1) for n in range(rounds)]
    return StreamFigures(done, games, per_game)
