"""The pages' and messages' language (issue 25): Flask-Babel over the catalogs in api/translations.

The language is `?lang=xx`, else the one a person chose before (the switcher's cookie), else the
request's `Accept-Language`, else English; a client that sends none of them reads English, as
before. English is the source language: the catalogs translate it into the other four. The
pages' scripts read the same catalogs: each page embeds the messages marked in `api/static/*.js`
(babel.cfg extracts them) for its language, and `t()` in api/static/i18n.js looks them up.

The `.po` files are the source and the only form shipped: each process reads a language's when
it first needs it and compiles it in memory (service/catalogs.py), so `make serve` and `make
test` need no step and nothing is written inside an installation (issue 31, item 2).
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, request
from flask_babel import Babel, Domain, get_locale, get_translations, gettext, ngettext
from jinja2 import pass_context

from domain.core.words import N_, Phrase, Said, fill
from service.catalogs import CATALOGS, LANGUAGES, NAMES, catalog, po_path, translations

COOKIE = "gruft_lang"
COOKIE_SECONDS = 365 * 24 * 3600
SCRIPTS = "api/static/"  # where a message's occurrence makes it one the pages' scripts need

__all__ = ["LANGUAGES", "NAMES", "error_text", "gettext", "init_app", "language",
           "ngettext", "translate", "validation_text"]


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


def narration_words() -> tuple[Any, Any]:
    """This request's (gettext, ngettext) for a narrator (domain.core.narration).

    Flask-Babel's own ngettext always formats its result; a narrator fills its placeholders
    itself, so it gets the catalog's plain functions.
    """
    translations = get_translations()
    return translations.gettext, translations.ngettext


def error_text(error: object) -> str:
    """An error's message in this request's language.

    A domain or service error carries its template (domain.core.words.Said), an HTTP error's
    description may be a Phrase; any other text is looked up as it is (werkzeug's defaults
    are marked below), and shown in English when the catalogs do not have it.
    """
    if isinstance(error, Said | Phrase):
        return error.said(gettext)
    text = str(error)
    return gettext(text) if text else text


# marshmallow's and webargs' messages (their {fields} as placeholders), so a validation error
# reads in the reader's language too; a message not listed stays as marshmallow wrote it.
VALIDATION = [
    N_("Unknown field."), N_("Missing data for required field."), N_("Field may not be null."),
    N_("Invalid value."), N_("Not a valid integer."), N_("Not a valid string."),
    N_("Not a valid utf-8 string."), N_("Not a valid boolean."), N_("Not a valid list."),
    N_("Not a valid mapping type."), N_("Not a valid number."), N_("Number too large."),
    N_("Not a valid UUID."), N_("Invalid type."), N_("Invalid input type."),
    N_("Must be one of: %(choices)s."), N_("Length must be between %(min)s and %(max)s."),
    N_("Length must be %(equal)s."), N_("Longer than maximum length %(max)s."),
    N_("Shorter than minimum length %(min)s."),
    N_("Must be greater than or equal to %(min)s and less than or equal to %(max)s."),
    N_("Must be greater than or equal to %(min)s."), N_("Must be less than or equal to %(max)s."),
    N_("String does not match expected pattern."), N_("malformed request"),
    N_("a number of seconds"),  # api.schemas.Seconds
]


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"%\((\w+)\)s", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)"
                              for i, p in enumerate(parts)) + "$", re.S)


_VALIDATION = [(template, _pattern(template)) for template in VALIDATION]


def validation_text(message: str) -> str:
    """One of marshmallow's English messages in this request's language."""
    for template, pattern in _VALIDATION:
        found = pattern.match(message)
        if found:
            return fill(template, found.groupdict(), gettext)
    return message


# werkzeug's own descriptions of the statuses an answer may have, kept word for word (the
# English answer does not change) and marked so the catalogs translate them.
HTTP_DESCRIPTIONS = [
    N_("The requested URL was not found on the server. If you entered the URL manually please "
       "check your spelling and try again."),
    N_("The method is not allowed for the requested URL."),
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_("The data value transmitted exceeds the capacity limit."),
    N_("The server does not support the media type transmitted in the request."),
    N_("This user has exceeded an allotted request count. Try again later."),
    N_("The server is temporarily unable to service your request due to maintenance downtime "
       "or capacity problems. Please try again later."),
]


_SCRIPT_CATALOGS: dict[str, dict[str, Any]] = {}


def script_catalog(lang: str) -> dict[str, Any]:
    """The messages the pages' scripts use, in `lang` (read once per language, from its `.po`)."""
    if lang not in _SCRIPT_CATALOGS:
        messages: dict[str, Any] = {}
        if lang != "en" and po_path(lang).exists():
            for message in catalog(lang):
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


class Catalogs(Domain):
    """Flask-Babel's domain over the catalogs compiled in memory (service/catalogs.py), where
    its own reads `.mo` files from a folder."""

    def get_translations(self):
        locale = get_locale()
        return translations(str(locale)) if locale is not None else super().get_translations()


def init_app(app: Flask) -> None:
    """Flask-Babel with our locale choice, the catalogs, and what every page needs."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(CATALOGS))
    babel = Babel(app, locale_selector=language)
    babel.domain_instance = Catalogs()  # in place of its cached_property's Domain
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


@pass_context  # never folded: a filter on a constant would be run once, at compile time
def status_words(context: Any, status: str) -> str:
    """A game's status in words, in this request's language.

    Jinja computes a filter on a constant (`{{ "finished" | status_words }}`) once, when it
    compiles the template, unless the filter takes the context: the first request's language
    would then be every later request's (issue 31, item 4)."""
    return gettext(STATUS_WORDS[status]) if status in STATUS_WORDS else status
