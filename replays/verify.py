"""`gruft verify FILE`: check a replay document offline.

Exit status: 0 valid and signed by the trusted key (--key); 1 invalid (a problem found);
2 unreadable, or nothing wrong found but the signature unverified (no --key given: a document
that only agrees with its own key proves nothing, anyone can sign a forgery with a key of theirs).

It writes English, or the language --lang names (the catalogs of the web pages, as `gruft report
--lang`): the verdict's lines and each problem's words; the problems' codes, `key_id`, and the
JSON keys of --json stay the same in every language.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from domain.core.chain import DuplicateKey, strict_loads
from domain.core.json_words import decode_problem
from domain.core.words import N_, Gettext, Ngettext, english, english_plural, fill, fill_plural
from replays.document import Verdict, check_fork, describe, verify
from replays.logproof import check_retired, witnessed_problem
from replays.receipts import check_receipts, receipt_list
from replays.terminal import reader_left, result_text
from service.audit.signing import check_signature
from service.audit.tlog import COSIGNATURE_V1, NoteError, Verifier, parse_vkey
from service.catalogs import LANGUAGES, translations

VALID, INVALID, UNVERIFIED = 0, 1, 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n", 1)[1]
    parser.add_argument("file", help="the replay document (JSON), or - for standard input")
    parser.add_argument("--key", metavar="PEM",
                        help="the server's Ed25519 public key (a PEM file, e.g. saved from "
                             "GET /signing-key), or its key history (the JSON of GET "
                             "/signing-keys): only a signature by such a key counts, by a "
                             "retired one only for a game its log proves over before then; "
                             "without it the signature is reported unverified (exit 2)")
    parser.add_argument("--json", action="store_true",
                        help="print the verdict as JSON: {valid, signature, key_id, problems, "
                             "scores, winners}, as POST /replays/verify answers")
    parser.add_argument("--receipt", metavar="FILE", action="append", default=[],
                        help="a receipt the server signed for a command (or a JSON list of "
                             "them; repeatable): the document must agree with every receipt of "
                             "its game, or the two signed statements that disagree are printed")
    parser.add_argument("--parent", metavar="PARENT",
                        help="FILE is a fork: PARENT is its parent's document; prove the fork "
                             "began exactly at the parent's state it names")
    parser.add_argument("--witness", metavar="VKEY", action="append", default=[], type=_witness,
                        help="a witness you trust (its C2SP verifier key, type 0x04; "
                             "repeatable): the game's log proof counts only against a checkpoint "
                             "cosigned by enough of them (the document's log_witnessed)")
    parser.add_argument("--witnesses-needed", metavar="N", type=int, default=None,
                        help="how many of the --witness cosignatures are enough (default: all)")
    parser.add_argument("--lang", choices=LANGUAGES, default="en",
                        help="the language of the verdict and the problems (default: English)")
    parser.set_defaults(func=run)


def exit_code(verdict: Verdict) -> int:
    """The exit status a verdict gives (see the module's docstring)."""
    if verdict.problems:
        return INVALID
    return VALID if verdict.valid else UNVERIFIED


def read_inputs(args: argparse.Namespace) -> tuple[Any, list[str] | None]:
    """The document (FILE, or - for standard input) and the trusted keys (--key, else None);
    DuplicateKey for a document with a key twice in one object (invalid, whatever else it says)."""
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    return strict_loads(text), trusted_keys(args)


def duplicate_verdict(exc: DuplicateKey) -> Verdict:
    """The verdict on a document with a duplicate key: invalid, nothing else checked."""
    verdict = Verdict()
    verdict.add(None, "duplicate_key", N_("%(duplicate)s: readers disagree on which one counts"),
                duplicate=exc)
    return verdict


def trusted_keys(args: argparse.Namespace) -> list[str] | None:
    """The server's public keys given with --key (a PEM file, or the JSON of GET /signing-keys),
    as verify takes them; None without."""
    if not args.key:
        return None
    history = key_history(args)
    return [k["key"] for k in history] if history else [Path(args.key).read_text("ascii")]


def key_history(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The keys of --key when it is the JSON of GET /signing-keys; empty for a PEM file."""
    text = Path(args.key).read_text("utf-8") if args.key else ""
    if not text.lstrip().startswith("{"):
        return []
    keys = strict_loads(text).get("keys")
    if not isinstance(keys, list) or not all(isinstance(k, dict) and isinstance(k.get("key"), str)
                                             for k in keys):
        raise ValueError(f"{args.key} is not the JSON of GET /signing-keys")
    return keys


def _witness(text: str) -> Verifier:
    """A --witness: a C2SP verifier key of type 0x04 (a witness's cosignature key)."""
    try:
        verifier = parse_vkey(text)
    except NoteError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if verifier.kind != COSIGNATURE_V1:
        raise argparse.ArgumentTypeError(f"{verifier.name}: not a witness's key (type 0x04)")
    return verifier


def check_witnessed(document: dict[str, Any], verdict: Verdict, trusted: list[str] | None,
                    args: argparse.Namespace) -> None:
    """--witness: the document's log proof counts only under a checkpoint cosigned by enough of
    the witnesses given (log_unwitnessed names the problem otherwise)."""
    witnesses = args.witness
    needed = len(witnesses) if args.witnesses_needed is None else args.witnesses_needed
    own = document.get("signature", {}).get("key") if isinstance(
        document.get("signature"), dict) else None
    keys = trusted if trusted is not None else [own] if isinstance(own, str) else []
    problem = witnessed_problem(document, keys, witnesses, needed)
    if problem is not None:
        verdict.add(None, "log_unwitnessed", problem)


def run(args: argparse.Namespace) -> int:
    """Verify and report; the exit status says the verdict."""
    try:
        document, trusted = read_inputs(args)
        parent = strict_loads(Path(args.parent).read_text("utf-8")) if args.parent else None
        receipts = [r for path in args.receipt
                    for r in receipt_list(strict_loads(Path(path).read_text("utf-8")))]
    except DuplicateKey as exc:
        return _print(args, {}, duplicate_verdict(exc))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        # Python's JSON reader's words said in --lang too (an OS's own stay as it says them)
        problem = decode_problem(exc) if isinstance(exc, json.JSONDecodeError) else str(exc)
        name = exc.filename if isinstance(exc, OSError) else args.file
        said = fill(N_("cannot read %(file)s: %(problem)s"), {"file": name, "problem": problem},
                    translations(getattr(args, "lang", "en")).gettext)
        print(f"gruft verify: {said}", file=sys.stderr)
        return 2
    if parent is not None:
        verdict = check_fork(document, parent, trusted_keys=trusted,
                             check_signature=check_signature)
    else:
        verdict = verify(document, trusted_keys=trusted, check_signature=check_signature)
    check_retired(document, verdict, key_history(args))
    if getattr(args, "witness", None) and isinstance(document, dict) and isinstance(document.get("events"), list) \
            and document["events"] and isinstance(document["events"][-1], dict):
        check_witnessed(document, verdict, trusted, args)
    conflicts, matched = [], []
    if receipts and isinstance(document, dict):
        conflicts, matched = check_receipts(document, receipts, verdict, trusted,
                                            check_signature)
    return _print(args, document, verdict, conflicts, matched)


def _print(args: argparse.Namespace, document: Any, verdict: Verdict,
           conflicts: list[dict[str, Any]] = (), matched: list[dict[str, int]] = ()) -> int:
    code = exit_code(verdict)
    catalog = translations(getattr(args, "lang", "en"))
    gettext, ngettext = catalog.gettext, catalog.ngettext
    try:
        if args.json:
            print(json.dumps({**verdict.as_json(gettext),
                              **({"conflicts": conflicts} if conflicts else {}),
                              **({"receipts_matched": matched} if matched else {})},
                             indent=2, ensure_ascii=False))
        else:
            print(report(document, verdict, gettext, ngettext))
            for one in matched:  # what was checked, said even when all is well
                print(fill(N_("receipt %(receipt)s for version %(version)s matches"), one,
                           gettext))
            for conflict in conflicts:
                print(conflict_text(conflict, gettext))
        sys.stdout.flush()
    except BrokenPipeError:
        reader_left()
    return code


def conflict_text(conflict: dict[str, Any], gettext: Gettext = english) -> str:
    """Two signed statements of one server that cannot both be true, for anyone to check."""
    def shown(value: Any) -> str:
        return "  " + json.dumps(value, sort_keys=True, ensure_ascii=False)

    return "\n".join([
        gettext(N_("TWO HISTORIES SIGNED: the server signed this receipt")),
        shown(conflict["receipt"]),
        gettext(N_("and signed the document, whose event there is")),
        shown(conflict["event"]),
        "  " + gettext(N_("under the document's signature")),
        shown(conflict["document_signature"])])


def report(document: dict[str, Any], verdict: Verdict, gettext: Gettext = english,
           ngettext: Ngettext = english_plural) -> str:
    """The verdict in words, one finding a line (in `gettext`'s language; the codes, key ids
    and the command's names the same in every language)."""
    def _(template: str, **params: Any) -> str:
        return fill(template, params, gettext)

    def tn(singular: str, plural: str, n: int, **params: Any) -> str:  # extracted as plural
        return fill_plural(singular, plural, n, params, gettext, ngettext)

    if verdict.problems:
        count = len(verdict.problems)
        lines = [tn("INVALID: %(n)s problem", "INVALID: %(n)s problems", count)]
        lines += [f"  [{p['code']}] {describe(p, gettext)}" for p in verdict.problems]
        return "\n".join(lines)
    events = len(document.get("events", []))
    what = tn("%(game)s %(game_id)s, %(n)s event, format %(format)s",
              "%(game)s %(game_id)s, %(n)s events, format %(format)s", events,
              game=document.get("game"), game_id=document.get("game_id"),
              format=document.get("format_version"))
    if isinstance(document.get("annotations"), list) and document["annotations"]:
        what += tn(", %(n)s annotation", ", %(n)s annotations", len(document["annotations"]))
    if isinstance(document.get("parent"), dict):
        link = document["parent"]
        what += _(", a fork of %(game_id)s after its event %(version)s",
                  game_id=link.get("game_id"), version=link.get("version"))
    result = result_text(verdict.scores, verdict.winners, gettext)
    if verdict.valid:
        signed = (_("signed by the trusted key") if verdict.signature == "verified"
                  else _("signature not checked"))
        if verdict.retired is not None:
            signed = _("signed by a RETIRED key of the server (current until %(until)s), for a "
                       "game its log proves over before then", until=verdict.retired["until"])
        return "\n".join([_("valid: %(what)s; %(signed)s", what=what, signed=signed),
                          f"key_id {verdict.key_id}", result])
    return "\n".join([
        _("UNVERIFIED SIGNATURE: %(what)s", what=what),
        "  " + _("the chain, the seed, the rules and the result agree, and the signature "
                 "matches the document's own key,"),
        "  " + _("but nothing says that key is the server's: pass --key with the server's key "
                 "(GET /signing-key) to verify it"),
        f"key_id {verdict.key_id} "
        + _("(compare it with the server's: gruft key, GET /signing-key)"),
        result])
