"""What the replays' commands share on a terminal: results in words, and a reader that leaves."""

from __future__ import annotations

import os
import sys
from typing import Any

from domain.core.narration import names
from domain.core.words import N_, Gettext, english, fill


def result_text(scores: dict[str, Any] | None, winners: list[str] | None,
                gettext: Gettext = english) -> str:
    """Scores and winners in words: "scores Ann 45, Ben 0, Cy 33; Ben wins"."""
    if scores is None:
        return gettext(N_("no result (the rules could not be re-run to the end)"))
    listed = ", ".join(f"{name} {points}" for name, points in scores.items())
    if not winners:
        outcome = gettext(N_("no winner"))
    elif len(winners) == 1:
        outcome = fill(N_("%(player)s wins"), {"player": winners[0]}, gettext)
    else:
        outcome = fill(N_("%(players)s share the win"), {"players": names(winners, gettext)},
                       gettext)
    return fill(N_("scores %(scores)s; %(outcome)s"), {"scores": listed, "outcome": outcome},
                gettext)


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
