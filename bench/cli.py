"""The benchmark's subcommand, `gruft bench`."""

from __future__ import annotations

import argparse


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft bench` (its module, which needs the bench extra's RLCard, loads when it runs)."""
    p = sub.add_parser(
        "bench", help="measure domain, replay and API speed against RLCard, eventsourcing and Flask")
    p.add_argument("--quick", action="store_true", help="smaller sizes: done within 2 minutes")
    p.add_argument("--seed", type=int, default=1, help="seed of the games played (default 1)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run `gruft bench`."""
    from bench import suite

    return suite.run(args)
