"""The application `gruft serve` runs: the REST API, with the server's bot seats played beside it.

The API (api.create_app) knows nothing of bots; this is where the two meet. Each worker starts
its bot runner (service.runners.bot_runner) at once unless GRUFT_BOTS=external, so a restarted server makes the
bot moves it owes; under tests the runner starts with the first bot game created through the app.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from typing import Any

from flask import Flask

BOOT_RETRY_SECONDS = 2.0  # a worker booting while the store is away or busy tries again


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """api.create_app, plus this worker's bot runner (its starter in extensions["gruft.bots"])."""
    from api import create_app as create_api
    from service.runners.bot_runner import bots_starter

    app = build_waiting(lambda: create_api(test_config))
    start = app.extensions["gruft.bots"] = bots_starter(app.extensions["gruft"])
    if not app.testing:
        start()
    return app


def build_waiting(build: Any) -> Flask:
    """`build()`, tried again while the store does not answer: a worker gunicorn starts during
    an outage (or beside a busy writer) that failed to boot would stop the whole server, every
    other worker with it. A store that is away for good is said once a try, in the error log.
    """
    from eventsourcing.persistence import OperationalError

    while True:
        try:
            return build()
        except (OperationalError, sqlite3.OperationalError) as exc:
            print(f"gruft: this worker cannot reach the store yet ({exc}); trying again in "
                  f"{BOOT_RETRY_SECONDS:g} s", file=sys.stderr, flush=True)
            time.sleep(BOOT_RETRY_SECONDS)
