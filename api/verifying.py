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
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from werkzeug.exceptions import BadRequest, ServiceUnavailable, TooManyRequests

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

    def verified(self, job: Callable[..., tuple[str, Any]], body: bytes, ring: list[str],
                 lang: str = "en", keep: bool = False) -> Any:
        """What the pool found in a raw document body (api.verdicts.Verified): its verdict as
        POST /replays/verify answers it (its problems' messages in `lang`), and with `keep`, for
        an import, what is stored of a valid one: `job` (api.verdicts.verify_body) run in the
        pool. 400 for an unreadable body."""
        if not self.processes:
            outcome = job(body, ring, lang, keep)
        else:
            try:
                outcome = self._executor().submit(job, body, ring, lang, keep).result()
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


def _start_child(parent: int) -> None:
    """A verifying process: lower priority, and gone when its worker is (even if killed)."""
    os.nice(NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="gruft-verify-watch", daemon=True).start()
