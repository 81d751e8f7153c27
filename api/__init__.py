"""gruft's REST API: the Flask app factory."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask

MAX_BODY_BYTES = 1 << 20  # 1 MiB; larger bodies get 413


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: settings, the games Application, the API with its OpenAPI document."""
    from flask_smorest import Blueprint as SmorestBlueprint

    from api.errors import GruftApi, register_error_handlers
    from api.games import blp as games_blp
    from api.replays import blp as replays_blp
    from service import Games
    from service.settings import data_dir
    from service.signing import SigningKey

    app = Flask(__name__)
    app.config.from_mapping(
        API_TITLE="gruft",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        GRUFT_ENV=None,  # eventsourcing environment; None reads the process environment
    )
    if test_config:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False
    env = app.config["GRUFT_ENV"]
    games = Games(env=dict(os.environ) if env is None else env)
    app.extensions["gruft"] = games
    app.extensions["gruft.signing_key"] = SigningKey.load_or_create(data_dir(games.storage))

    api = GruftApi(app)
    api.register_blueprint(games_blp)
    api.register_blueprint(replays_blp)
    for module in OPTIONAL_BLUEPRINTS:
        blueprint = _optional(module, "blp")
        if isinstance(blueprint, SmorestBlueprint):
            api.register_blueprint(blueprint)  # documented in /openapi.json
        elif blueprint is not None:
            app.register_blueprint(blueprint)  # pages, not API
    for module in OPTIONAL_HOOKS:
        init_app = _optional(module, "init_app")
        if init_app is not None:
            init_app(app)
    register_error_handlers(app)
    return app


# Parts of the API that live in their own modules: a blueprint `blp`, or an `init_app(app)` hook.
OPTIONAL_BLUEPRINTS = ("api.viewer", "api.stats", "api.docs")
OPTIONAL_HOOKS = ("api.request_log",)


def _optional(module: str, name: str) -> Any:
    import importlib

    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return None
    return getattr(loaded, name)
