"""CORS for web clients served from other origins (flask-cors).

The allowed origins come from GRUFT_CORS_ORIGINS (comma-separated, e.g.
`https://club.example,https://app.example`); with none set, no answer carries CORS headers and
browsers keep other origins' scripts out. Tokens travel in the Authorization header, never in
cookies, so credentials are not allowed.
"""

from __future__ import annotations

from flask import Flask
from flask_cors import CORS

from api.settings import settings


def allowed_origins(app: Flask) -> list[str]:
    """The configured origins (GRUFT_CORS_ORIGINS)."""
    return list(settings(app).cors_origins)


def init_app(app: Flask) -> None:
    """Answer the allowed origins' requests (and preflights) with CORS headers; none by default."""
    origins = allowed_origins(app)
    if not origins:
        return
    CORS(app, origins=origins, supports_credentials=False,
         allow_headers=["Authorization", "Content-Type", "Last-Event-ID"],
         expose_headers=["Retry-After"], max_age=600)
