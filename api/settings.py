"""The app's settings: the one `service.settings.Settings` its Application read at creation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from api.worker import worker
from service.settings import Settings


def settings(app: Flask | None = None) -> Settings:
    """This app's settings (the current app's when none is given)."""
    return worker(app).games.settings


def source(environ: Mapping[str, str], config: Mapping[str, Any]) -> dict[str, str]:
    """What the settings are read from: the environment, under the app's config where a test
    sets a variable there (a list of origins as the variable would say it)."""
    merged = dict(environ)
    for name in Settings.variables():
        value = config.get(name)
        if value is not None:
            merged[name] = ",".join(value) if isinstance(value, (list, tuple)) else str(value)
    return merged
