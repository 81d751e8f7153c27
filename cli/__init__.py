"""The `gruft` command: a dispatcher over each part's own subcommands."""

from __future__ import annotations

import argparse

from bench import bench_cli
from replays import replays_cli
from service import store_cli as service_cli
from service.audit import witness as witness_cli
from service.release import release
from service.runners import bots_cli
from serving import serve_cli as api_cli

PARTS = (api_cli, replays_cli, bots_cli, service_cli, bench_cli, witness_cli)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every part's subcommands."""
    parser = argparse.ArgumentParser(prog="gruft", description="gruft: auditable tabletop games")
    parser.add_argument("--version", action="version", version=f"gruft {release()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for part in PARTS:
        part.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `gruft` console script."""
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)
