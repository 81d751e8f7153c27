"""The requests that hold a worker's thread while they wait: live streams and long polls
(issue 23, item 3).

Each holds one thread of its worker's pool for as long as it is open, so together they are
capped below the pool's size (GRUFT_STREAMS_MAX, set by `gruft serve`: past it 503 with
Retry-After), and threads stay free for commands and every other request. Within that, one
client address holds at most GRUFT_STREAMS_PER_ADDRESS streams and GRUFT_POLLS_PER_ADDRESS long
polls in a worker (past them 429 with Retry-After), so one client cannot take every place from
the others. The probe: 32 streams and 9 long polls from one address made a bystander's GET and
a player's command wait 29 s.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from flask import request
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from api.errors import RETRY_AFTER_SECONDS
from api.settings import settings
from domain.core.words import N_, Phrase
from service import operator_metrics

STREAM, POLL, READ = "stream", "long poll", "heavy read"
OPEN = {STREAM: operator_metrics.STREAMS_OPEN, POLL: operator_metrics.POLLS_OPEN}  # for GET /metrics
PER_ADDRESS = {STREAM: "streams_per_address", POLL: "polls_per_address",
               READ: "reads_per_address"}  # Settings' fields
TOO_MANY = {STREAM: N_("this address holds %(n)s streams open on this worker already, as many "
                       "as one address may; close one or try again later"),
            POLL: N_("this address holds %(n)s long polls open on this worker already, as many "
                     "as one address may; close one or try again later"),
            READ: N_("this address has %(n)s narrations, viewer pages, exports or replay steps "
                     "under way on this worker already, as many as one address may; try again "
                     "when one is answered")}


class Holds:
    """The streams and long polls this worker holds, in all and per (kind, address)."""

    def __init__(self) -> None:
        self.open = 0
        self._by: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def take(self, kind: str, address: str, limit: int | None, per_address: int | None) -> None:
        """Count one more, or refuse it: 429 past the address's share, 503 past the worker's."""
        with self._lock:
            if per_address is not None and self._by[kind, address] >= per_address:
                raise TooManyRequests(Phrase(TOO_MANY[kind], n=per_address),
                                      retry_after=RETRY_AFTER_SECONDS)
            if limit is not None and self.open >= limit:
                raise ServiceUnavailable(
                    Phrase(N_("this worker holds as many streams and long polls as it may; try "
                              "again shortly")), retry_after=RETRY_AFTER_SECONDS)
            self.open += 1
            self._by[kind, address] += 1
        if kind in OPEN:
            OPEN[kind].inc()

    def give(self, kind: str, address: str) -> None:
        """One ended."""
        if kind in OPEN:
            OPEN[kind].dec()
        with self._lock:
            self.open -= 1
            self._by[kind, address] -= 1
            if not self._by[kind, address]:
                del self._by[kind, address]

    @contextmanager
    def holding(self, kind: str) -> Iterator[None]:
        """Hold one place for this request while inside (see `take`); a heavy read counts only
        against its address's share."""
        address = client_address()
        self.take(kind, address, None if kind == READ else holds_max(), per_address(kind))
        try:
            yield
        finally:
            self.give(kind, address)


HOLDS = Holds()  # this process's
# The heavy reads under way (issue 32, item 8), apart: they never take a stream's place.
READS = Holds()


def client_address() -> str:
    """The request's peer address (behind a proxy, the proxy's: see docs/deployment.md)."""
    return request.remote_addr or ""


def holds_max() -> int | None:
    """The most streams and long polls a worker holds (GRUFT_STREAMS_MAX); None: no cap."""
    return settings().streams_max


def per_address(kind: str) -> int | None:
    """The most of `kind` one address holds in a worker; None (set to 0): no cap."""
    return getattr(settings(), PER_ADDRESS[kind]) or None
