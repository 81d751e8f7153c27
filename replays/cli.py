"""The replays' subcommands: `gruft verify` and `gruft replay`."""

from __future__ import annotations

import argparse

from replays import stepper, verify


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft verify` and `gruft replay`."""
    verify.configure(sub.add_parser(
        "verify", help="verify a replay document: chain, signature, seed, rules, scores"))
    stepper.configure(sub.add_parser("replay", help="step through a replay document in the terminal"))
