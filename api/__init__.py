"""gruft's REST API: the Flask app factory."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask

from api.inputs import MAX_BODY_BYTES  # larger get 413 (replay documents: MAX_DOCUMENT_BYTES)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: settings, the games Application, the API with its OpenAPI document."""
    from api import (
        arbiter,
        cors,
        docs,
        gamelog,
        games,
        headers,
        health,
        i18n,
        inputs,
        limits,
        live,
        metrics,
        play,
        replays,
        request_log,
        rules,
        stats,
        table,
        viewer,
    )
    from api.errors import GruftApi, register_error_handlers
    from api.settings import source
    from api.worker import Worker
    from service.release import release
    from service.settings import Settings

    app = Flask(__name__)
    app.config.from_mapping(
        API_TITLE="gruft",
        API_VERSION=release(),  # the release, as `gruft --version` and GET /livez say
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        GRUFT_ENV=None,  # eventsourcing environment; None reads the process environment
    )
    if test_config:
        app.config.from_mapping(test_config)
    i18n.init_app(app)  # the language of pages and messages: ?lang=, Accept-Language, English
    inputs.init_app(app)  # bounded bodies and URLs; before the JSON provider's options below
    app.json.sort_keys = False
    env = dict(os.environ) if app.config["GRUFT_ENV"] is None else app.config["GRUFT_ENV"]
    # Every setting read once, here (service.settings.Settings): the process environment under
    # the eventsourcing environment given, under the variables the config sets.
    settings = Settings.read(source({**os.environ, **env}, app.config))
    # Everything this worker runs, built in one stated order and closed in the reverse
    # (api/worker.py), under the app's one key: a served app starts following the log at once
    # (its runner threads take their locks if free); under tests each starts when first needed.
    app.extensions["gruft"] = Worker(env, settings, served=not app.testing)
    if settings.trusted_hosts:  # GRUFT_TRUSTED_HOSTS: any other Host is a 400
        app.config["TRUSTED_HOSTS"] = list(settings.trusted_hosts)

    api = GruftApi(app)
    for resource in (games, live, table, replays, arbiter, stats, viewer, play, rules, health,
                     gamelog, metrics):
        api.register_blueprint(resource.blp)  # described in /openapi.json
    app.register_blueprint(docs.blp)  # the Swagger UI page itself
    rules.check_pages()  # an installation without its rules pages says so once, here
    limits.init_app(app)  # GRUFT_CREATE_LIMIT, GRUFT_CREATE_KEY: who creates games, how fast
    request_log.init_app(app)
    metrics.init_app(app)  # every request counted and timed, by route and status (GET /metrics)
    headers.init_app(app)  # nosniff everywhere, /docs's Content-Security-Policy
    cors.init_app(app)  # GRUFT_CORS_ORIGINS: web clients on other origins (none by default)
    live.init_app(app)  # a served worker ends its streams when told to stop
    register_error_handlers(app)
    health.init_app(app)  # a damaged store: 503 to everything (service.store.health)
    return app

