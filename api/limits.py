"""Who may create games, and how fast (docs/api.md, "Rate limits and names").

`POST /games`, `POST /games/import`, `POST /games/{id}/fork` (forking creates a game) and
`POST /games/{id}/rematch` when it makes the rematch (issue 32, item 2: the later calls, which
answer the rematch made, count for nothing) are limited per client address by flask-limiter: the limit is GRUFT_CREATE_LIMIT (a flask-limiter
string, default 60/minute; 0 turns it off), counted in memory (each worker its own count) or
where GRUFT_RATELIMIT_STORAGE says (e.g. redis://127.0.0.1:6379: one count shared by every worker
and machine). Over it: 429 `rate_limited` with Retry-After. Where GRUFT_CREATE_KEY is set, each
needs that key — checked before the limit counts the request — as `Authorization: Bearer <key>`
or, beside a fork's host token, as `Gruft-Create-Key: <key>` (else 401).
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from api.holds import READ, READS
from api.settings import settings
from domain.core.words import N_
from service import Unauthorized
from service.errors import GameNotFound
from service.store.repository import parse_game_id

DEFAULT_CREATE_LIMIT = "60/minute"
OFF = "0"
# (endpoint, method) of the routes that create a game
CREATING = frozenset({("games.GameCollection", "POST"), ("replays.ImportReplay", "POST"),
                      ("arbiter.Fork", "POST")})
# a rematch makes a game only when the finished game has none yet
REMATCH = ("table.Rematch", "POST")
# the reads whose cost grows with the game (issue 32, item 8)
HEAVY_READS = ("play.NarrationResource", "viewer.viewer_page", "replays.Export",
               "games.ReplayStep")
KEY_HEADER = "Gruft-Create-Key"  # the creation key beside a bearer token that is not it (forks)


def init_app(app: Flask) -> Limiter | None:
    """Guard the creating routes and the heavy reads (call after the blueprints are registered)."""
    config = settings(app)
    key = config.create_key
    if key:
        @app.before_request
        def require_create_key() -> None:
            if _creating() and not _has_key(key):
                raise Unauthorized(N_("creating, importing, forking or rematching a game needs "
                                      "the server's creation key: 'Authorization: Bearer <key>' "
                                      "or '%(key_header)s: <key>'"), key_header=KEY_HEADER)

    for endpoint in HEAVY_READS:  # at most GRUFT_READS_PER_ADDRESS at once (api.holds)
        app.view_functions[endpoint] = held(app.view_functions[endpoint])
    limit = config.create_limit or OFF
    reads = config.read_limit or OFF
    if limit == OFF and reads == OFF:
        return None
    limiter = Limiter(
        get_remote_address, app=app,
        storage_uri=config.ratelimit_storage,
        key_prefix=config.ratelimit_prefix or "gruft",
        headers_enabled=True,  # X-RateLimit-* and, over the limit, Retry-After
        # Redis unreachable: count in memory meanwhile rather than answer 500 to every creation.
        in_memory_fallback_enabled=True,
    )
    if reads != OFF:
        heavy = limiter.shared_limit(reads, scope="read",
                                     error_message="too many narrations, viewer pages, exports or "
                                                   f"replay steps asked from this address (at most "
                                                   f"{reads})")
        for endpoint in HEAVY_READS:
            app.view_functions[endpoint] = heavy(app.view_functions[endpoint])
    if limit == OFF:
        return limiter
    shared = limiter.shared_limit(limit, scope="create", methods=["POST"],
                                  error_message="too many games created, imported or forked from "
                                                f"this address (at most {limit})")
    for endpoint in {endpoint for endpoint, _ in CREATING}:
        app.view_functions[endpoint] = shared(app.view_functions[endpoint])
    rematching = limiter.shared_limit(limit, scope="create", methods=["POST"],
                                      exempt_when=lambda: not _rematch_to_make(),
                                      error_message="too many games created, imported, forked "
                                                    f"or rematched from this address (at most "
                                                    f"{limit})")
    app.view_functions[REMATCH[0]] = rematching(app.view_functions[REMATCH[0]])
    return limiter


def held(view: Callable[..., Any]) -> Callable[..., Any]:
    """A heavy read that holds one of its address's places in this worker while it runs."""
    @functools.wraps(view)
    def holding(*args: Any, **kwargs: Any) -> Any:
        with READS.holding(READ):
            return view(*args, **kwargs)
    return holding


def _creating() -> bool:
    """Whether this request would make a game."""
    here = (request.endpoint, request.method)
    return here in CREATING or (here == REMATCH and _rematch_to_make())


def _rematch_to_make() -> bool:
    """Whether the rematch this request asks for is yet to be made (an unknown game: no, and
    the route answers 404)."""
    from api.games import games

    try:
        game_id = parse_game_id((request.view_args or {}).get("game_id", ""))
    except GameNotFound:
        return False
    return games().reads.rematch_of(game_id) is None


def _has_key(key: str) -> bool:
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), key.encode()):
        return True
    beside = request.headers.get(KEY_HEADER, "").strip()
    return bool(beside) and hmac.compare_digest(beside.encode(), key.encode())
