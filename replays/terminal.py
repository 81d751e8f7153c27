"""What the replays' commands share on a terminal: results in words, and a reader that leaves."""

from __future__ import annotations

import os
import sys
from typing import Any

from domain.core.narration import names


def result_text(scores: dict[str, Any] | None, winners: list[str] | None) -> str:
    """Scores and winners in words: "scores Ann 45, Ben 0, Cy 33; Ben wins"."""
    if scores is None:
        return "no result (the rules could not be re-run to the end)"
    listed = ", ".join(f"{name} {points}" for name, points in scores.items())
    if not winners:
        outcome = "no winner"
    elif len(winners) == 1:
        outcome = f"{winners[0]} wins"
    else:
        outcome = f"{names(winners)} share the win"
    return f"scores {listed}; {outcome}"


def reader_left() -> None:
    """The reader of standard output closed it (`gruft replay … | head`): stop writing quietly.

    Python would report the closed pipe once more when it flushes stdout at exit, so stdout is
    pointed at the null device first.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor (tests capture it)
        pass
