"""Who may create games, and how fast (docs/api.md, "Rate limits and names").

`POST /games` and `POST /games/import` are limited per client address by flask-limiter: the
limit is GRUFT_CREATE_LIMIT (a flask-limiter string, default 60/minute; 0 turns it off), counted
in memory (each worker its own count) or where GRUFT_RATELIMIT_STORAGE says (e.g.
redis://127.0.0.1:6379: one count shared by every worker and machine). Over it: 429
`rate_limited` with Retry-After. Where GRUFT_CREATE_KEY is set, both need
`Authorization: Bearer <that key>` (else 401) — checked before the limit counts the request.
"""

from __future__ import annotations

import hmac

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from api.settings import settings
from service import Unauthorized

DEFAULT_CREATE_LIMIT = "60/minute"
OFF = "0"
# (endpoint, method) of the routes that create a game
CREATING = frozenset({("games.GameCollection", "POST"), ("replays.ImportReplay", "POST")})


def init_app(app: Flask) -> Limiter | None:
    """Guard the creating routes (call after the blueprints are registered)."""
    config = settings(app)
    key = config.create_key
    if key:
        @app.before_request
        def require_create_key() -> None:
            if (request.endpoint, request.method) in CREATING and not _has_key(key):
                raise Unauthorized("creating or importing a game needs "
                                   "'Authorization: Bearer <the server's creation key>'")

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
                                  error_message="too many games created or imported from this "
                                                f"address (at most {limit})")
    for endpoint in {endpoint for endpoint, _ in CREATING}:
        app.view_functions[endpoint] = shared(app.view_functions[endpoint])
    return limiter


def _has_key(key: str) -> bool:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), key.encode())
