"""`gruft report DOC --step N`: one self-contained HTML page to settle a dispute at step N.

The page holds the verification result and the signing key's id (checked as `gruft verify` does:
only a signature by the trusted --key counts), the table after step N as every seat saw it then,
the events around it in plain words with the rulings they cite, and the arbiter's annotations.
It has no script and loads nothing: its style is inline, so it can be mailed, archived or printed.
It is written in English, or in the language --lang names (the catalogs of the web pages), and
gives its times in the time zone --tz names (the zone of the computer that writes it by default),
saying which.
Exit status as `gruft verify`'s: 0 valid and signed by the trusted key, 1 invalid, 2 unverified
or unreadable; the page is written whenever the document could be read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime, tzinfo
from html import escape
from pathlib import Path
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain import GAMES, describe_events, game_class
from domain.core import Viewer
from domain.core.chain import DuplicateKey
from domain.core.words import N_, fill, fill_plural
from replays.document import Verdict, describe, made_on_copy, verify
from replays.terminal import result_text
from replays.verify import INVALID, exit_code, read_inputs
from service.audit.signing import check_signature
from service.catalogs import LANGUAGES, translations

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
    parser.add_argument("--lang", choices=LANGUAGES, default="en",
                        help="the page's language (default: English)")
    parser.add_argument("--tz", metavar="ZONE",
                        help="the time zone of the page's times, e.g. Europe/Berlin (default: "
                             "this computer's)")
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
    try:
        zone = ZoneInfo(args.tz) if args.tz else None
    except (ZoneInfoNotFoundError, ValueError):
        print(f"gruft report: --tz {args.tz} is not a time zone (e.g. Europe/Berlin)",
              file=sys.stderr)
        return 2
    page = render(document, verdict, args.step, Words(getattr(args, "lang", "en"), zone))
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

class Words:
    """The page's language and time zone: `words("…")` says a marked sentence in it."""

    def __init__(self, lang: str = "en", zone: tzinfo | None = None) -> None:
        catalog = translations(lang)
        self.lang, self.zone = lang, zone
        self.gettext, self.plural_forms = catalog.gettext, catalog.ngettext

    def __call__(self, template: str, **params: Any) -> str:
        return fill(template, params, self.gettext)

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        return fill_plural(singular, plural, n, params, self.gettext, self.plural_forms)

    def time(self, stamp: Any) -> str:
        """A stored UTC timestamp in the page's zone, saying which ("2026-11-25 18:57:03 CET")."""
        try:
            when = datetime.fromisoformat(str(stamp)).astimezone(self.zone)
        except (TypeError, ValueError):
            return str(stamp)
        return when.strftime("%Y-%m-%d %H:%M:%S ") + (when.tzname() or "")


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


def told(document: dict[str, Any], step: int, _: Words | None = None) -> list[dict[str, Any]]:
    """The events from AROUND before `step` to AROUND after it, in words, with their rulings."""
    records = document["events"]
    _ = _ or Words()
    try:
        words = describe_events(document["game"], records, list(document["players"]),
                                dict(document.get("options") or {}), gettext=_.gettext,
                                ngettext=_.plural_forms)
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


SIGNATURES = {
    "verified": N_("signed by the trusted key given with --key"),
    "unverified": N_("the signature matches the document's own key, but it was NOT checked "
                     "against a trusted key (pass --key with the server's key, GET /signing-key)"),
    "untrusted": N_("signed by a key that is not the trusted key given with --key"),
    "invalid": N_("the signature does not match the document"),
    "unchecked": N_("the signature was not checked"),
}


def key_text(document: dict[str, Any], verdict: Verdict,
             _: Words | None = None) -> tuple[str, str]:
    """(the signing key's id, what was checked about the signature), in words."""
    _ = _ or Words()
    # verify() fingerprinted the signing key already (None: no readable public key)
    kid = verdict.key_id or _("none (the document carries no readable public key)")
    stated = document.get("key_id")
    if isinstance(stated, str) and stated != kid:
        kid += " " + _("(the document says %(stated)s)", stated=stated)
    checked = SIGNATURES.get(verdict.signature)
    return kid, _(checked) if checked else verdict.signature


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


def render(document: dict[str, Any], verdict: Verdict, step: int, _: Words | None = None) -> str:
    """The whole page, every value escaped (names, notes and card codes come from users)."""
    _ = _ or Words()
    players = [str(p) for p in document.get("players", [])]
    record = document["events"][step - 1]
    name = game_class(document["game"]).NARRATOR.TITLE  # verify refused an unknown game
    title = _("Dispute report: %(game)s %(id)s, step %(step)s", game=name,
              id=str(document.get("game_id"))[:8], step=step)
    meta = _.ngettext(
        "Game %(id)s; players %(players)s; %(n)s event; step %(step)s is event %(type)s at "
        "%(time)s.", "Game %(id)s; players %(players)s; %(n)s events; step %(step)s is event "
        "%(type)s at %(time)s.", len(document["events"]), id="\x00", players=", ".join(players),
        step=step, type=str(record.get("type")), time=_.time(record.get("timestamp")))
    game_id = f'<span class="mono">{escape(str(document.get("game_id")))}</span>'
    parts = [
        "<!doctype html>", f'<html lang="{escape(_.lang)}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f'<header><h1>{escape(title)}</h1><p class="meta">'
        f"{escape(meta).replace(chr(0), game_id)}</p></header>",
        _verification(document, verdict, _),
        _table(document, step, players, _),
        _events(document, step, _),
        _annotations(document, step, _),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _verification(document: dict[str, Any], verdict: Verdict, _: Words) -> str:
    kid, checked = key_text(document, verdict, _)
    if verdict.problems:
        state = "invalid"
        head = _.ngettext("INVALID: %(n)s problem found", "INVALID: %(n)s problems found",
                        len(verdict.problems))
    elif verdict.valid:
        state, head = "valid", _("VALID: signed by the trusted key")
    else:
        state = "unverified"
        head = _("UNVERIFIED SIGNATURE: nothing wrong found, key not trusted")
    items = [f"<li><code>{escape(p['code'])}</code> {escape(describe(p, _.gettext))}</li>"
             for p in verdict.problems]
    parent = document.get("parent")
    lineage = ""
    if isinstance(parent, dict):
        text = _("A fork: it began after step %(version)s of game %(game)s (that event's hash "
                 "%(hash)s; %(command)s proves it).", version=str(parent.get("version")),
                 game="\x01", hash="\x02", command="\x03")
        lineage = "<p>" + escape(text).replace(
            "\x01", f'<span class="mono">{escape(str(parent.get("game_id")))}</span>').replace(
            "\x02", f'<span class="mono">{escape(str(parent.get("hash")))}</span>').replace(
            "\x03", "<code>gruft verify FORK --parent PARENT</code>") + "</p>"
    key = escape(_("Key id %(id)s: %(checked)s.", id="\x01", checked="\x02")).replace(
        "\x01", f'<span class="mono" id="key-id">{escape(kid)}</span>').replace(
        "\x02", f'<span id="signature" data-signature="{escape(verdict.signature)}">'
        f"{escape(checked)}</span>")
    result = _("Recomputed result: %(result)s.",
               result=result_text(verdict.scores, verdict.winners, _.gettext))
    heading = escape(_("Verification"))
    return (f'<section id="verification" class="verdict {state}" data-verdict="{state}">'
            f"<h2>{heading}</h2><p><strong>{escape(head)}</strong></p>"
            f"<p>{key}</p>"
            + (f"<ul>{''.join(items)}</ul>" if items else "")
            + f"<p>{escape(result)}</p>" + lineage + "</section>")


def _value(value: Any, _: Words) -> str:
    """A JSON value as HTML: lists of words as cards, objects as lists of terms."""
    none = '<span class="empty">' + escape(_("none")) + "</span>"
    if isinstance(value, list) and all(isinstance(v, str | int) for v in value):
        if not value:
            return none
        return '<span class="cards">' + "".join(
            f'<span class="card">{escape(str(v))}</span>' for v in value) + "</span>"
    if isinstance(value, dict):
        if not value:
            return none
        return "<dl>" + "".join(f"<dt>{escape(str(k))}</dt><dd>{_value(v, _)}</dd>"
                                for k, v in value.items()) + "</dl>"
    if isinstance(value, list):
        return "<ol>" + "".join(f"<li>{_value(v, _)}</li>" for v in value) + "</ol>"
    if value is None:
        return '<span class="empty">—</span>'
    return escape(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value)


def _table(document: dict[str, Any], step: int, players: list[str], _: Words) -> str:
    views = seat_views(document, step)
    heading = escape(_("The table after step %(step)s", step=step))
    if views is None:
        return (f'<section id="table"><h2>{heading}</h2><p class="empty">'
                + escape(_("The events cannot be replayed to this step (see the verification "
                           "above)."))
                + "</p></section>")
    public = views["public"]
    seats = []
    for player in players:
        view = views["seats"].get(player, {})
        acting = player in public.get("to_act", [])
        private = view.get("private") or {}
        name = escape(_("%(player)s — to act", player=player) if acting else player)
        score, alone = escape(_("score")), escape(_("What %(player)s alone saw:", player=player))
        seats.append(
            f'<section class="seat{" to-act" if acting else ""}" data-player="{escape(player)}">'
            f"<h3>{name}</h3>"
            f"<dl><dt>{score}</dt>"
            f"<dd>{escape(str(public.get('scores', {}).get(player)))}</dd></dl>"
            f"<p>{alone}</p>{_value(private, _)}</section>")
    status = public.get("status")
    status = _(STATUS_WORDS[status]) if status in STATUS_WORDS else str(status)
    acting = ", ".join(public.get("to_act", [])) or _("nobody")
    says = [escape(text) for text in (
        _("The table after step %(step)s, as every seat saw it", step=step),
        _("Status %(status)s; to act: %(players)s.", status=status, players=acting),
        _("On the table (every seat saw this)"), _("Each seat"),
        _("Everything at this step (the whole state)"))]
    return (f'<section id="table"><h2>{says[0]}</h2><p>{says[1]}</p>'
            f'<h3>{says[2]}</h3><div class="public">'
            f"{_value(public.get('state', {}), _)}</div>"
            f'<h3>{says[3]}</h3><div class="seats">{"".join(seats)}</div>'
            f"<details><summary>{says[4]}</summary><pre>"
            f"{escape(json.dumps(views['full'], indent=1, ensure_ascii=False))}</pre></details>"
            "</section>")


STATUS_WORDS = {"in_progress": N_("in_progress"), "finished": N_("finished"),
                "aborted": N_("aborted")}


def _events(document: dict[str, Any], step: int, _: Words) -> str:
    rows = []
    for item in told(document, step, _):
        seen = "".join('<span class="seen">'
                       + escape(_("as %(player)s saw it: %(text)s", player=p, text=t))
                       + "</span>" for p, t in item.get("seen", {}).items())
        rulings = "".join(f'<span class="ruling">{escape(r)}</span>' for r in item["rulings"])
        current = " current" if item["current"] else ""
        rows.append(f'<tr class="event{current}" data-version="{item["version"]}">'
                    f"<td>{item['version']}</td><td>{escape(str(item['type']))}</td>"
                    f"<td>{escape(item['text'])}{seen}</td><td>{rulings}</td></tr>")
    heads = "".join(f"<th>{escape(h)}</th>" for h in (
        _("Step"), _("Event"), _("What happened"), _("Rulings")))
    heading = escape(_("The events around step %(step)s", step=step))
    return (f'<section id="events"><h2>{heading}</h2>'
            f"<table><thead><tr>{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</section>")


def _origin(document: dict[str, Any], _: Words) -> str:
    """A copy imported from another game says so: its own annotations are not the original's."""
    origin = document.get("origin")
    if not isinstance(origin, dict):
        return ""
    text = _("A copy of game %(game)s (signed by key %(key)s), imported into another game: its "
             "moves and result are that game's. Notes and rulings made on this copy are its own "
             "host's, not part of the original's record; only the original's own document "
             "carries its arbiter's word.", game=str(origin.get("game_id")),
             key=str(origin.get("key_id")))
    return f'<p class="origin" id="origin">{escape(text)}</p>'


def _annotations(document: dict[str, Any], step: int, _: Words) -> str:
    notes = document.get("annotations")
    heading = "<h2>" + escape(_("Annotations")) + "</h2>" + _origin(document, _)
    if not isinstance(notes, list) or not notes:
        return (f'<section id="annotations">{heading}<p class="empty">'
                + escape(_("The arbiter made no annotation.")) + "</p></section>")
    rows = []
    for note in notes:
        if not isinstance(note, dict):
            continue
        kind = str(note.get("kind", "note"))
        here = note.get("version") == step
        copy = made_on_copy(document, note)
        mark = (' <em class="copy">' + escape(_("made on this copy, not in the original's record"))
                + "</em>") if copy else ""
        rows.append(f'<tr class="kind-{escape(kind)}{" current" if here else ""}'
                    f'{" copy" if copy else ""}" '
                    f'data-version="{escape(str(note.get("version")))}">'
                    f"<td>{escape(str(note.get('version')))}</td>"
                    f'<td class="kind">{escape(_.gettext(KINDS.get(kind, kind)))}</td>'
                    f'<td class="text">{escape(str(note.get("text", "")))}{mark}</td>'
                    f"<td>{escape(str(note.get('author', '')))}, "
                    f"{escape(_.time(note.get('timestamp', '')))}</td></tr>")
    heads = "".join(f"<th>{escape(h)}</th>" for h in (
        _("Step"), _("Kind"), _("Text"), _("By, when")))
    return (f'<section id="annotations">{heading}<table><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></section>")


KINDS = {"note": N_("note"), "ruling": N_("ruling")}
