"""`gruft verify FILE`: check a replay document offline (exit 0 valid, 1 invalid, 2 unreadable)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from replays.document import verify
from service.signing import check_signature


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the replay document (JSON), or - for standard input")
    parser.add_argument("--key", metavar="PEM",
                        help="trust only this Ed25519 public key (a PEM file, e.g. saved from "
                             "GET /signing-key); without it the document's own key is checked "
                             "for consistency only")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Verify and report; the exit code says the verdict."""
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
        document = json.loads(text)
        trusted = [Path(args.key).read_text("ascii")] if args.key else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        print(f"gruft verify: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    verdict = verify(document, trusted_keys=trusted, check_signature=check_signature)
    if args.json:
        print(json.dumps(verdict.as_json(), indent=2, ensure_ascii=False))
    elif verdict.valid:
        events = len(document.get("events", []))
        print(f"valid: {document.get('game')} {document.get('game_id')}, {events} events; "
              f"scores {verdict.scores}, winners {verdict.winners}")
        if trusted is None:
            print("note: signature checked against the document's own key; pass --key to pin "
                  "the server's key")
    else:
        print(f"INVALID: {len(verdict.problems)} problem(s)")
        for problem in verdict.problems:
            where = f"version {problem['version']}" if problem["version"] else "document"
            print(f"  [{problem['code']}] {where}: {problem['message']}")
    return 0 if verdict.valid else 1
