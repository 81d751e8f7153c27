"""Bearer tokens from the Authorization header."""

from __future__ import annotations

from flask import request

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
        raise Unauthorized("send the token as 'Authorization: Bearer <token>'")
    return token
