"""Bot seats over HTTP: `"bots"` on POST /games, the views that name them, games the server plays.

The app under test is the served one (serving.wsgi: the API with its bot runner), with bots moving
at once (GRUFT_BOT_DELAY=0); the last tests start real `gruft serve` and `gruft bots` processes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from domain import available_games
from serving.wsgi import create_app
from tests.kit import SHORT_OPTIONS, call, seats, served_gruft, start_gruft, stop, wait_until


@pytest.fixture
def served(sqlite_env) -> Iterator[Any]:
    """The served app (with its bot runner) on a fresh SQLite file."""
    app = create_app({"TESTING": True, "GRUFT_ENV": {**sqlite_env, "GRUFT_BOT_DELAY": "0"}})
    yield app
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
    assert served.extensions["gruft"].games.recorder.max_notification_id() is None


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

@pytest.mark.parametrize("mode", ["embedded", "external"])
def test_a_served_game_of_bots_plays_itself_to_the_end(sqlite_env, tmp_path, mode):
    # `gruft serve` with two workers, whose runners share the lock (embedded), or beside a
    # `gruft bots` process (external).
    env = {**sqlite_env, "GRUFT_BOT_DELAY": "0", "GRUFT_BOTS": mode}
    log = tmp_path / "serve.log"
    with served_gruft(env, log, workers=2) as port:
        runner = start_gruft(["bots"], env, log) if mode == "external" else None
        try:
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
            if runner is not None:
                stop(runner)
