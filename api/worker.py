"""One owner per worker: everything an API worker runs, built, started and closed here, in one
stated order, and reached only through it.

The model is eventsourcing's `System` and `Runner` (eventsourcing/system.py): one object that
builds the parts, starts them in order, hands them out and stops them. A worker is one process
serving the API (a gunicorn worker, or a test's app); `create_app` builds its `Worker` and keeps
it as `app.extensions["gruft"]`, the one key, and the routes, `gruft serve`'s WSGI entry
(serving/wsgi.py) and the tests reach every part as `worker().games`, `worker().read_models()`…

Built in this order, each part needing only those before it:

1. `games`: the `Games` Application (service/app.py) — the store, the per-worker repository, the
   live watches, presence and delivery, and the one follower of the log (its thread,
   `gruft-follower`, starts with its first subscriber);
2. `signing_key`: the store's key ring, which signs every accepted command's receipt;
3. `game_log` and its appender (thread `gruft-gamelog`, a subscriber of the follower), and
   `witnessing`: the submitter of its checkpoints to the witnesses GRUFT_WITNESSES names
   (service/audit/witnessing.py; thread `gruft-witnessing`, none without witnesses);
4. `verifier`: the gate of replay documents (the verifying pool is the process's, spawned with
   the first document and shut at exit: api/verifying.py);
5. `read_models()`: the views and, with GRUFT_PROJECTIONS=embedded, the projection runner
   (thread `gruft-projections`) — at once in a served worker, with the first read under tests;
6. `stream_writer()` and the streams' shared messages: the writer thread (`gruft-streams`) is
   made with the first stream;
7. `bot_runner()` and `clock_runner()` (threads `gruft-bots`, `gruft-clocks`), when the worker
   plays the bots (`play_bots()`, serving/wsgi.py; not with GRUFT_BOTS=external) — at once in a
   served worker, with the first bot or clocked game under tests.

`close()` closes them in the reverse order: the runners, the stream writer (its streams end),
the read models (the projection runner, then the views' connections), the witnessing, the game log's
appender (after a catch-up under way), then the Application (live watches, presence, the follower, the
store). Every thread ends before the store closes: a connection closed under a running statement
crashes SQLite's library.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from flask import Flask, current_app

from api.messages import SharedMessages
from api.verifying import Gate, Verifier
from service.app import Games
from service.audit.gamelog import Appender, GameLog
from service.audit.signing import SigningKey
from service.audit.witnessing import Witnessing, parse_witnesses
from service.live.stream_writer import StreamWriter
from service.readmodels import ReadModels
from service.runners.bot_runner import embedded_bots
from service.runners.clock_runner import embedded_clocks
from service.runners.machinery import EmbeddedLoop
from service.settings import Settings, data_dir


class Worker:
    """Everything one API worker runs (see the module's docstring for the order)."""

    def __init__(self, env: Mapping[str, str], settings: Settings | None = None, *,
                 served: bool = False) -> None:
        settings = settings or Settings.read(env)
        self.served = served  # a served worker starts its runners at once
        self._lock = threading.Lock()
        self.closed = False
        # 1. the Application
        self.games = Games(env=dict(env), settings=settings)
        try:
            # 2. the key that signs every accepted command's receipt
            self.signing_key = SigningKey.load_or_create(data_dir(self.games.storage))
            self.games.sign_with(self.signing_key.sign, self.signing_key.key_id)
            # 3. the game log, appended by its own thread, woken by the log follower
            self.game_log = GameLog(self.games, self.signing_key)
        except BaseException:  # a worker that cannot be built leaves nothing running
            self.games.close()
            raise
        self._appender = Appender(self.game_log)
        self.witnessing = Witnessing(self.game_log, parse_witnesses(settings.witnesses),
                                     settings.witnesses_needed).start()
        # 4. the gate of replay documents
        self.verifier = Verifier(settings.verify_processes,
                                 Gate(capacity=settings.verify_queue,
                                      per_address=settings.verify_per_address))
        # 5.-7. made when first needed (or at once, served)
        self._read_models: ReadModels | None = None
        self.messages = SharedMessages()
        self._stream_writer: StreamWriter | None = None
        self.plays_bots = False
        self._bots: EmbeddedLoop | None = None
        self._clocks: EmbeddedLoop | None = None
        if served:
            self.read_models()

    # -- the parts made when first needed ------------------------------------------------------

    def read_models(self) -> ReadModels:
        """The read side (game index, statistics) and, embedded, its projection runner."""
        with self._lock:
            self._check_open()
            if self._read_models is None:
                self._read_models = ReadModels(self.games)
            return self._read_models

    def stream_writer(self) -> StreamWriter:
        """The writer thread of this worker's streams."""
        with self._lock:
            self._check_open()
            if self._stream_writer is None:
                settings = self.games.settings
                self._stream_writer = StreamWriter(self.games, self.messages,
                                                   resync=settings.stream_resync,
                                                   max_pending=settings.stream_max_pending)
            return self._stream_writer

    def play_bots(self) -> None:
        """This worker plays the server's bot seats and the clocks (serving/wsgi.py), unless
        GRUFT_BOTS=external (a `gruft bots` process does): at once when served, else with the
        first bot or clocked game (`runners_look`)."""
        self.plays_bots = self.games.settings.bots != "external"
        if self.plays_bots and self.served:
            self.runners_look()

    def runners_look(self) -> None:
        """A bot or clocked game was made, or a seat handed to a bot: this worker's runners
        (started if need be, when it plays the bots) look now."""
        if self.plays_bots:
            self.bot_runner()
            self.clock_runner()

    def bot_runner(self) -> EmbeddedLoop:
        """The bot runner's thread (started now if need be), told to look."""
        with self._lock:
            self._check_open()
            if self._bots is None:
                self._bots = embedded_bots(self.games)
        self._bots.nudge()
        return self._bots

    def clock_runner(self) -> EmbeddedLoop:
        """The clock runner's thread (started now if need be), told to look."""
        with self._lock:
            self._check_open()
            if self._clocks is None:
                self._clocks = embedded_clocks(self.games)
        self._clocks.nudge()
        return self._clocks

    def running(self, name: str) -> EmbeddedLoop | None:
        """The runner `name` ("bots" or "clocks") if it was started, else None."""
        return {"bots": self._bots, "clocks": self._clocks}[name]

    # -- the end -------------------------------------------------------------------------------

    def close(self) -> None:
        """Close every part, in the reverse of the order they were built (once)."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
        for runner in (self._clocks, self._bots):
            if runner is not None:
                runner.stop()
        if self._stream_writer is not None:
            self._stream_writer.close()
        if self._read_models is not None:
            self._read_models.close()
        self.witnessing.close()
        self._appender.close()
        self.games.close()

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this worker is closed")


def worker(app: Flask | None = None) -> Worker:
    """The worker of `app` (the current app's when none is given)."""
    return (app or current_app).extensions["gruft"]
