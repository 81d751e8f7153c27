"""Who may create games, and how fast (docs/api.md, "Rate limits and names").

`POST /games`, `POST /games/import` and `POST /games/{id}/fork` (forking creates a game) are
limited per client address by flask-limiter: the limit is GRUFT_CREATE_LIMIT (a flask-limiter
string, default 60/minute; 0 turns it off), counted in memory (each worker its own count) or
where GRUFT_RATELIMIT_STORAGE says (e.g. redis://127.0.0.1:6379: one count shared by every worker
and machine). Over it: 429 `rate_limited` with Retry-After. Where GRUFT_CREATE_KEY is set, each
needs that key — checked before the limit counts the request — as `Authorization: Bearer <key>`
or, beside a fork's host token, as `Gruft-Create-Key: <key>` (else 401).
"""

from __future__ import annotations

import hmac

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from api.settings import settings
from domain.core.words import N_
from service import Unauthorized

DEFAULT_CREATE_LIMIT = "60/minute"
OFF = "0"
# (endpoint, method) of the routes that create a game
CREATING = frozenset({("games.GameCollection", "POST"), ("replays.ImportReplay", "POST"),
                      ("arbiter.Fork", "POST")})
KEY_HEADER = "Gruft-Create-Key"  # the creation key beside a bearer token that is not it (forks)


def init_app(app: Flask) -> Limiter | None:
    """Guard the creating routes (call after the blueprints are registered)."""
    config = settings(app)
    key = config.create_key
    if key:
        @app.before_request
        def require_create_key() -> None:
            if (request.endpoint, request.method) in CREATING and not _has_key(key):
                raise Unauthorized(N_("creating, importing or forking a game needs the server's "
                                      "creation key: 'Authorization: Bearer <key>' or "
                                      "'%(key_header)s: <key>'"), key_header=KEY_HEADER)

    limit = config.create_limit or OFF
    if limit == OFF:
        return None
    limiter = Limiter(
        get_remote_address, app=app,
        storage_uri=config.ratelimit_storage,
        key_prefix=config.ratelimit_prefix or "gruft",
        headers_enabled=True,  # X-RateLimit-* and, over the limit, Retry-After
        # Redis unreachable: count in memory meanwhile rather than answer 500 to every creation.
        in_memory_fallback_enabled=True,
    )
    shared = limiter.shared_limit(limit, scope="create", methods=["POST"],
                                  error_message="too many games created, imported or forked from "
                                                f"this address (at most {limit})")
    for endpoint in {endpoint for endpoint, _ in CREATING}:
        app.view_functions[endpoint] = shared(app.view_functions[endpoint])
    return limiter


def _has_key(key: str) -> bool:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), key.encode()):
        return True
    beside = request.headers.get(KEY_HEADER, "").strip()
    return bool(beside) and hmac.compare_digest(beside.encode(), key.encode())
