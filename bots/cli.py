"""The bots' subcommand, `gruft simulate`."""

from __future__ import annotations

import argparse

from bots import simulate


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft simulate`."""
    simulate.configure(sub.add_parser(
        "simulate", help="bots play whole games in-process (or into the store) and a summary is printed"))
