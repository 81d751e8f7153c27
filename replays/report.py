"""`gruft report DOC --step N`: one self-contained HTML page to settle a dispute at step N.

The page holds the verification result and the signing key's id (checked as `gruft verify` does:
only a signature by the trusted --key counts), the table after step N as every seat saw it then,
the events around it in plain words with the rulings they cite, and the arbiter's annotations.
It has no script and loads nothing: its style is inline, so it can be mailed, archived or printed.
Exit status as `gruft verify`'s: 0 valid and signed by the trusted key, 1 invalid, 2 unverified
or unreadable; the page is written whenever the document could be read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from html import escape
from pathlib import Path
from typing import Any
from uuid import UUID

from domain import GAMES, describe_events, game_class
from domain.core import Viewer
from domain.core.chain import DuplicateKey
from replays.document import Verdict, describe, verify
from replays.terminal import result_text
from replays.verify import INVALID, exit_code, read_inputs
from service.signing import check_signature

AROUND = 5  # events told before and after the step
# The rulings' ids (docs/rules/<game>.md): each game's prefix, as its END_RULE has it.
_PREFIXES = "|".join(sorted({cls.END_RULE.split("-")[0] for cls in GAMES.values()}))
RULING = re.compile(rf"\b(?:{_PREFIXES})-\d+\b")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n", 1)[1]
    parser.add_argument("file", help="the replay document (JSON), or - for standard input")
    parser.add_argument("--step", type=int, required=True, metavar="N",
                        help="the step in dispute: the table after event N")
    parser.add_argument("--out", metavar="FILE", default="-",
                        help="where to write the page (default: standard output)")
    parser.add_argument("--key", metavar="PEM",
                        help="the server's Ed25519 public key (GET /signing-key): only a "
                             "signature by it counts; without it the signature is unverified")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, verify, write the page; the exit status says the verdict."""
    try:
        document, trusted = read_inputs(args)
    except DuplicateKey as exc:  # invalid: no page can say which of the two keys counts
        print(f"gruft report: {args.file} is invalid: {exc}", file=sys.stderr)
        return INVALID
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        print(f"gruft report: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    verdict = verify(document, trusted_keys=trusted, check_signature=check_signature)
    malformed = [p for p in verdict.problems if p["code"] == "malformed"]
    if malformed:  # not a document of a known game with events (replays.document._check_shape)
        print(f"gruft report: {args.file} is not a replay document ({describe(malformed[0])})",
              file=sys.stderr)
        return 2
    events = document["events"]
    if not 1 <= args.step <= len(events):
        print(f"gruft report: --step must be 1..{len(events)}", file=sys.stderr)
        return 2
    page = render(document, verdict, args.step)
    try:
        if args.out == "-":
            sys.stdout.write(page)
        else:
            Path(args.out).write_text(page, "utf-8")
    except OSError as exc:
        print(f"gruft report: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    return exit_code(verdict)


# -- what the page says --------------------------------------------------------------------

def seat_views(document: dict[str, Any], step: int) -> dict[str, Any] | None:
    """The game after `step` events: each seat's view as it was then, the public one, all of it.

    None when the events cannot be replayed that far (an invalid document may not be).
    """
    try:
        cls = game_class(document["game"])
        game_id = UUID(str(document["game_id"]))
        game = cls.replayed(game_id, document["events"][:step])
        if game is None:
            return None
        return {"public": game.view(Viewer()),
                "seats": {p: game.view(Viewer(player=p)) for p in game.players},
                "full": game.full_state()}
    except Exception:  # noqa: BLE001 - a forged document may break a game's rules anywhere
        return None


def told(document: dict[str, Any], step: int) -> list[dict[str, Any]]:
    """The events from AROUND before `step` to AROUND after it, in words, with their rulings."""
    records = document["events"]
    try:
        words = describe_events(document["game"], records, list(document["players"]),
                                dict(document.get("options") or {}))
    except Exception:  # noqa: BLE001 - words are a courtesy; the data is shown regardless
        words = [{"version": r.get("version"), "type": r.get("type"),
                  "text": json.dumps(r.get("data"), ensure_ascii=False)} for r in records]
    low, high = max(1, step - AROUND), min(len(records), step + AROUND)
    out = []
    for item in words[low - 1:high]:
        texts = [item["text"], *item.get("seen", {}).values()]
        rulings = sorted({m for t in texts for m in RULING.findall(t)},
                         key=lambda r: (r.split("-")[0], int(r.split("-")[1])))
        out.append({**item, "rulings": rulings, "current": item["version"] == step})
    return out


def key_text(document: dict[str, Any], verdict: Verdict) -> tuple[str, str]:
    """(the signing key's id, what was checked about the signature), in words."""
    # verify() fingerprinted the signing key already (None: no readable public key)
    kid = verdict.key_id or "none (the document carries no readable public key)"
    stated = document.get("key_id")
    if isinstance(stated, str) and stated != kid:
        kid += f" (the document says {stated})"
    checked = {
        "verified": "signed by the trusted key given with --key",
        "unverified": "the signature matches the document's own key, but it was NOT checked "
                      "against a trusted key (pass --key with the server's key, GET /signing-key)",
        "untrusted": "signed by a key that is not the trusted key given with --key",
        "invalid": "the signature does not match the document",
        "unchecked": "the signature was not checked",
    }.get(verdict.signature, verdict.signature)
    return kid, checked


# -- the page --------------------------------------------------------------------------------

STYLE = """
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 1.5rem auto;
  max-width: 70rem; padding: 0 1rem; color: #1b1b1f; line-height: 1.4; }
h1 { font-size: 1.5rem; margin: 0 0 0.3rem; } h2 { font-size: 1.15rem; margin: 1.6rem 0 0.5rem;
  border-bottom: 2px solid #333; } h3 { font-size: 1rem; margin: 0 0 0.4rem; }
.meta { color: #555; margin: 0; } code, .mono { font-family: "DejaVu Sans Mono", monospace;
  font-size: 0.85em; word-break: break-all; }
.verdict { border: 2px solid; border-radius: 6px; padding: 0.6rem 0.9rem; }
.verdict.valid { border-color: #2e7d32; background: #eef7ee; }
.verdict.invalid { border-color: #b71c1c; background: #fdecec; }
.verdict.unverified { border-color: #b8860b; background: #fff8e1; }
.verdict strong { font-size: 1.1rem; }
.seats { display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: 0.8rem; }
.seat { border: 1px solid #999; border-radius: 6px; padding: 0.6rem 0.8rem; break-inside: avoid; }
.seat.to-act { border: 2px solid #b8860b; }
dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 0.8rem; }
dt { color: #555; } dd { margin: 0; }
.cards { display: flex; flex-wrap: wrap; gap: 0.2rem; }
.card { border: 1px solid #777; border-radius: 4px; padding: 0 0.3rem; font-family: "DejaVu Sans Mono",
  monospace; font-size: 0.85rem; background: #fbf8f1; }
.empty { color: #777; font-style: italic; }
table { border-collapse: collapse; width: 100%; } th, td { border-bottom: 1px solid #ccc;
  padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
tr.current td { background: #fff3c4; font-weight: bold; }
tr.event.current td { border-top: 2px solid #b8860b; border-bottom: 2px solid #b8860b; }
.seen { color: #555; font-size: 0.9em; display: block; font-weight: normal; }
.ruling { display: inline-block; border: 1px solid #b71c1c; color: #b71c1c; border-radius: 999px;
  padding: 0 0.4rem; font-size: 0.8rem; margin: 0 0.2rem 0.1rem 0; }
.kind-ruling .kind { color: #b71c1c; font-weight: bold; } .kind { text-transform: uppercase;
  font-size: 0.8rem; } .text { white-space: pre-wrap; }
details { margin-top: 0.6rem; } pre { white-space: pre-wrap; font-size: 0.8rem; }
@media print { body { margin: 0; max-width: none; } details { display: none; } }
"""


def render(document: dict[str, Any], verdict: Verdict, step: int) -> str:
    """The whole page, every value escaped (names, notes and card codes come from users)."""
    players = [str(p) for p in document.get("players", [])]
    record = document["events"][step - 1]
    name = game_class(document["game"]).NARRATOR.TITLE  # verify refused an unknown game
    title = f"Dispute report: {name} {str(document.get('game_id'))[:8]}, step {step}"
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f'<header><h1>{escape(title)}</h1><p class="meta">Game <span class="mono">'
        f"{escape(str(document.get('game_id')))}</span>; players {escape(', '.join(players))}; "
        f"{len(document['events'])} events; step {step} is event {escape(str(record.get('type')))}"
        f" at {escape(str(record.get('timestamp')))}.</p></header>",
        _verification(document, verdict),
        _table(document, step, players),
        _events(document, step),
        _annotations(document, step),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _verification(document: dict[str, Any], verdict: Verdict) -> str:
    kid, checked = key_text(document, verdict)
    if verdict.problems:
        state, head = "invalid", f"INVALID: {len(verdict.problems)} problem(s) found"
    elif verdict.valid:
        state, head = "valid", "VALID: signed by the trusted key"
    else:
        state, head = "unverified", "UNVERIFIED SIGNATURE: nothing wrong found, key not trusted"
    items = [f"<li><code>{escape(p['code'])}</code> {escape(describe(p))}</li>"
             for p in verdict.problems]
    parent = document.get("parent")
    lineage = ""
    if isinstance(parent, dict):
        lineage = (f"<p>A fork: it began after step {escape(str(parent.get('version')))} of game "
                   f'<span class="mono">{escape(str(parent.get("game_id")))}</span> (that '
                   f'event\'s hash <span class="mono">{escape(str(parent.get("hash")))}</span>; '
                   "<code>gruft verify FORK --parent PARENT</code> proves it).</p>")
    return (f'<section id="verification" class="verdict {state}" data-verdict="{state}">'
            f"<h2>Verification</h2><p><strong>{escape(head)}</strong></p>"
            f'<p>Key id <span class="mono" id="key-id">{escape(kid)}</span>: '
            f'<span id="signature" data-signature="{escape(verdict.signature)}">'
            f"{escape(checked)}</span>.</p>"
            + (f"<ul>{''.join(items)}</ul>" if items else "")
            + f"<p>Recomputed result: {escape(result_text(verdict.scores, verdict.winners))}.</p>"
            + lineage + "</section>")


def _value(value: Any) -> str:
    """A JSON value as HTML: lists of words as cards, objects as lists of terms."""
    if isinstance(value, list) and all(isinstance(v, str | int) for v in value):
        if not value:
            return '<span class="empty">none</span>'
        return '<span class="cards">' + "".join(
            f'<span class="card">{escape(str(v))}</span>' for v in value) + "</span>"
    if isinstance(value, dict):
        if not value:
            return '<span class="empty">none</span>'
        return "<dl>" + "".join(f"<dt>{escape(str(k))}</dt><dd>{_value(v)}</dd>"
                                for k, v in value.items()) + "</dl>"
    if isinstance(value, list):
        return "<ol>" + "".join(f"<li>{_value(v)}</li>" for v in value) + "</ol>"
    if value is None:
        return '<span class="empty">—</span>'
    return escape(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value)


def _table(document: dict[str, Any], step: int, players: list[str]) -> str:
    views = seat_views(document, step)
    if views is None:
        return ('<section id="table"><h2>The table after step ' + str(step) + "</h2>"
                '<p class="empty">The events cannot be replayed to this step (see the '
                "verification above).</p></section>")
    public = views["public"]
    seats = []
    for player in players:
        view = views["seats"].get(player, {})
        acting = player in public.get("to_act", [])
        private = view.get("private") or {}
        seats.append(
            f'<section class="seat{" to-act" if acting else ""}" data-player="{escape(player)}">'
            f"<h3>{escape(player)}{' — to act' if acting else ''}</h3>"
            f"<dl><dt>score</dt><dd>{escape(str(public.get('scores', {}).get(player)))}</dd></dl>"
            f"<p>What {escape(player)} alone saw:</p>{_value(private)}</section>")
    return (f'<section id="table"><h2>The table after step {step}, as every seat saw it</h2>'
            f"<p>Status {escape(str(public.get('status')))}; to act: "
            f"{escape(', '.join(public.get('to_act', [])) or 'nobody')}.</p>"
            f'<h3>On the table (every seat saw this)</h3><div class="public">'
            f"{_value(public.get('state', {}))}</div>"
            f'<h3>Each seat</h3><div class="seats">{"".join(seats)}</div>'
            "<details><summary>Everything at this step (the whole state)</summary><pre>"
            f"{escape(json.dumps(views['full'], indent=1, ensure_ascii=False))}</pre></details>"
            "</section>")


def _events(document: dict[str, Any], step: int) -> str:
    rows = []
    for item in told(document, step):
        seen = "".join(f'<span class="seen">as {escape(p)} saw it: {escape(t)}</span>'
                       for p, t in item.get("seen", {}).items())
        rulings = "".join(f'<span class="ruling">{escape(r)}</span>' for r in item["rulings"])
        current = " current" if item["current"] else ""
        rows.append(f'<tr class="event{current}" data-version="{item["version"]}">'
                    f"<td>{item['version']}</td><td>{escape(str(item['type']))}</td>"
                    f"<td>{escape(item['text'])}{seen}</td><td>{rulings}</td></tr>")
    return (f'<section id="events"><h2>The events around step {step}</h2>'
            "<table><thead><tr><th>Step</th><th>Event</th><th>What happened</th>"
            f"<th>Rulings</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>")


def _annotations(document: dict[str, Any], step: int) -> str:
    notes = document.get("annotations")
    if not isinstance(notes, list) or not notes:
        return ('<section id="annotations"><h2>Annotations</h2>'
                '<p class="empty">The arbiter made no annotation.</p></section>')
    rows = []
    for note in notes:
        if not isinstance(note, dict):
            continue
        kind = str(note.get("kind", "note"))
        here = note.get("version") == step
        rows.append(f'<tr class="kind-{escape(kind)}{" current" if here else ""}" '
                    f'data-version="{escape(str(note.get("version")))}">'
                    f"<td>{escape(str(note.get('version')))}</td>"
                    f'<td class="kind">{escape(kind)}</td>'
                    f'<td class="text">{escape(str(note.get("text", "")))}</td>'
                    f"<td>{escape(str(note.get('author', '')))}, "
                    f"{escape(str(note.get('timestamp', '')))}</td></tr>")
    return ('<section id="annotations"><h2>Annotations</h2><table><thead><tr><th>Step</th>'
            "<th>Kind</th><th>Text</th><th>By, when</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></section>")
