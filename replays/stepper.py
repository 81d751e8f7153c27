"""`gruft replay FILE`: step through a replay document in the terminal.

The states are rebuilt by applying the recorded events to the game's aggregate, exactly as the
event store would; each step shows the event and what it changed in the full state.

Keys are read from standard input line by line, from a terminal or a pipe alike, so a session
can be scripted (`printf 'j 10\\ns\\nq\\n' | gruft replay game.json`); the prompt is shown only
on a terminal, and the end of the input ends the session. `--all` prints every step and exits.
Filters (`--player`, `--phase`, `--round`, `--turn`, `--type`) keep only the steps that match,
each under its own step number. `--key PEM` checks the signature against the server's key, as
`gruft verify --key` does; the heading says the verdict.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO
from uuid import UUID

from domain import game_class
from domain.core import Game
from domain.core.chain import strict_loads
from domain.core.eventfilter import UNITS, matching, units
from replays.document import describe, verify
from replays.terminal import reader_left
from replays.verify import trusted_keys
from service.audit.signing import check_signature


def rebuild_states(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The full state after each event of the document (index i = after event i+1)."""
    cls = game_class(document["game"])
    game_id = UUID(document["game_id"])
    game: Game | None = None
    states = []
    for record in document["events"]:
        game = cls.event_from_record(game_id, record).mutate(game)
        # full_state holds scores and winners already; a finished game waits for nobody
        states.append(game.full_state() | {"to_act": list(game.to_act)})
    return states


def changes(before: Any, after: Any, path: str = "") -> list[str]:
    """Readable lines for what differs between two JSON values."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in list(before) + [k for k in after if k not in before]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in after:
                out.append(f"- {sub}")
            elif key not in before:
                out.append(f"+ {sub} = {_short(after[key])}")
            else:
                out.extend(changes(before[key], after[key], sub))
        return out
    if before != after:
        return [f"~ {path}: {_short(before)} -> {_short(after)}"]
    return []


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "..."


def show(document: dict, states: list[dict], step: int, out: TextIO | None = None) -> None:
    """Print one step: the event and what it changed."""
    out = out or sys.stdout
    total = len(states)
    record = document["events"][step - 1]
    print(f"\n[{step}/{total}] {record['type']} at {record['timestamp']}", file=out)
    print(f"  data: {_short(record['data'])}", file=out)
    before = states[step - 2] if step > 1 else {}
    for line in changes(before, states[step - 1])[:40]:
        print(f"  {line}", file=out)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n", 1)[1]
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("file", help="the replay document (JSON)")
    parser.add_argument("--step", type=int, help="print the full state after this step and exit")
    parser.add_argument("--all", action="store_true", help="print every step and exit")
    parser.add_argument("--player", metavar="NAME",
                        help="only the steps NAME made or is named in (a hand, a score, a win)")
    for unit in UNITS:
        parser.add_argument(f"--{unit}", type=int, metavar="N",
                            help=f"only the steps of {unit} N, as the game's events number them")
    parser.add_argument("--type", action="append", metavar="EVENT",
                        help="only events of this type (e.g. Played); may be repeated")
    parser.add_argument("--key", metavar="PEM",
                        help="the server's Ed25519 public key (GET /signing-key): the heading says "
                             "whether the document is signed by it; without it the signature is "
                             "unverified")
    parser.set_defaults(func=run)


HELP = "keys: Enter/n next · p previous · f first · l last · j N jump · s state · q quit"


def run(args: argparse.Namespace) -> int:
    """Load, verify, then step interactively (or print what was asked)."""
    try:
        trusted = trusted_keys(args)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"gruft replay: cannot read the key {args.key}: {exc}", file=sys.stderr)
        return 2
    try:
        document = strict_loads(Path(args.file).read_text("utf-8"))  # a key twice: refused
        states = rebuild_states(document)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        print(f"gruft replay: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    try:
        steps = _selected(args, document)
    except ValueError as exc:
        print(f"gruft replay: {exc}", file=sys.stderr)
        return 2
    try:
        return _run(args, document, states, steps, trusted)
    except BrokenPipeError:
        reader_left()
        return 0


def _run(args: argparse.Namespace, document: dict, states: list[dict], steps: list[int],
         trusted: list[str] | None = None) -> int:
    print(f"{document['game']} {document['game_id']}: players {', '.join(document['players'])}; "
          f"{len(states)} steps; {_label(document, trusted)}")
    if args.step is not None:
        if not 1 <= args.step <= len(states):
            print(f"step must be 1..{len(states)}", file=sys.stderr)
            return 2
        show(document, states, args.step)
        print(json.dumps(states[args.step - 1], indent=2, ensure_ascii=False))
        return 0
    if len(steps) < len(states):
        print(f"{len(steps)} of {len(states)} steps match {_filters_text(args)}")
        if not steps:
            return 1
    if args.all:
        for step in steps:
            show(document, states, step)
        return 0
    return _interactive(document, states, steps)


def _label(document: dict, trusted: list[str] | None = None) -> str:
    """The verdict in a few words; with `trusted` (--key), whether that key signed it."""
    verdict = verify(document, trusted_keys=trusted, check_signature=check_signature)
    if verdict.problems:
        return f"NOT VALID ({describe(verdict.problems[0])})"
    if verdict.signature == "verified":
        return f"valid, signed by the key given (key id {verdict.key_id})"
    return "consistent, signature unverified (--key checks it against the server's key)"


def _filters_text(args: argparse.Namespace) -> str:
    given = [f"--player {args.player}"] if args.player is not None else []
    given += [f"--{u} {getattr(args, u)}" for u in UNITS if getattr(args, u) is not None]
    given += [f"--type {t}" for t in args.type or []]
    return " ".join(given)


def _selected(args: argparse.Namespace, document: dict) -> list[int]:
    """The step numbers the filters keep (every step without filters)."""
    records = document["events"]
    wanted = {u: getattr(args, u) for u in UNITS if getattr(args, u) is not None}
    if args.step is not None and (wanted or args.player is not None or args.type):
        raise ValueError("--step prints one step's whole state; it takes no filter")
    if args.player is not None and args.player not in document["players"]:
        raise ValueError(f"{args.player!r} does not play in this game "
                         f"(players: {', '.join(document['players'])})")
    cls = game_class(document["game"])
    labels = units(records, cls.DEAL_EVENTS, cls.COMMAND_EVENTS)
    named = {u for label in labels for u in label}
    for unit in wanted:
        if unit not in named:
            has = ", ".join(u for u in UNITS if u in named) or "no unit"
            raise ValueError(f"{document['game']} events name no {unit} (they name: {has})")
    types = set(args.type) if args.type else None
    return [i + 1 for i in matching(records, labels, player=args.player, types=types, **wanted)]


def _interactive(document: dict, states: list[dict], steps: list[int]) -> int:
    """Step through `steps` (true step numbers) on keys read from standard input."""
    terminal = sys.stdin.isatty()
    at = 0  # index into steps
    print(HELP)
    show(document, states, steps[at])
    while True:
        try:
            key = input("> " if terminal else "").strip()
        except (EOFError, OSError):  # the input ended (or there is none to read)
            return 0
        if key in ("", "n"):
            at = min(at + 1, len(steps) - 1)
        elif key == "p":
            at = max(at - 1, 0)
        elif key == "f":
            at = 0
        elif key == "l":
            at = len(steps) - 1
        elif key.startswith("j"):
            try:
                wanted = int(key[1:].strip())
            except ValueError:
                print(HELP)
                continue
            # the first shown step at or after N (the last one if none is)
            at = next((i for i, s in enumerate(steps) if s >= wanted), len(steps) - 1)
        elif key == "s":
            print(json.dumps(states[steps[at] - 1], indent=2, ensure_ascii=False))
            continue
        elif key == "q":
            return 0
        else:
            print(HELP)
            continue
        show(document, states, steps[at])
