"""Every error in the one JSON shape of docs/api.md: {"error": {"code", "message", "rule"?}}."""

from __future__ import annotations

import logging

from eventsourcing.persistence import OperationalError
from flask import Flask, jsonify
from flask_smorest import Api, Blueprint
from marshmallow import RAISE
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.exceptions import HTTPException

from api.i18n import error_text, validation_text
from api.inputs import request_json
from api.schemas import Error
from domain.core import Aborted, BadCommand, BadSetup, Refusal
from domain.core.words import N_, Phrase
from service import Conflict, Forbidden, GameNotFound, Unauthorized
from service.store.health import is_permanent

HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 409: "conflict", 413: "payload_too_large",
              415: "unsupported_media_type", 422: "bad_request", 429: "rate_limited",
              500: "internal_error", 503: "unavailable"}
RETRY_AFTER_SECONDS = 1  # told to a client whose request met a busy store
FAULT_RETRY_AFTER_SECONDS = 30  # ... or one that cannot be written until someone mends it
log = logging.getLogger("gruft.api")


def error_response(status: int, code: str, message: str, rule: str | None = None):
    """A Flask response in the contract's error shape."""
    body: dict = {"code": code, "message": message}
    if rule:
        body["rule"] = rule
    return jsonify({"error": body}), status


class ContractParser(FlaskParser):
    """webargs' parser as the contract wants it: malformed input is a 400 (webargs says 422),
    and an unknown query parameter is malformed too (a typo like ?palyer= must not be silently
    ignored)."""

    DEFAULT_VALIDATION_STATUS = 400
    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
                                   "query": RAISE, "querystring": RAISE}

    def load_querystring(self, req, schema):
        # ?lang= chooses the language of any answer (api/i18n.py), so no route refuses it.
        args = req.args.copy()
        args.poplist("lang")
        return self._makeproxy(args, schema)

    def _raw_load_json(self, req):
        # The one bounded reader of api.inputs (depth, digits, surrogates, chunked size).
        if not is_json_request(req) or not req.get_data(cache=True):
            return core.missing
        return request_json()


class GruftBlueprint(Blueprint):
    """flask-smorest's Blueprint with the contract's parser (every API blueprint is one)."""

    ARGUMENTS_PARSER = ContractParser()


class GruftApi(Api):
    """flask-smorest's Api with the contract's error shape, in answers and in the OpenAPI doc."""

    ERROR_SCHEMA = Error

    def _init_spec(self, **options):
        super()._init_spec(**options)
        # The finished document gains the rules the schemas cannot state (api/openapi.py);
        # /openapi.json and `flask openapi` both read it through to_dict.
        from api.openapi import contract

        plain = self.spec.to_dict
        self.spec.to_dict = lambda: contract(plain())

    def handle_http_exception(self, error: HTTPException):
        status = error.code or 500
        data = getattr(error, "data", None) or {}
        message = error_text(data.get("message") or error.description or error.name)
        if "messages" in data or "errors" in data:
            # webargs validation: name each field and what is wrong with it
            status = 400
            message = _describe(data.get("errors") or data.get("messages"))
        response, status = error_response(status, HTTP_CODES.get(status, "error"), message)
        for name, value in error.get_headers():
            if name.lower() != "content-type":  # e.g. a 405's Allow (RFC 9110)
                response.headers[name] = value
        return response, status


def _describe(messages: object) -> str:
    """A one-line summary of marshmallow's nested validation messages."""
    parts: list[str] = []

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("json", "query", "headers", "view_args"):
                    walk(value, path)
                else:
                    walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list) and all(isinstance(x, str) for x in node):
            parts.append(f"{path or 'body'}: {' '.join(map(validation_text, node))}")
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]")
        else:
            parts.append(f"{path or 'body'}: {validation_text(str(node))}")

    walk(messages, "")
    return "; ".join(parts) or validation_text("malformed request")


# Service and domain errors -> (status, code); a Refusal carries its own code and ruling.
STATUSES: dict[type[Exception], tuple[int, str]] = {
    Aborted: (409, "conflict"),  # a command to a game its host aborted: nothing is accepted
    BadCommand: (400, "bad_request"),
    BadSetup: (400, "bad_request"),
    Unauthorized: (401, "unauthorized"),
    Forbidden: (403, "forbidden"),
    GameNotFound: (404, "not_found"),
    Conflict: (409, "conflict"),
    # The store refused the transaction (an SQLite file locked by other writers beyond
    # SQLITE_LOCK_TIMEOUT, a PostgreSQL server going away): it rolled back, nothing was written,
    # and the same request may well succeed a moment later.
    OperationalError: (503, "unavailable"),
}


def register_error_handlers(app: Flask) -> None:
    """Map domain and service errors onto statuses; routes hold no try/except."""

    @app.errorhandler(Refusal)
    def refused(err: Refusal):
        return error_response(422, err.code, error_text(err), err.rule)

    def answer(err: Exception):
        status, code = next(STATUSES[c] for c in type(err).__mro__ if c in STATUSES)
        if status != 503:
            return error_response(status, code, error_text(err))
        if is_permanent(err):  # read-only, disk full: waiting alone will not mend it
            log.error("store cannot be written: %s", err)
            body, status = error_response(status, code, error_text(Phrase(N_(
                "the game store cannot be written (%(why)s); nothing was written. This needs "
                "the server's operator (GET /readyz says why)"), why=str(err))))
            body.headers["Retry-After"] = str(FAULT_RETRY_AFTER_SECONDS)
            return body, status
        log.warning("store unavailable: %s", err)
        body, status = error_response(status, code, error_text(Phrase(N_(
            "the game store is busy (%(why)s); nothing was written, try again"), why=str(err))))
        body.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return body, status

    for error in STATUSES:
        app.register_error_handler(error, answer)
