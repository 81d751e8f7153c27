"""What the service counts for operators (issue 23, item 9), served at GET /metrics (api/metrics.py).

prometheus_client keeps each process's values in files under PROMETHEUS_MULTIPROC_DIR when it
is set (`gruft serve` sets it before gunicorn starts the workers), and the worker answering
/metrics sums them: counters add up over the workers, the gauges of open streams and polls and
of runners are summed over the live workers, the follower's the furthest behind of them. Without
it (one process: the tests' apps, `gruft bots`), the values are the process's own.

Values set here are the ones only the process that knows them can set; what any worker can read
from the store (the log's head, the read models' position) is read when /metrics is answered.
"""

from __future__ import annotations

import os
import threading
from typing import Any


def _folder() -> None:
    """prometheus_client writes under PROMETHEUS_MULTIPROC_DIR from the first metric made (at
    import): a folder missing or not writable stops the process with one line, not a trace."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder:
        return
    try:
        os.makedirs(folder, exist_ok=True)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(13, "not writable", folder)
    except OSError as exc:
        raise SystemExit(f"gruft: cannot use PROMETHEUS_MULTIPROC_DIR {folder} ({exc.strerror})"
                         ": make it a folder this user can write, or unset it") from None


_folder()

from prometheus_client import Counter, Gauge, Histogram  # noqa: E402  (after its folder is made)

COMMANDS = Counter("gruft_commands", "Commands stored, by game and by who sent them "
                   "(seat, host, bot, clock)", ["game", "by"])
REFUSALS = Counter("gruft_refusals", "Commands the rules refused, by game, error code and "
                   "ruling", ["game", "code", "rule"])
STREAMS_OPEN = Gauge("gruft_streams_open", "Live streams open", multiprocess_mode="livesum")
POLLS_OPEN = Gauge("gruft_long_polls_open", "Long polls waiting", multiprocess_mode="livesum")
RUNNERS = Gauge("gruft_runners_active", "Runners this server runs now (1 in the process "
                "holding a runner's lock): read models, bots, clocks", ["runner"],
                multiprocess_mode="livesum")
BOT_MOVES = Counter("gruft_bot_moves", "Moves the server's bots stored")
CLOCK_LATE = Histogram("gruft_clock_expired_late_seconds", "How long after its deadline each "
                       "ClockExpired was stored, by what stored it: the clock runner, or the "
                       "request of a seat's move that came too late (CL-1)", ["by"],
                       buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))

# Made on a process's first follower round: a worker whose follower never ran has none, and
# its absence must not read as a follower at position 0.
_follower: dict[str, Any] = {}
_follower_guard = threading.Lock()


def commanded(game: str, by: str) -> None:
    """One command stored."""
    COMMANDS.labels(game, by).inc()


def refused(game: str, code: str, rule: str | None) -> None:
    """One command refused by the rules (the ruling it broke, if it names one)."""
    REFUSALS.labels(game, code, rule or "").inc()


def clock_expired(by: str, late_s: float) -> None:
    """A ClockExpired stored `late_s` seconds after its deadline, by `by` (runner, move)."""
    CLOCK_LATE.labels(by).observe(late_s)


def follower_round(follower: Any) -> None:
    """A follower ended a round: where it stands, and when it last had nothing more to hand."""
    if not _follower:
        with _follower_guard:
            if not _follower:
                _follower["position"] = Gauge(
                    "gruft_follower_position", "The last log notification the follower handed "
                    "on (the furthest behind of the workers)", multiprocess_mode="livemin")
                _follower["caught_up"] = Gauge(
                    "gruft_follower_caught_up_timestamp_seconds", "When the follower last "
                    "had handed on everything (the longest ago of the workers)",
                    multiprocess_mode="livemin")
    _follower["position"].set(follower.position)
    if follower.caught_up_at is not None:
        _follower["caught_up"].set(follower.caught_up_at)


class Running:
    """`with Running("bots"):` counts this process as running a runner while inside."""

    def __init__(self, runner: str) -> None:
        self._gauge = RUNNERS.labels(runner)

    def __enter__(self) -> Running:
        self._gauge.inc()
        return self

    def __exit__(self, *exc: object) -> None:
        self._gauge.dec()
