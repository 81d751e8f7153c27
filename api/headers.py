"""Headers every answer carries (issue 23, item 7).

Every answer says `X-Content-Type-Options: nosniff`, so a browser never reads JSON (or anything
else) as the HTML or script its bytes might resemble. The Swagger UI page at /docs gets a
Content-Security-Policy of its own, with `frame-ancestors 'none'` (no page may frame it to trick
a click): Swagger UI sets inline styles and draws data: images, which the HTML pages' stricter
policy (api/viewer.py) would forbid.
"""

from __future__ import annotations

from flask import Flask, Response, request

DOCS_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
               "frame-ancestors 'none'")


def init_app(app: Flask) -> None:
    """nosniff on every answer; /docs's policy on its page."""

    @app.after_request
    def add_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if request.path == "/docs":
            response.headers["Content-Security-Policy"] = DOCS_POLICY
            response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response
