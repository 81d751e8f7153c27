"""A small TCP proxy for the browser tests that cut the network for real.

The browser talks to the served gruft through it. `reset()` breaks every connection at once with
a TCP reset (what a phone changing networks or a router restart does), and `black_hole()` keeps
connections open while nothing passes either way (a silently dead link: only a missing heartbeat
tells); new connections are refused, or held, until `restore()`.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

CHUNK = 65536


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), not a polite FIN."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()


class Proxy:
    """127.0.0.1:<port> forwarding to 127.0.0.1:<upstream>, cut and restored on demand."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.mode = "open"  # "open" | "refuse" | "black"
        self.lock = threading.Lock()
        self.pairs: list[tuple[socket.socket, socket.socket | None]] = []
        self.accepted = 0
        self.closed = False
        threading.Thread(target=self._accept, daemon=True, name="netcut-accept").start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- the cuts ---------------------------------------------------------------------------

    def reset(self) -> None:
        """Reset every connection now, and refuse (reset) new ones until restored."""
        with self.lock:
            self.mode = "refuse"
            pairs, self.pairs = self.pairs, []
        for client, server in pairs:
            _reset(client)
            if server is not None:
                _reset(server)

    def black_hole(self) -> None:
        """From now on nothing passes, either way, on any connection; nothing is closed."""
        with self.lock:
            self.mode = "black"

    def restore(self) -> None:
        """The network is back: connections opened during a black hole are reset (as their
        peers long gave up on them), and new ones pass again."""
        with self.lock:
            was, self.mode = self.mode, "open"
            stale = self.pairs if was == "black" else []
            if was == "black":
                self.pairs = []
        for client, server in stale:
            _reset(client)
            if server is not None:
                _reset(server)

    def close(self) -> None:
        self.closed = True
        self.reset()
        with contextlib.suppress(OSError):
            self.listener.close()

    # -- forwarding -------------------------------------------------------------------------

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            with self.lock:
                mode = self.mode
            if mode == "refuse":
                _reset(client)
                continue
            if mode == "black":  # held: the browser waits on it until it gives up
                with self.lock:
                    self.pairs.append((client, None))
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                _reset(client)
                continue
            with self.lock:
                self.pairs.append((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True,
                                 name="netcut-pump").start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(CHUNK)
                if not data:
                    break
                if self.mode == "black":
                    continue  # swallowed: the link is dead without saying so
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)
