"""One structured log line per request: method, path, status, duration, game id.

Never a header, a query string, a body or a token: only what identifies the request.
"""

from __future__ import annotations

import json
import logging
import time

from flask import Flask, g, request

log = logging.getLogger("gruft.access")


def init_app(app: Flask) -> None:
    """Time every request and log it when the answer leaves."""
    if not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)

    @app.before_request
    def start_clock() -> None:
        g.gruft_started = time.perf_counter()

    @app.after_request
    def log_request(response):
        started = g.get("gruft_started")
        line = {
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "ms": round((time.perf_counter() - started) * 1000, 2) if started else None,
            "game_id": (request.view_args or {}).get("game_id"),
        }
        log.info(json.dumps(line, separators=(",", ":")))
        return response
