"""`gruft log check OLD.json [--server URL]`: a monitor's check that the game log only grew.

OLD.json is a checkpoint kept earlier (GET /log/checkpoint, or the `checkpoint` of an export's
`log`), or a C2SP checkpoint note (GET /log/tlog/checkpoint, or the `checkpoint` of an export's
`log_witnessed`): then the current checkpoint is the note the server serves now, and with
--update OLD.json keeps that note. The check asks the server for its keys, its current checkpoint and a consistency proof
from the kept size to the current one, and holds them against each other: the kept checkpoint is
signed by a key the server lists (so the server owns what was kept), the current one by a key it
lists too, and the proof (RFC 9162 §2.1.4) shows the kept tree to be a prefix of the current
one. Then no game logged by the time of the kept checkpoint has been dropped or rewritten.

Exit status: 0 the log only grew (with --update, OLD.json now holds the current checkpoint);
1 the server is caught: the proof fails, the log shrank, a signature does not match, or the key
that signed the kept checkpoint is no longer listed (both checkpoints are printed, signed: the
evidence); 2 the check could not be made (unreadable file, another log, the server unreachable
or answering nonsense). OLD.json and the server's answers are read as `gruft verify` reads a
document: an object that names a key twice is refused (exit 2), whichever one a reader took.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from domain.core.chain import strict_loads
from replays.logproof import HASH, checkpoint_problem, note_checkpoint_problem
from service.audit.merkle import verify_consistency
from service.audit.signing import check_signature
from service.audit.tlog import NoteError, parse_checkpoint, parse_note

CONSISTENT, CAUGHT, CANNOT = 0, 1, 2
DEFAULT_SERVER = "http://127.0.0.1:8000"
TIMEOUT = 30  # seconds for each request to the server


class CannotCheck(Exception):
    """The check could not be made (not a verdict on the server)."""


def add_commands(sub: argparse._SubParsersAction) -> None:
    """`gruft log check`."""
    log_parser = sub.add_parser("log", help="the game log: check that it only grew")
    commands = log_parser.add_subparsers(dest="log_command", required=True)
    check = commands.add_parser("check", help="check a kept checkpoint against the server's")
    check.description = __doc__.split("\n\n", 1)[1]
    check.formatter_class = argparse.RawDescriptionHelpFormatter
    check.add_argument("old", metavar="OLD.json", help="a checkpoint kept earlier")
    check.add_argument("--server", default=DEFAULT_SERVER,
                       help=f"the gruft server's base URL (default {DEFAULT_SERVER})")
    check.add_argument("--update", action="store_true",
                       help="when the log only grew, keep the current checkpoint in OLD.json")
    check.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check, print the finding, answer the exit status."""
    try:
        text = Path(args.old).read_text("utf-8")
        if not text.lstrip().startswith("{"):
            return run_note(args, text)
        # Read as documents are (gruft verify): a key twice in one object is refused, since
        # readers disagree on which one counts (DuplicateKey, a ValueError).
        old = strict_loads(text)
        if isinstance(old, dict) and isinstance(old.get("log_witnessed"), dict) and isinstance(
                old["log_witnessed"].get("checkpoint"), str):
            return run_note(args, old["log_witnessed"]["checkpoint"])
        if isinstance(old, dict) and isinstance(old.get("log"), dict):
            old = old["log"]  # a whole export: the checkpoint of its `log` part
        if isinstance(old, dict) and isinstance(old.get("checkpoint"), dict):
            old = old["checkpoint"]
        caught, lines, new = check(old, args.server.rstrip("/"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        print(f"gruft log check: cannot read {args.old}: {exc}", file=sys.stderr)
        return CANNOT
    except CannotCheck as exc:
        print(f"gruft log check: cannot check: {exc}", file=sys.stderr)
        return CANNOT
    return verdict(args, caught, lines, json.dumps(new, indent=2) + "\n")


def run_note(args: argparse.Namespace, old: str) -> int:
    """`run` for a kept checkpoint note."""
    try:
        caught, lines, new = check_note(old, args.server.rstrip("/"))
    except CannotCheck as exc:
        print(f"gruft log check: cannot check: {exc}", file=sys.stderr)
        return CANNOT
    return verdict(args, caught, lines, new)


def verdict(args: argparse.Namespace, caught: bool, lines: list[str], kept: str) -> int:
    """Print what the check found; with --update and nothing caught, keep the current
    checkpoint (`kept`, as the file holds it) in OLD; the exit status."""
    print("\n".join(lines))
    if caught:
        return CAUGHT
    if args.update:
        Path(args.old).write_text(kept, "utf-8")
    return CONSISTENT


def check_note(old: str, server: str) -> tuple[bool, list[str], str]:
    """(caught, the finding in lines, the current note) for a kept C2SP checkpoint note, held
    against the note the server serves now (GET /log/tlog/checkpoint)."""
    try:
        kept = parse_checkpoint(parse_note(old)[0])
    except NoteError as exc:
        raise CannotCheck(f"OLD is not a checkpoint note: {exc}") from None
    keys = _get(server, "/signing-keys")
    pems = [k["key"] for k in keys.get("keys", []) if isinstance(k, dict)
            and isinstance(k.get("key"), str)] if isinstance(keys, dict) else []
    new = _get(server, "/log/tlog/checkpoint", text=True)
    try:
        current = parse_checkpoint(parse_note(new)[0])
    except NoteError as exc:
        raise CannotCheck(f"GET /log/tlog/checkpoint is not a checkpoint note: {exc}") from None
    if current.origin != kept.origin:
        raise CannotCheck(f"the server's log is {current.origin[:80]}, the kept checkpoint is "
                          f"of {kept.origin[:80]}")
    evidence = ["kept:", *old.splitlines(), "current:", *new.splitlines()]
    for name, note in (("the kept", old), ("the current", new)):
        _checkpoint, problem = note_checkpoint_problem(note, pems)
        if problem is not None:
            return True, [f"CAUGHT: {name} checkpoint: {problem} (keys: GET /signing-keys)",
                          *evidence], new
    first, second = kept.size, current.size
    caught = grew(server, first, second, kept.root, current.root, evidence)
    if caught is not None:
        return True, caught, new
    return False, [f"consistent: the log only grew, from {first} games to {second} "
                   f"(+{second - first}); both checkpoint notes are signed by the server's keys",
                   f"origin {current.origin}, root {base64.b64encode(current.root).decode()}"], new


def check(old: Any, server: str) -> tuple[bool, list[str], dict[str, Any]]:
    """(caught, the finding in lines, the current checkpoint) for a kept checkpoint."""
    if not isinstance(old, dict) or "origin" not in old:
        raise CannotCheck("OLD.json is not a checkpoint (GET /log/checkpoint)")
    keys = _get(server, "/signing-keys")
    pems = [k["key"] for k in keys.get("keys", []) if isinstance(k, dict)
            and isinstance(k.get("key"), str)] if isinstance(keys, dict) else []
    new = _get(server, "/log/checkpoint")
    if not isinstance(new, dict) or new.get("origin") != old["origin"]:
        raise CannotCheck(f"the server's log is {str(new.get('origin'))[:80] if isinstance(new, dict) else '?'}"
                          f", the kept checkpoint is of {str(old['origin'])[:80]}")
    evidence = ["kept:    " + json.dumps(old, sort_keys=True),
                "current: " + json.dumps(new, sort_keys=True)]
    for name, checkpoint in (("the kept", old), ("the current", new)):
        problem = checkpoint_problem(checkpoint, pems, check_signature)
        if problem is not None:
            return True, [f"CAUGHT: {name} checkpoint: {problem} (keys: GET /signing-keys)",
                          *evidence], new
    first, second = old["size"], new["size"]
    caught = grew(server, first, second, bytes.fromhex(old["root"]), bytes.fromhex(new["root"]),
                  evidence)
    if caught is not None:
        return True, caught, new
    grown = second - first
    return False, [f"consistent: the log only grew, from {first} games to {second} "
                   f"(+{grown}); both checkpoints are signed by the server's keys",
                   f"origin {new['origin']}, root {new['root']}"], new


def grew(server: str, first: int, second: int, kept: bytes, current: bytes,
         evidence: list[str]) -> list[str] | None:
    """None if the log of `second` games (root `current`) extends the kept one of `first`
    (root `kept`) by the server's consistency proof; else the lines that say how it did not.
    CannotCheck for a proof that is not one. JSON checkpoints and notes alike."""
    if second < first:
        return [f"CAUGHT: the log shrank from {first} games to {second}", *evidence]
    answer = _get(server, f"/log/consistency?first={first}&second={second}")
    proof = answer.get("proof") if isinstance(answer, dict) else None
    if not isinstance(proof, list) or not all(isinstance(p, str) and HASH.fullmatch(p)
                                              for p in proof):
        raise CannotCheck("the consistency proof is not a list of SHA-256 hex hashes")
    if not verify_consistency(first, second, kept, current, [bytes.fromhex(p) for p in proof]):
        return [f"CAUGHT: the log of {first} games you kept is not a prefix of the current "
                f"one of {second}: a game logged by then was dropped or rewritten",
                *evidence, "proof:   " + json.dumps(proof)]
    return None


def _get(server: str, path: str, text: bool = False) -> Any:
    url = server + path
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise CannotCheck(f"{server} is not an http(s) URL")
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:  # noqa: S310 - checked above
            body = answer.read()
            return body.decode("utf-8") if text else strict_loads(body)
    except urllib.error.HTTPError as exc:
        raise CannotCheck(f"GET {path} answered {exc.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:  # UnicodeDecodeError too
        raise CannotCheck(f"GET {url}: {exc}") from None
