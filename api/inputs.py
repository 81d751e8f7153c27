"""Request input, read one way for every route: bodies bounded in size, depth, numbers and
Unicode; no NUL byte in a body's text or in a URL.

Every JSON body — webargs' schemas, the replay documents, Flask's own ``get_json`` — is parsed
here, so hostile input (deep nesting, 5,000-digit numbers, lone surrogates, NaN, NUL, a key twice
in one object, a chunked body past the bound) is a 400 or 413 in the error shape before any schema, hash or store sees it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from api.settings import settings
from domain.core.chain import DuplicateKey, strict_loads
from domain.core.json_words import decode_problem
from domain.core.words import N_, Phrase, Said
from service.settings import Settings

MAX_BODY_BYTES = 1 << 20  # 1 MiB: commands and setups are a few hundred bytes
# Replay documents (verify, import). The largest export measured at the options' limits: a
# 12-player, 20-phase Vampire Queen game with 40-character names of astral-plane characters
# (12 bytes each as Flask escapes them) and a 200-character seed, random play over 20 seeds:
# 4.34 MB (1.6 MB with ASCII names). 8 MiB leaves nearly twice that (tests/api/test_limits.py).
MAX_DOCUMENT_BYTES = Settings().max_document_bytes
DOCUMENT_ENDPOINTS = frozenset({"replays.VerifyReplay", "replays.ImportReplay"})
# Deeper than any request needs (a replay document nests 8 levels): nothing that walks a body
# afterwards (schemas, canonical JSON, hashing) can recurse far.
MAX_DEPTH = 32
DEEPER = N_("the body nests deeper than %(levels)s levels")
# A \uD800-\uDFFF or \u0000 escape: only such an escape can put a surrogate into parsed text,
# since the body itself is decoded as strict UTF-8 (and a raw NUL is not valid JSON text).
_SUSPECT_ESCAPE = re.compile(r"\\u(?:[dD][89abcdefABCDEF]|0000)")
# What parsing costs (issue 23, item 1): about 3 bytes a byte of text, and per value CPython's
# objects — a dict or a list ~72 bytes, a string ~50, any value's slot ~32. Estimated from byte
# counts before parsing, so `[{},{},…]` (46 times its size once parsed) is refused unparsed,
# while exports (4.4–6.4 times; tests/api/test_verify_bounds.py) stay well under the bound.
MAX_COST_RATIO = 10
COST_ALLOWANCE = 256 << 10  # small bodies: `{"a":1}` is dear per byte and cheap in all


_END = object()


class BodyError(Said, ValueError):
    """JSON text the server does not accept (a ValueError, as get_json expects)."""


def _no_constant(name: str) -> Any:
    raise BodyError(N_("%(name)s is not a JSON number"), name=name)


def parsing_cost(data: bytes) -> int:
    """An upper estimate of the bytes parsing `data` takes (MAX_COST_RATIO bounds it)."""
    return (3 * len(data) + 72 * (data.count(b"{") + data.count(b"[")) + 32 * data.count(b",")
            + 25 * data.count(b'"'))


def parse(data: bytes | str) -> Any:
    """A JSON body as Python values, or BodyError / json.JSONDecodeError saying what is wrong."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    if parsing_cost(raw) > MAX_COST_RATIO * len(raw) + COST_ALLOWANCE:
        raise BodyError(N_("the body holds more JSON values than its size allows (at most about "
                           "%(ratio)s times its size in memory once read)"), ratio=MAX_COST_RATIO)
    text = data.decode("utf-8") if isinstance(data, bytes) else data  # RFC 8259: UTF-8
    try:
        value = strict_loads(text, parse_constant=_no_constant)  # a key twice: 400
    except RecursionError:
        raise BodyError(DEEPER, levels=MAX_DEPTH) from None
    except json.JSONDecodeError:
        raise
    except DuplicateKey:
        raise
    except ValueError as exc:  # int(): "Exceeds the limit (4300 digits) ..."
        if "digits" in str(exc):
            raise BodyError(N_("a number in the body has more than 4,300 digits")) from None
        raise
    _check_tree(value, _SUSPECT_ESCAPE.search(text) is not None)
    return value


def _check_tree(value: Any, suspect: bool) -> None:
    """Bounded depth; no lone surrogate (it cannot be hashed) and no NUL (PostgreSQL text cannot
    hold it) in any key or string. The walk keeps one iterator a level, never a list of a
    level's children (a list of a million dicts would cost another 64 bytes a dict)."""
    stack = [iter((value,))]
    while stack:
        node = next(stack[-1], _END)
        if node is _END:
            stack.pop()
            continue
        if isinstance(node, dict):
            if suspect:
                _check_texts(node.keys())
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if len(stack) > MAX_DEPTH:
            raise BodyError(DEEPER, levels=MAX_DEPTH)
        if suspect:
            _check_texts(c for c in children if isinstance(c, str))
        stack.append(iter(children))
    if suspect and isinstance(value, str):
        _check_texts([value])


def _check_texts(texts) -> None:
    for text in texts:
        if "\x00" in text:
            raise BodyError(N_("the body holds a NUL character (\\u0000)"))
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise BodyError(N_("the body holds a lone surrogate (\\ud800-\\udfff): not a "
                               "Unicode character")) from None


def request_bytes() -> bytes:
    """This request's body, unparsed; RequestEntityTooLarge (413) past its bound, BadRequest
    (400) if empty."""
    data = request.get_data(cache=True)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(data) >= limit:
        # A chunked body: werkzeug stops reading at the bound without saying so.
        raise RequestEntityTooLarge()
    if not data:
        raise BadRequest(Phrase(N_("the body must be JSON")))
    return data


def parse_body(data: bytes) -> Any:
    """parse, its complaints as BadRequest (400)."""
    try:
        return parse(data)
    except UnicodeDecodeError:
        raise BadRequest(Phrase(N_("the body is not UTF-8"))) from None
    except json.JSONDecodeError as exc:  # Python's words, as marked templates (English as ever)
        raise BadRequest(Phrase(N_("Invalid JSON body: %(problem)s"),
                                problem=decode_problem(exc))) from None
    except ValueError as exc:  # BodyError, DuplicateKey (said in the reader's language)
        raise BadRequest(Phrase(N_("Invalid JSON body: %(problem)s"),
                                problem=exc if isinstance(exc, Said) else str(exc))) from None


def request_json() -> Any:
    """This request's JSON body; BadRequest (400) or RequestEntityTooLarge (413) if unacceptable."""
    return parse_body(request_bytes())


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, whose ``loads`` (request.get_json) applies the same bounds."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if kwargs:
            return super().loads(s, **kwargs)
        return parse(s)


def init_app(app: Flask) -> None:
    """Bound every body: MAX_BODY_BYTES, and MAX_DOCUMENT_BYTES where a replay document comes."""
    app.json = BoundedJSONProvider(app)

    @app.before_request
    def refuse_nul() -> None:
        # PostgreSQL text cannot hold NUL: a name filter with one was a DataError (a 500).
        if "\x00" in request.path or any("\x00" in key or "\x00" in value
                                          for key, value in request.args.items(multi=True)):
            raise BadRequest(Phrase(N_("the URL holds a NUL byte (%00)")))

    # VampiRing without max_turns has no longest game (families may never fight): an operator
    # who keeps such long games raises the bound (GRUFT_MAX_DOCUMENT_BYTES, docs/deployment.md).
    @app.before_request
    def bound_documents() -> None:
        if request.endpoint in DOCUMENT_ENDPOINTS:
            request.max_content_length = settings().max_document_bytes
