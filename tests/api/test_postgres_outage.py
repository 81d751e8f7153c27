"""A PostgreSQL outage (issue 23, item 4): every request is answered 503 with Retry-After within
5 seconds while the database is away, service is normal once it is back, and nothing an answer
said was stored is lost. The probe: requests hung for 30 to 60 seconds.

The database is one this test starts and stops itself (tests/own_postgres.py)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from tests.kit import served_gruft, wait_until
from tests.own_postgres import BINS, OwnPostgres

BOUND = 5  # seconds: the answer must come within this, so the client waits no longer
# A pool that lost its connections tries to reconnect after waits of d, 2d, 4d, 8d, 16d... s
# (psycopg_pool; d = 1 s +- 10%): at 1, 3, 7, 15 and 31 s. Back after 17.5 to ~22 s, the
# database would wait ~10 s for the next try: a test that it does not.
LONG_OUTAGE = 17.5


@pytest.fixture
def postgres(tmp_path):
    if not BINS:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL's binaries are required when CI is set")
        pytest.skip("no /usr/lib/postgresql/*/bin (apt-get install postgresql)")
    # Not under pytest's own folder: that is root's alone, and the server runs as nobody.
    folder = Path(tempfile.mkdtemp(prefix="gruft-pg-"))
    try:
        server = OwnPostgres(folder)
        server.start()
        yield server
        with suppress(subprocess.CalledProcessError):  # already stopped
            server.stop("immediate")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def request(port: int, method: str, path: str, body: Any = None, token: str | None = None
            ) -> tuple[int, Any, str | None]:
    """(status, JSON body, Retry-After); a socket timeout past BOUND fails the test."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=BOUND)
    headers = {"Content-Type": "application/json", "Connection": "close"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null"), answer.getheader("Retry-After")
    finally:
        conn.close()


def next_command(port: int, game: str, tokens: dict[str, str]) -> tuple[str, dict]:
    """The first legal move of the first player awaited, with expected_version."""
    view = request(port, "GET", f"/games/{game}")[1]
    player = view["to_act"][0]
    moves = request(port, "GET", f"/games/{game}/legal-moves", token=tokens[player])[1]
    return tokens[player], {**moves["moves"][0], "expected_version": view["version"]}


def test_an_outage_is_a_quick_503_and_nothing_is_lost(postgres, tmp_path):
    env = postgres.settings(str(tmp_path / "data"))
    with served_gruft(env, tmp_path / "serve.log", workers=2) as port:
        status, created, _ = request(port, "POST", "/games", {"game": "vampir",
                                                              "players": ["A", "B", "C"]})
        assert status == 201, created
        game, tokens = created["game_id"], created["player_tokens"]
        stored = []
        for _ in range(3):
            token, command = next_command(port, game, tokens)
            status, answer, _ = request(port, "POST", f"/games/{game}/commands", command, token)
            assert status == 200, answer
            stored.append(answer["version"])
        token, command = next_command(port, game, tokens)
        postgres.stop("fast")
        # Check, while the database is away, commands and reads are a 503 with Retry-After
        # within BOUND seconds (several times: the workers' pools find their connections dead).
        for path, body in [(f"/games/{game}/commands", command), (f"/games/{game}", None)] * 3:
            status, answer, retry = request(port, "POST" if body else "GET", path, body, token)
            assert status == 503 and answer["error"]["code"] == "unavailable", answer
            assert retry is not None and int(retry) >= 1
        assert request(port, "GET", "/readyz")[0] == 503
        postgres.start()
        # Check normal service once it is back, at once: the same command is accepted, and
        # reads spread over both workers are answered.
        status, answer, _ = request(port, "POST", f"/games/{game}/commands", command, token)
        assert status == 200, answer
        stored.append(answer["version"])
        for _ in range(4):
            assert request(port, "GET", f"/games/{game}")[0] == 200
            assert request(port, "GET", "/readyz")[:2] == (200, {"status": "ready"})
        # Check nothing answered as stored was lost.
        log = request(port, "GET", f"/games/{game}/events?limit=1000",
                      token=created["host_token"])[1]
        assert "events" in log, log
        versions = [event["version"] for event in log["events"]]
        assert versions == list(range(1, len(versions) + 1))
        assert set(stored) <= set(versions) and versions[-1] == stored[-1]
        # Check the read models follow the log again: a game created now is listed.
        status, later, _ = request(port, "POST", "/games", {"game": "vampir",
                                                            "players": ["D", "E", "F"]})
        assert status == 201, later

        def listed() -> bool:
            status, page, _ = request(port, "GET", "/games")
            return status == 200 and later["game_id"] in {g["game_id"] for g in page["games"]}

        wait_until(listed, "the game created after the outage to be listed")


def test_service_is_normal_at_once_after_a_long_outage(postgres, tmp_path):
    """The probe's flake: after a longer outage a worker's pool sat out its reconnection wait
    with the database back (one worker: its pool's waits start with the outage's first
    request, so the database returns between two of its tries)."""
    env = postgres.settings(str(tmp_path / "data"))
    with served_gruft(env, tmp_path / "serve.log", workers=1) as port:
        status, created, _ = request(port, "POST", "/games", {"game": "vampir",
                                                              "players": ["A", "B", "C"]})
        assert status == 201, created
        game, tokens = created["game_id"], created["player_tokens"]
        token, command = next_command(port, game, tokens)
        postgres.stop("fast")
        # Check every request is refused quickly for as long as the database is away.
        back_at = time.monotonic() + LONG_OUTAGE
        while time.monotonic() < back_at:
            status, answer, _ = request(port, "GET", f"/games/{game}")
            assert status == 503 and answer["error"]["code"] == "unavailable", answer
        postgres.start()
        # Check the first requests once it is back are answered, none of them 503.
        status, answer, _ = request(port, "POST", f"/games/{game}/commands", command, token)
        assert status == 200, answer
        assert request(port, "GET", f"/games/{game}")[1]["version"] == answer["version"]
        assert request(port, "GET", "/readyz")[:2] == (200, {"status": "ready"})
