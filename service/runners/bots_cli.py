"""The bots' subcommands: `gruft simulate`, and `gruft bots`, the bot seats' runner.

`gruft bots` plays the seats games gave to the server's bots (POST /games "bots") as a process
of its own: it takes the bot runner lock (waiting as a hot standby while another runner holds
it) and plays until stopped (SIGINT or SIGTERM). It runs the games' clocks too (service/runners/clock_runner.py,
under a lock of its own): a seat out of time gets its move from the heuristic bot. Run API
workers with GRUFT_BOTS=external beside it; with the default (embedded) a worker does both.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import Any

from service.runners import simulate


def _line(progress: Any) -> str:
    return (f"bots: {progress.moves} moves in {progress.seconds:.1f} s, "
            f"{progress.games} games with bot seats in play")


def configure_bots(parser: argparse.ArgumentParser) -> None:
    from service.store_cli import add_runner_options

    add_runner_options(parser)
    parser.add_argument("--delay", type=float, default=None, metavar="SECONDS",
                        help="wait this long before a bot moves (default: GRUFT_BOT_DELAY, or 0.3)")
    parser.set_defaults(func=play_seats)


def play_seats(args: argparse.Namespace) -> int:
    """Play the bot seats until stopped; 3 if another runner holds the lock."""
    from service.runners.bot_runner import run
    from service.store_cli import command_env, run_until_stopped

    env = command_env(args)
    if args.delay is not None:
        env["GRUFT_BOT_DELAY"] = str(args.delay)
    def play(stop: threading.Event, report: Callable[[Any], None]) -> Any:
        return run(env, lock_wait=args.lock_wait, stop=stop, report=report)

    return run_until_stopped("bots", play, _line)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft simulate` and `gruft bots`."""
    simulate.configure(sub.add_parser(
        "simulate", help="bots play whole games in-process (or into the store) and a summary is printed"))
    configure_bots(sub.add_parser(
        "bots", help="play the seats games gave to the server's bots, and run the games' clocks "
                "(beside GRUFT_BOTS=external)"))
