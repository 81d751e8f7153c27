"""The benchmark's subcommand, `gruft bench` (and its crash test, `gruft bench --crash`)."""

from __future__ import annotations

import argparse


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft bench` (its module, which needs the bench extra's RLCard, loads when it runs)."""
    p = sub.add_parser(
        "bench", help="measure domain, replay, API and stream speed against RLCard, "
                      "eventsourcing and Flask; or, with --crash, kill workers under load")
    p.add_argument("--quick", action="store_true", help="smaller sizes: done within 2 minutes")
    p.add_argument("--seed", type=int, default=1, help="seed of the games played (default 1)")
    p.add_argument("--streams", action="store_true",
                   help="the stream rounds alone (1,000 streams, or 200 with --quick) and their "
                        "targets")
    p.add_argument("--crash", action="store_true",
                   help="the crash test instead: SIGKILL workers under load on SQLite and "
                        "PostgreSQL, then check every answered command is in the log and every "
                        "game verifies (python -m bench.crash --help for its sizes)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run `gruft bench`, or its crash test."""
    from bench.servers import exit_on_sigterm

    exit_on_sigterm()
    if args.crash:
        from bench import crash

        seconds, kills = (8.0, 4) if args.quick else (20.0, 8)
        return crash.run(["sqlite", "postgres"], seconds, kills, workers=2, clients=4,
                         seed=args.seed)
    from bench import suite

    return suite.run(args)
