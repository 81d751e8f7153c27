"""Bot seats over HTTP: `"bots"` on POST /games, the views that name them, games the server plays.

The app under test is the served one (cli.wsgi: the API with its bot runner), with bots moving
at once (GRUFT_BOT_DELAY=0); the last tests start real `gruft serve` and `gruft bots` processes.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.wsgi import create_app
from domain import available_games
from tests.kit import SHORT_OPTIONS, seats

GRUFT = Path(sys.executable).with_name("gruft")
PATIENCE = 60.0  # seconds a test waits for the bots before calling them stuck


def wait_until(check: Callable[[], bool], what: str, timeout: float = PATIENCE) -> None:
    """Poll `check` until it holds; fail naming `what` if it still does not after `timeout`."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.02)


@pytest.fixture
def served(sqlite_env) -> Iterator[Any]:
    """The served app (with its bot runner) on a fresh SQLite file."""
    app = create_app({"TESTING": True, "GRUFT_ENV": {**sqlite_env, "GRUFT_BOT_DELAY": "0"}})
    yield app
    from bots.seats import _embedded

    runner = _embedded.get(app.extensions["gruft"])
    if runner is not None:
        runner.stop()
    app.extensions["gruft"].close()


def body(key: str, bots: Any, **extra: Any) -> dict[str, Any]:
    return {"game": key, "players": seats(key), "seed": 1, "options": SHORT_OPTIONS[key],
            "bots": bots, **extra}


@pytest.mark.parametrize("bots", [
    {"Zed": "random"},  # not a seat
    {"Ann": "smart"},  # not a bot
    {"Ann": "first"},  # a bot of bots/, but not one a seat may be given (docs/api.md)
    {"Ann": 1},
    {"Ann": None},
    {"": "random"},
    ["Ann"],
    "heuristic",
    None,
], ids=repr)
def test_bad_bots_are_refused_and_create_nothing(served, bots):
    client = served.test_client()
    answer = client.post("/games", json=body("vampir", bots))
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["error"]["code"] == "bad_request"
    assert "bots" in answer.get_json()["error"]["message"]
    # Check nothing at all was stored (no game, no tokens, no bot seats).
    assert served.extensions["gruft"].recorder.max_notification_id() is None


def test_the_views_name_the_bot_seats(served):
    client = served.test_client()
    created = client.post("/games", json=body("vampire-queen", {"Cy": "random",
                                                                "Ben": "heuristic"}))
    assert created.status_code == 201, created.get_json()
    created = created.get_json()
    seats_ = {"Ben": "heuristic", "Cy": "random"}  # in seat order
    assert created["view"]["bots"] == seats_
    game_id = created["game_id"]
    assert client.get(f"/games/{game_id}").get_json()["bots"] == seats_
    ann = {"Authorization": f"Bearer {created['player_tokens']['Ann']}"}
    assert client.get(f"/games/{game_id}/view", headers=ann).get_json()["bots"] == seats_
    # Check a game without bot seats has views as before, naming none.
    plain = client.post("/games", json={"game": "vampir", "players": seats("vampir"),
                                        "options": SHORT_OPTIONS["vampir"]}).get_json()
    assert "bots" not in plain["view"]
    assert "bots" not in client.get(f"/games/{plain['game_id']}").get_json()


def finished_view(client: Any, game_id: str) -> dict[str, Any]:
    """The public view once the game is over (the bots playing meanwhile)."""
    views: list[dict[str, Any]] = []

    def over() -> bool:
        views.append(client.get(f"/games/{game_id}").get_json())
        return views[-1]["status"] == "finished"

    wait_until(over, f"game {game_id} to end")
    return views[-1]


def check_verifies(client: Any, game_id: str) -> dict[str, Any]:
    """The finished game's export verifies on this server; the document is answered."""
    document = client.get(f"/games/{game_id}/export").get_json()
    verdict = client.post("/replays/verify", json=document).get_json()
    assert verdict["valid"], verdict["problems"]
    return document


@pytest.mark.parametrize("key", available_games())
def test_a_game_of_bots_alone_plays_itself_to_the_end(served, key):
    client = served.test_client()
    bots = {name: "heuristic" for name in seats(key)}
    created = client.post("/games", json=body(key, bots)).get_json()
    view = finished_view(client, created["game_id"])
    assert view["bots"] == bots
    document = check_verifies(client, created["game_id"])
    assert document["final"]["winners"] == view["winners"]
    # Check the stream's views name the bot seats too (a finished game's stream is one message).
    stream = client.get(f"/games/{created['game_id']}/stream").get_data(as_text=True)
    data = [json.loads(line[5:]) for line in stream.splitlines() if line.startswith("data:")]
    assert [m["view"]["bots"] for m in data] == [bots]


def test_one_person_and_three_bots_over_rest(served):
    client = served.test_client()
    key, rng = "voodoo-prince", random.Random(3)
    names = seats(key, 4)
    created = client.post("/games", json={
        "game": key, "players": names, "options": SHORT_OPTIONS[key],
        "bots": {name: "heuristic" for name in names[1:]}}).get_json()
    game_id, ann = created["game_id"], {"Authorization": f"Bearer {created['player_tokens']['Ann']}"}
    moved, views = 0, []

    def ann_or_over() -> bool:
        views.append(client.get(f"/games/{game_id}").get_json())
        return views[-1]["status"] == "finished" or views[-1]["to_act"] == ["Ann"]

    while True:
        # Check the bots answer Ann's every move until she is awaited again.
        wait_until(ann_or_over, "the bots to answer")
        if views[-1]["status"] == "finished":
            break
        moves = client.get(f"/games/{game_id}/legal-moves", headers=ann).get_json()["moves"]
        answer = client.post(f"/games/{game_id}/commands", headers=ann,
                             json={**rng.choice(moves), "expected_version": views[-1]["version"]})
        assert answer.status_code == 200, answer.get_json()
        moved += 1
    document = check_verifies(client, game_id)
    played = [e["data"]["player"] for e in document["events"]
              if e["type"] in ("TrumpChosen", "CardPlayed")]
    assert played.count("Ann") == moved > 0 and set(played) == set(names)


def test_the_api_document_describes_bots(served):
    spec = served.test_client().get("/openapi.json").get_json()["components"]["schemas"]
    bots = spec["CreateGame"]["properties"]["bots"]
    assert bots["type"] == "object"
    assert bots["additionalProperties"]["enum"] == ["heuristic", "random"]
    assert "bots" in spec["View"]["properties"]


# -- real processes --------------------------------------------------------------------------

def call(port: int, method: str, path: str, payload: Any = None) -> tuple[int, Any]:
    """One request on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, None if payload is None else json.dumps(payload),
                     {"Content-Type": "application/json", "Connection": "close"})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        conn.close()


def start(argv: list[str], env: dict[str, str], log: Path, **kwargs: Any) -> subprocess.Popen:
    with log.open("a") as out:
        return subprocess.Popen([str(GRUFT), *argv], env={**os.environ, **env}, stdout=out,
                                stderr=subprocess.STDOUT, **kwargs)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("mode", ["embedded", "external"])
def test_a_served_game_of_bots_plays_itself_to_the_end(sqlite_env, tmp_path, mode):
    # `gruft serve` with two workers, whose runners share the lock (embedded), or beside a
    # `gruft bots` process (external).
    env = {**sqlite_env, "GRUFT_BOT_DELAY": "0", "GRUFT_BOTS": mode}
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.set_inheritable(True)
    port, log = sock.getsockname()[1], tmp_path / "serve.log"
    procs = [start(["serve", "--fd", str(sock.fileno()), "--workers", "2"], env, log,
                   pass_fds=(sock.fileno(),))]
    sock.close()
    if mode == "external":
        procs.append(start(["bots"], env, log))
    try:
        def up() -> bool:
            assert procs[0].poll() is None, log.read_text()
            try:
                return call(port, "GET", "/signing-key")[0] == 200
            except OSError:
                return False

        wait_until(up, "the server to answer")
        ids = []
        for key in available_games():
            status, created = call(port, "POST", "/games", {
                "game": key, "players": seats(key), "options": SHORT_OPTIONS[key],
                "bots": {name: "random" for name in seats(key)}})
            assert status == 201, created
            ids.append(created["game_id"])
        for game_id in ids:
            wait_until(lambda g=game_id: call(port, "GET", f"/games/{g}")[1]["status"]
                       == "finished", "a served bot game to end")
            status, document = call(port, "GET", f"/games/{game_id}/export")
            assert status == 200, document
            status, verdict = call(port, "POST", "/replays/verify", document)
            assert status == 200 and verdict["valid"], verdict
    finally:
        for proc in procs:
            stop(proc)
        print(log.read_text()[-4000:])
