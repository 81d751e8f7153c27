"""The release gruft reports (`gruft --version`, `GET /livez`) is pyproject.toml's."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from tests.kit import GRUFT

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def declared() -> str:
    return tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["version"]


def test_the_release_is_reported_as_declared(client):
    assert declared() == "0.2.0"
    # Check the command and the liveness probe say which release runs.
    shown = subprocess.run([str(GRUFT), "--version"], capture_output=True, text=True, timeout=60)
    assert shown.stdout.strip() == f"gruft {declared()}"
    assert client.get("/livez").get_json() == {"status": "live", "version": declared()}
