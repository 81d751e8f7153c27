"""CORS (flask-cors): only the origins in GRUFT_CORS_ORIGINS get the headers; none by default."""

from __future__ import annotations

import pytest

from api import create_app

ALLOWED = "https://club.example"


# The origins as the variable would say them: spaces and a trailing slash are read past.
ORIGINS = pytest.mark.app_config(GRUFT_CORS_ORIGINS=f" {ALLOWED}/ , https://other.example")


@ORIGINS
def test_an_allowed_origin_gets_the_headers(client):
    answer = client.get("/games", headers={"Origin": ALLOWED})
    assert answer.status_code == 200
    assert answer.headers["Access-Control-Allow-Origin"] == ALLOWED
    # A preflight for a command with a token is answered for the allowed origin.
    preflight = client.options("/games/x/commands", headers={
        "Origin": ALLOWED, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, Content-Type"})
    assert preflight.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "authorization" in preflight.headers["Access-Control-Allow-Headers"].lower()
    assert "Access-Control-Allow-Credentials" not in preflight.headers


@ORIGINS
def test_another_origin_gets_none(client):
    for origin in ("https://evil.example", "https://club.example.evil.example",
                   "http://club.example"):
        answer = client.get("/games", headers={"Origin": origin})
        assert answer.status_code == 200
        assert "Access-Control-Allow-Origin" not in answer.headers, origin


def test_no_origin_is_allowed_by_default(sqlite_env, monkeypatch):
    monkeypatch.delenv("GRUFT_CORS_ORIGINS", raising=False)
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    answer = app.test_client().get("/games", headers={"Origin": ALLOWED})
    assert "Access-Control-Allow-Origin" not in answer.headers
    app.extensions["gruft"].close()
