"""The release of gruft this is (pyproject.toml's version, as installed): `gruft --version` and
`GET /livez` report it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def release() -> str:
    """gruft's version as installed, e.g. "0.2.0" ("unknown" when run from an uninstalled tree)."""
    try:
        return version("gruft")
    except PackageNotFoundError:
        return "unknown"
