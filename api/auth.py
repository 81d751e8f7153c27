"""A request's token: read here, and only here (issue 21, item 3).

The Authorization header's bearer token; where a browser cannot send headers (EventSource, a
page's address), `?token=` instead, read the same way.
"""

from __future__ import annotations

from flask import request

from domain.core.words import N_
from service import Unauthorized

MAX_TOKEN_LENGTH = 256


def bearer_token() -> str | None:
    """The bearer token of this request, None when there is no header; malformed is a 401."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthorized(N_("send the token as 'Authorization: Bearer <token>'"))
    return token


def request_token() -> str | None:
    """The bearer token, else the `token` query parameter; None without either, 401 when the
    one given is empty or too long."""
    token = bearer_token()
    if token is not None:
        return token
    return query_token(request.args.get("token"))


def query_token(given: str | None) -> str | None:
    """A token given in an address, trimmed; None when none is given, 401 when it is empty or
    too long."""
    if given is None:
        return None
    token = given.strip()
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthorized(N_("the token parameter is empty or too long"))
    return token
