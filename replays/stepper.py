"""`gruft replay FILE`: step through a replay document in the terminal.

The states are rebuilt by applying the recorded events to the game's aggregate, exactly as the
event store would; each step shows the event and what it changed in the full state.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from domain import game_class
from domain.core import Game
from replays.document import verify
from service.signing import check_signature


def rebuild_states(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The full state after each event of the document (index i = after event i+1)."""
    cls = game_class(document["game"])
    game_id = UUID(document["game_id"])
    game: Game | None = None
    states = []
    for record in document["events"]:
        event_cls = getattr(cls, record["type"])
        extra = {"originator_topic": f"{cls.__module__}:{cls.__qualname__}"} if record[
            "type"] == "Created" else {}
        event = event_cls(originator_id=game_id, originator_version=record["version"],
                          timestamp=datetime.fromisoformat(record["timestamp"]),
                          prev_hash=record["prev_hash"], hash=record["hash"],
                          **extra, **record["data"])
        game = event.mutate(game)
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


def show(document: dict, states: list[dict], step: int, out=None) -> None:
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
    parser.add_argument("file", help="the replay document (JSON)")
    parser.add_argument("--step", type=int, help="print the full state after this step and exit")
    parser.add_argument("--all", action="store_true", help="print every step and exit")
    parser.set_defaults(func=run)


HELP = "keys: Enter/n next · p previous · f first · l last · j N jump · s state · q quit"


def run(args: argparse.Namespace) -> int:
    """Load, verify, then step interactively (or print what was asked)."""
    try:
        document = json.loads(Path(args.file).read_text("utf-8"))
        states = rebuild_states(document)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"gruft replay: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    verdict = verify(document, check_signature=check_signature)
    label = "valid" if verdict.valid else f"NOT VALID ({verdict.problems[0]['message']})"
    print(f"{document['game']} {document['game_id']}: players {', '.join(document['players'])}; "
          f"{len(states)} steps; {label}")
    if args.step is not None:
        if not 1 <= args.step <= len(states):
            print(f"step must be 1..{len(states)}", file=sys.stderr)
            return 2
        show(document, states, args.step)
        print(json.dumps(states[args.step - 1], indent=2, ensure_ascii=False))
        return 0
    if args.all or not sys.stdin.isatty():
        for step in range(1, len(states) + 1):
            show(document, states, step)
        return 0
    return _interactive(document, states)


def _interactive(document: dict, states: list[dict]) -> int:
    step = 1
    print(HELP)
    show(document, states, step)
    while True:
        try:
            key = input("> ").strip()
        except EOFError:
            return 0
        if key in ("", "n"):
            step = min(step + 1, len(states))
        elif key == "p":
            step = max(step - 1, 1)
        elif key == "f":
            step = 1
        elif key == "l":
            step = len(states)
        elif key.startswith("j"):
            try:
                step = max(1, min(int(key[1:].strip()), len(states)))
            except ValueError:
                print(HELP)
                continue
        elif key == "s":
            print(json.dumps(states[step - 1], indent=2, ensure_ascii=False))
            continue
        elif key == "q":
            return 0
        else:
            print(HELP)
            continue
        show(document, states, step)
