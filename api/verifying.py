"""Replay documents verified under a bound (issue 23, item 1).

Verification re-runs a whole game through the rules: seconds of CPU for the largest documents.
So it never runs on the request's own thread where a bystander's request would wait for the
interpreter behind it: each worker hands it to a small pool of processes of lower priority
(GRUFT_VERIFY_PROCESSES, default 1), which parse and verify the raw body there, and the worker
holds no parsed copy: what an import stores (the game re-run there, its annotations and origin)
comes back with the verdict, so the document is verified once, there. A worker takes at most GRUFT_VERIFY_QUEUE documents at once (running and
waiting; past it 503 `unavailable` with Retry-After) and at most GRUFT_VERIFY_PER_ADDRESS from
one client address (past it 429 `rate_limited` with Retry-After). What parsing may cost is
bounded in api.inputs (about ten times the body's size).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app
from werkzeug.exceptions import BadRequest, ServiceUnavailable, TooManyRequests

from api.settings import settings
from domain.core import Game
from domain.core.words import N_, Phrase

RETRY_AFTER_SECONDS = 1
NICENESS = 10  # a verifying process yields the CPU to the workers' request threads


class Gate:
    """How many verifications a worker holds at once, in all and per client address."""

    def __init__(self, capacity: int, per_address: int) -> None:
        self.capacity, self.per_address = capacity, per_address
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()

    @contextmanager
    def slot(self, address: str) -> Iterator[None]:
        """Hold one place for `address` while verifying; 429 or 503 when none is left."""
        with self._lock:
            if self._held[address] >= self.per_address:
                raise TooManyRequests(
                    Phrase(N_("this address is verifying %(n)s document(s) already; send the "
                              "next when one is answered"), n=self.per_address),
                    retry_after=RETRY_AFTER_SECONDS)
            if self._held.total() >= self.capacity:
                raise ServiceUnavailable(
                    Phrase(N_("the server is verifying as many documents as it takes at once; "
                              "nothing was done, try again")), retry_after=RETRY_AFTER_SECONDS)
            self._held[address] += 1
        try:
            yield
        finally:
            with self._lock:
                self._held[address] -= 1
                if not self._held[address]:
                    del self._held[address]

    @property
    def held(self) -> int:
        """Verifications under way or waiting."""
        with self._lock:
            return self._held.total()


class Verifier:
    """A worker's gate and its pool of verifying processes (none: verify in the thread).

    The pool is the process's, shared by every app in it (the tests build hundreds)."""

    _pool: ProcessPoolExecutor | None = None
    _lock = threading.Lock()

    def __init__(self, processes: int, gate: Gate) -> None:
        self.processes, self.gate = processes, gate

    def verified(self, body: bytes, ring: list[str], lang: str = "en",
                 keep: bool = False) -> Verified:
        """What the pool found in a raw document body: its verdict as POST /replays/verify
        answers it (its problems' messages in `lang`), and with `keep`, for an import, what is
        stored of a valid one. 400 for an unreadable body."""
        if not self.processes:
            outcome = verify_body(body, ring, lang, keep)
        else:
            try:
                outcome = self._executor().submit(verify_body, body, ring, lang, keep).result()
            except BrokenProcessPool:  # a verifying process died (killed, out of memory)
                self._discard()
                raise ServiceUnavailable(Phrase(N_("the verifying process stopped; try again")),
                                         retry_after=RETRY_AFTER_SECONDS) from None
        kind, value = outcome
        if kind == "bad":
            raise BadRequest(value)
        return value

    def _executor(self) -> ProcessPoolExecutor:
        cls = type(self)
        with cls._lock:
            if cls._pool is None:
                # spawn, never fork: a served worker has threads (and locks) a fork would copy.
                cls._pool = ProcessPoolExecutor(
                    self.processes, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_child, initargs=(os.getpid(),))
            return cls._pool

    @classmethod
    def _discard(cls) -> None:
        with cls._lock:
            pool, cls._pool = cls._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class Verified:
    """What verifying a document found: the verdict, as POST /replays/verify answers it; the
    document's leaf (its game id, length and last hash: where its game would be in a game log,
    for the retired-key rule, api.replays); and, kept for an import of a valid document, what
    is stored: the game re-run from it (under a new id), its annotations and its origin."""

    verdict: dict[str, Any]
    leaf: dict[str, Any] | None = None
    game: Game | None = None
    annotations: list[dict[str, Any]] | None = None
    origin: dict[str, Any] | None = None


def verify_body(body: bytes, ring: list[str], lang: str = "en",
                keep: bool = False) -> tuple[str, Any]:
    """Parse and verify a document body: ("ok", Verified, its problems said in `lang` from the
    catalogs, as the process has no request; with `keep`, what an import of a valid one
    stores) or ("bad", why unreadable)."""
    from api.inputs import parse_body
    from replays.document import verify
    from service.audit.arbiter import origin_of
    from service.audit.gamelog import leaf_of
    from service.audit.signing import check_signature
    from service.catalogs import translations

    try:
        document = parse_body(body)
    except BadRequest as exc:
        return "bad", exc.description
    verdict = verify(document, trusted_keys=ring, check_signature=check_signature)
    said = verdict.as_json(translations(lang).gettext)
    if verdict.signature != "verified":  # no key vouches for it: no leaf to look up
        return "ok", Verified(said)
    events = document["events"]
    leaf = leaf_of(str(document["game_id"]), len(events), events[-1]["hash"])
    if not keep or not verdict.valid:
        return "ok", Verified(said, leaf)
    return "ok", Verified(said, leaf, verdict.game, document.get("annotations"),
                          origin_of(document, verdict.key_id))


def _start_child(parent: int) -> None:
    """A verifying process: lower priority, and gone when its worker is (even if killed)."""
    os.nice(NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="gruft-verify-watch", daemon=True).start()


def verifier() -> Verifier:
    """This app's verifier."""
    return current_app.extensions["gruft.verifier"]


def init_app(app: Flask) -> None:
    """GRUFT_VERIFY_PROCESSES, GRUFT_VERIFY_QUEUE, GRUFT_VERIFY_PER_ADDRESS."""
    config = settings(app)
    gate = Gate(capacity=config.verify_queue, per_address=config.verify_per_address)
    app.extensions["gruft.verifier"] = Verifier(config.verify_processes, gate)
