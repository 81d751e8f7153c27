"""The application `gruft serve` runs: the REST API, with the server's bot seats played beside it.

The API (api.create_app) knows nothing of bots; this is where the two meet. Each worker starts
its bot runner (bots.seats) at once unless GRUFT_BOTS=external, so a restarted server makes the
bot moves it owes; under tests the runner starts with the first bot game created through the app.
"""

from __future__ import annotations

from typing import Any

from flask import Flask


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """api.create_app, plus this worker's bot runner (its starter in extensions["gruft.bots"])."""
    from api import create_app as create_api
    from bots.seats import bots_starter

    app = create_api(test_config)
    start = app.extensions["gruft.bots"] = bots_starter(app.extensions["gruft"])
    if not app.testing:
        start()
    return app
