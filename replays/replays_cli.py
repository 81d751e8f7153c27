"""The replays' subcommands: `gruft verify`, `gruft replay`, `gruft report`, `gruft log check`,
`gruft archive` and `gruft restore`."""

from __future__ import annotations

import argparse

from replays import archive, logcheck, report, stepper, verify


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft verify`, `gruft replay` and `gruft report`."""
    verify.configure(sub.add_parser(
        "verify", help="verify a replay document: chain, signature, seed, rules, scores"))
    stepper.configure(sub.add_parser("replay", help="step through a replay document in the terminal"))
    report.configure(sub.add_parser(
        "report", help="write a dispute report: one self-contained HTML page about one step"))
    logcheck.add_commands(sub)
    archive.add_commands(sub)
