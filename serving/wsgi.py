"""The application `gruft serve` runs: the REST API, with the server's bot seats played beside it.

The API (api.create_app) plays no bots; this is where the two meet. Each worker's owner
(api/worker.py) starts its bot and clock runners (service/runners/) at once unless
GRUFT_BOTS=external, so a restarted server makes the bot moves it owes; under tests the runners
start with the first bot game created through the app.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from typing import Any

from flask import Flask

from serving import gcpause

BOOT_RETRY_SECONDS = 2.0  # a worker booting while the store is away or busy tries again


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """api.create_app, whose worker plays the bot seats and the clocks (api/worker.py)."""
    from api import create_app as create_api
    from api.worker import worker

    app = build_waiting(lambda: create_api(test_config))
    worker(app).play_bots()  # at once when served; under tests with the first bot game
    if not app.testing:
        pause_collections(app)
    return app


def pause_collections(app: Flask) -> bool:
    """Shorten a served worker's full collections (serving/gcpause.py) unless
    GRUFT_GC_FREEZE=0."""
    from api.worker import worker

    settings = worker(app).games.settings
    if settings.gc_freeze:
        gcpause.install(settings.gc_unfreeze)
    return settings.gc_freeze


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
