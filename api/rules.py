"""Rules at the table: each game's rules page in the app, from the project's own docs/rules/.

`GET /rules/{game}` renders `docs/rules/<game>.md` (the page the refusals cite) as HTML, each
ruling reachable by its id as the anchor (`/rules/voodoo-prince#vp-5`), so the play page links a
refusal's ruling to its text. The page follows the reader's language; the rules themselves are
written in English and German (`docs/rules/de/<game>.md`, the rulings by the same ids): a German
reader gets the German text, every other reader the English one.

The pages ship with the package (issue 31, item 1): a wheel carries docs/rules/ as
`api/rules_pages/` (setup.py copies it when the package is built), read in place of docs/rules/
where there is no source tree beside the code. A game whose page is missing anyway answers a 404
that says so, and the app logs the missing pages when it starts (`check_pages`).
"""

from __future__ import annotations

import logging
import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import render_template, url_for
from flask_babel import get_locale
from markdown_it import MarkdownIt

from api.errors import GruftBlueprint
from api.viewer import HTML_PAGE, SECURITY_HEADERS, TITLES, error_page
from domain import available_games
from domain.core.words import N_
from service import GameNotFound

blp = GruftBlueprint("rules", __name__, description="The games' rules pages (HTML)",
                     template_folder="templates")

PACKAGED = Path(__file__).resolve().parent / "rules_pages"  # in a built package (setup.py)
SOURCE = Path(__file__).resolve().parents[1] / "docs" / "rules"  # in the source tree
RULES_DIR = PACKAGED if PACKAGED.is_dir() else SOURCE
log = logging.getLogger("gruft.api")


def rules_path(key: str, lang: str = "en") -> Path:
    """Where a game's rules page is written: docs/rules/<game key>.md, in English, or
    docs/rules/<lang>/<game key>.md where that language has one."""
    translated = RULES_DIR / lang / f"{key}.md"
    return translated if lang != "en" and translated.is_file() else RULES_DIR / f"{key}.md"


def rules_language(key: str, lang: str) -> str:
    """The language a game's rules are shown in for a reader of `lang`."""
    return lang if rules_path(key, lang) != rules_path(key) else "en"


def ruling_anchor(rule: str) -> str:
    """The anchor of a ruling on its game's page: 'VP-5' -> 'vp-5' (as docs/rules/ writes it)."""
    return rule.strip().lower()


def _link_target(href: str) -> str | None:
    """Where a link of a rules page points in the app; None for one into the source tree."""
    parts = urlsplit(href)
    if parts.scheme in ("http", "https", "mailto") or href.startswith("#"):
        return href
    name = Path(parts.path).name
    # A game's page beside this one, or (from a translation) its English original one up.
    if parts.path in (name, f"../{name}") and name.endswith(".md") \
            and name[:-3] in available_games():
        target = url_for("rules.rules_page", game=name[:-3])
        return f"{target}#{parts.fragment}" if parts.fragment else target
    return None  # the code or another document: the words stay, the link goes


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table")  # html stays on: the rulings' <a id> anchors

    def link_open(renderer: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        token = tokens[idx]
        target = _link_target(token.attrGet("href") or "")
        env.setdefault("links", []).append(target is not None)
        if target is None:
            return '<span class="source-ref">'
        token.attrSet("href", target)
        return renderer.renderToken(tokens, idx, options, env)

    def link_close(renderer: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
        kept = env["links"].pop()
        return renderer.renderToken(tokens, idx, options, env) if kept else "</span>"

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    return md


RULING = re.compile(r"\b(?:VQ|VP|VA|VR|CL)-\d+\b")  # CL: the table's own (clocks)
PIECES = re.compile(r"(<[^>]+>)")


def _linked_rulings(html: str) -> str:
    """Every ruling id the text names becomes a link to its anchor (not inside another link,
    nor in the ruling's own bold head)."""
    anchors = set(re.findall(r'<a id="([a-z]+-\d+)"', html))  # rulings of this page only

    def link(found: re.Match) -> str:
        rule = found.group(0)
        if rule.lower() not in anchors:
            return rule
        return f'<a class="ruling-ref" href="#{rule.lower()}">{rule}</a>'

    out, in_link, in_head = [], False, False
    for piece in PIECES.split(html):
        if piece.startswith("<"):
            tag = piece[1:].split(" ", 1)[0].rstrip(">").lower()
            if tag == "/a" or (tag == "a" and "href" in piece):
                in_link = tag == "a"
            in_head = {"strong": True, "/strong": False}.get(tag, in_head)
            out.append(piece)
        elif in_link or in_head:
            out.append(piece)
        else:
            out.append(RULING.sub(link, piece))
    return "".join(out)


def missing_pages() -> list[str]:
    """The games whose rules page is not where the app reads them."""
    return [key for key in available_games() if not rules_path(key).is_file()]


def check_pages() -> None:
    """Log, once when the app starts, the rules pages it cannot serve (an install without
    them: every Rules link and every refusal's ruling link would be dead)."""
    missing = missing_pages()
    if missing:
        log.warning("gruft: no rules page for %s in %s: GET /rules/<game> answers 404 for "
                    "them (install gruft from a wheel or source tree that has docs/rules/)",
                    ", ".join(missing), RULES_DIR)


@cache
def rendered(key: str, lang: str = "en") -> str:
    """A game's rules page as HTML (read once per process and language: the pages ship with the
    code), every ruling id it names linked to that ruling."""
    html = _markdown().render(rules_path(key, lang).read_text(encoding="utf-8"), {})
    # A code block scrolls sideways on a narrow screen: focusable, a keyboard scrolls it too
    # (axe-core's scrollable-region-focusable; issue 31, item 6).
    return _linked_rulings(html.replace("<pre>", '<pre tabindex="0">'))


@blp.route("/rules/<game>")
@blp.doc(responses={200: HTML_PAGE, 404: {"description": "not_found: no such game, or this "
                                                       "installation lacks its rules page"}})
def rules_page(game: str):
    """A game's rules, ruling by ruling, each ruling's id its anchor (HTML)."""
    if game not in available_games():
        raise GameNotFound(N_("no rules page for %(game)r"), game=game)
    if not rules_path(game).is_file():
        raise RulesMissing(N_("the rules of %(game)s are not installed with this server"),
                           game=TITLES.get(game, game))
    lang = rules_language(game, str(get_locale()))
    html = render_template("rules.html", game=game, title=TITLES.get(game, game),
                           rules=rendered(game, lang), rules_lang=lang)
    return html, 200, SECURITY_HEADERS


class RulesMissing(GameNotFound):
    """A game that exists, whose rules page this installation lacks."""


@blp.errorhandler(GameNotFound)
def _not_found(err: GameNotFound):
    heading = N_("No rules page") if isinstance(err, RulesMissing) else None
    return error_page(404, "not_found", err, heading=heading)
