"""The pages' and messages' language (issue 25): Flask-Babel over the catalogs in api/translations.

The language is `?lang=xx`, else the one a person chose before (the switcher's cookie), else the
request's `Accept-Language`, else English; a client that sends none of them reads English, as
before. English is the source language: the catalogs translate it into the other four. The
pages' scripts read the same catalogs: each page embeds the messages marked in `api/static/*.js`
(babel.cfg extracts them) for its language, and `t()` in api/static/i18n.js looks them up.

The `.po` files are the source; their compiled `.mo` are built here when missing or older than
their `.po` (a fresh clone, an edited catalog), so `make serve` and `make test` need no step.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, request
from flask_babel import Babel, get_locale, gettext, ngettext

from domain.core.words import N_

LANGUAGES = ("en", "de", "fr", "it", "es")  # English first: the source and the fallback
NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "it": "Italiano", "es": "Español"}
COOKIE = "gruft_lang"
COOKIE_SECONDS = 365 * 24 * 3600
CATALOGS = Path(__file__).with_name("translations")
SCRIPTS = "api/static/"  # where a message's occurrence makes it one the pages' scripts need
log = logging.getLogger("gruft.i18n")

__all__ = ["LANGUAGES", "NAMES", "gettext", "init_app", "language", "ngettext", "translate"]


def language() -> str:
    """The language of this request: ?lang=, the remembered choice, Accept-Language, English."""
    chosen = request.args.get("lang")
    if chosen in LANGUAGES:
        return chosen
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default="en")


def translate(template: str, params: dict[str, Any] | None = None) -> str:
    """A message template in this request's language, its parameters filled in."""
    text = gettext(template)  # Flask-Babel's gettext formats only when given variables
    if not params:
        return text
    try:
        return text % params
    except (KeyError, ValueError, TypeError):
        # A catalog's mistake must not turn an answer into a 5xx: the English one is right.
        return template % params


def compile_catalogs(folder: Path = CATALOGS) -> Path:
    """Compile each `.po` whose `.mo` is missing or older; return where the `.mo` files are."""
    stale = [po for po in sorted(folder.glob("*/LC_MESSAGES/messages.po"))
             if not _fresh(po.with_suffix(".mo"), po)]
    if not stale:
        return folder
    try:
        for po in stale:
            _compile(po, po.with_suffix(".mo"))
        return folder
    except OSError as err:  # an installed package may be read-only: compile beside it instead
        target = Path(tempfile.mkdtemp(prefix="gruft-catalogs-"))
        log.warning("catalogs compiled into %s (%s)", target, err)
        for po in sorted(folder.glob("*/LC_MESSAGES/messages.po")):
            mo = target / po.relative_to(folder).with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            _compile(po, mo)
        return target


def _fresh(mo: Path, po: Path) -> bool:
    return mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime


def _compile(po: Path, mo: Path) -> None:
    with po.open("rb") as source:
        catalog = read_po(source, locale=po.parent.parent.name)
    # Written beside and renamed: workers starting together never read half a file.
    fd, temporary = tempfile.mkstemp(dir=mo.parent, suffix=".mo.tmp")
    with os.fdopen(fd, "wb") as out:
        write_mo(out, catalog)
    os.replace(temporary, mo)


_SCRIPT_CATALOGS: dict[str, dict[str, Any]] = {}


def script_catalog(lang: str) -> dict[str, Any]:
    """The messages the pages' scripts use, in `lang` (read once per language, from its `.po`)."""
    if lang not in _SCRIPT_CATALOGS:
        messages: dict[str, Any] = {}
        po = CATALOGS / lang / "LC_MESSAGES" / "messages.po"
        if lang != "en" and po.exists():
            with po.open("rb") as source:
                catalog = read_po(source, locale=lang)
            for message in catalog:
                if not message.id or not any(f.startswith(SCRIPTS) for f, _ in message.locations):
                    continue
                key = message.id[0] if message.pluralizable else message.id
                if message.context:  # as gettext keys it, and pt() in i18n.js
                    key = f"{message.context}\x04{key}"
                if message.pluralizable:
                    if all(message.string):
                        messages[key] = list(message.string)
                elif message.string:
                    messages[key] = message.string
        _SCRIPT_CATALOGS[lang] = {"lang": lang, "messages": messages}
    return _SCRIPT_CATALOGS[lang]


def _switcher() -> list[dict[str, str]]:
    """The language switcher's links: this page in each language (never carrying a token)."""
    args = [(k, v) for k, v in request.args.items(multi=True) if k not in ("lang", "token")]
    current = str(get_locale())
    links = []
    for code in LANGUAGES:
        query = "&".join(f"{_quote(k)}={_quote(v)}" for k, v in [*args, ("lang", code)])
        links.append({"code": code, "name": NAMES[code], "href": f"?{query}",
                      "current": code == current})
    return links


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def init_app(app: Flask) -> None:
    """Flask-Babel with our locale choice, the compiled catalogs, and what every page needs."""
    folder = compile_catalogs()
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(folder))
    Babel(app, locale_selector=language)
    app.jinja_env.filters["status_words"] = status_words

    @app.context_processor
    def page_language() -> dict[str, Any]:
        lang = str(get_locale())
        return {"lang": lang, "languages": _switcher(), "script_catalog": script_catalog(lang)}

    @app.after_request
    def remember(response):
        # The switcher's choice is remembered for this browser's later pages (and their calls).
        chosen = request.args.get("lang")
        if chosen in LANGUAGES and response.mimetype == "text/html":
            response.set_cookie(COOKIE, chosen, max_age=COOKIE_SECONDS, samesite="Lax",
                                httponly=True)
        return response


STATUS_WORDS = {"in_progress": N_("in progress"), "finished": N_("finished"),
                "aborted": N_("aborted")}


def status_words(status: str) -> str:
    """A game's status in words, in this request's language."""
    return gettext(STATUS_WORDS[status]) if status in STATUS_WORDS else status
