"""Liveness and readiness, as operators' probes expect (issue 23, items 5 and 9).

`GET /livez`: the process answers (nothing else is looked at). `GET /readyz`: the store answers
a read and takes writes (service.store.health: a file written beside an SQLite store and its write
lock taken and let go; a PostgreSQL server that is not a read-only standby), and this worker's
follower of the log is not stuck (service.store.follower: with subscribers, its thread runs and has
ended a round within GRUFT_FOLLOWER_STUCK seconds, 30 by default: else its live streams, bots
and read models hear of nothing new); else 503 saying which, with Retry-After. With witnesses
(GRUFT_WITNESSES), it lists each and how far behind the log it is, without being unready for it.

A worker whose store answered that its files are damaged (service.store.health, `is_damaged`) answers
every request but /livez with that 503 from then on (issue 32, item 7): one line in the log,
nothing more read from or written to the damaged file until its operator restores a backup.
"""

from __future__ import annotations

import logging

from eventsourcing.persistence import DatabaseError
from flask import Flask, request
from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint, error_response
from api.games import games
from api.settings import settings
from api.worker import worker
from service.release import release
from service.store.health import StoreNotWritable, check_writable, damaged_line, is_damaged

blp = GruftBlueprint("health", __name__, description="Liveness and readiness probes")
RETRY_AFTER_SECONDS = 5
log = logging.getLogger("gruft.health")


@blp.route("/livez")
class Live(MethodView):
    @blp.response(200, schemas.Health)
    def get(self):
        """The process answers; with the release it runs."""
        return {"status": "live", "version": release()}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, schemas.Health)
    @blp.alt_response(503, schema=schemas.Error,
                      description="unavailable: the store does not answer or takes no writes, or "
                      "the log's follower is stuck")
    def get(self):
        """The store answers and takes writes, and the log's follower is not stuck."""
        store = games()
        if store.damaged:
            return not_ready(store.damaged)
        try:
            store.recorder.max_notification_id()
        except Exception as exc:  # any store error: not ready, and say why
            return not_ready(f"the game store does not answer ({exc})")
        try:
            check_writable(store.storage)
        except StoreNotWritable as exc:
            return not_ready(str(exc))
        stuck = store.follower.stuck(settings().follower_stuck)
        if stuck:
            return not_ready(stuck)
        witnessing = worker().witnessing
        if not witnessing.witnesses:
            return {"status": "ready"}
        # how far behind the log's witnesses are: said, never a reason to be unready (a witness
        # down or refusing never stops play)
        return {"status": "ready", "witnesses": witnessing.status()}


def not_ready(why: str):
    """503 in the error shape, saying why, with Retry-After."""
    body, status = error_response(503, "unavailable", f"not ready: {why}")
    body.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return body, status


def init_app(app: Flask) -> None:
    """A worker whose store is damaged answers 503 to everything but /livez."""

    @app.before_request
    def refuse_when_damaged():
        if games().damaged and request.endpoint != "health.Live":
            return not_ready(games().damaged)
        return None

    @app.errorhandler(DatabaseError)
    def store_error(err: DatabaseError):
        if not is_damaged(err):
            raise err  # not a fault of the store's files: the server's own error, as before
        store = games()
        if not store.damaged:
            where = store.storage.get("SQLITE_DBNAME") or (
                f"PostgreSQL database {store.storage.get('POSTGRES_DBNAME')}")
            store.damaged = damaged_line(where, str(err))
            log.critical("%s", store.damaged)
        return not_ready(store.damaged)
