"""The host's abort (POST /games/{id}/abort): status aborted, no winners, nothing further
accepted, left out of the statistics, exported and verified like any game (docs/api.md, issue 15)."""

from __future__ import annotations

import random

import pytest

from domain import available_games, game_class
from domain.core import Aborted
from replays.document import verify
from tests.api.sse import ClientStream
from tests.kit import SHORT_OPTIONS, play_over_rest, seats

pytestmark = pytest.mark.app_config(GRUFT_STREAM_KEEPALIVE=0.05)


def new_game(client, key: str = "vampir", players: list[str] | None = None) -> dict:
    answer = client.post("/games", json={"game": key, "players": players or seats(key),
                                         "seed": 7, "options": SHORT_OPTIONS[key]})
    assert answer.status_code == 201
    return answer.get_json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def abort(client, created: dict, token: str | None, body=None):
    headers = bearer(token) if token else {}
    return client.post(f"/games/{created['game_id']}/abort", headers=headers,
                       json={"reason": "the cafe closes"} if body is None else body)


def some_moves(client, created: dict, count: int, seed: int = 1) -> None:
    gid, rng = created["game_id"], random.Random(seed)
    for _ in range(count):
        view = client.get(f"/games/{gid}").get_json()
        player = rng.choice(view["to_act"])
        moves = client.get(f"/games/{gid}/legal-moves?player={player}",
                           headers=bearer(created["host_token"])).get_json()["moves"]
        client.post(f"/games/{gid}/commands", headers=bearer(created["host_token"]),
                    json={**rng.choice(moves), "player": player})


@pytest.mark.parametrize("key", available_games())
def test_the_host_aborts_and_the_game_exports_and_verifies(client, key):
    created = new_game(client, key)
    some_moves(client, created, 3)
    before = client.get(f"/games/{created['game_id']}").get_json()
    answer = abort(client, created, created["host_token"])
    assert answer.status_code == 200, answer.get_json()
    view = answer.get_json()
    assert (view["status"], view["winners"], view["to_act"]) == ("aborted", [], [])
    assert view["version"] == before["version"] + 1 and view["scores"] == before["scores"]
    assert client.get(f"/games/{created['game_id']}").get_json() == view
    last = client.get(f"/games/{created['game_id']}/events?after={before['version']}").get_json()
    assert [(e["type"], e["data"]) for e in last["events"]] == [
        ("GameAborted", {"reason": "the cafe closes"})]
    # Check the export carries it and verifies, the final result naming no winner.
    doc = client.get(f"/games/{created['game_id']}/export").get_json()
    assert doc["status"] == "aborted" and doc["final"]["winners"] == []
    verdict = client.post("/replays/verify", json=doc).get_json()
    assert verdict["valid"], verdict["problems"]
    assert verdict["winners"] == []
    # ... and imports as an aborted game.
    imported = client.post("/games/import", json=doc)
    assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["view"]["status"] == "aborted"


def test_nothing_is_accepted_after_an_abort(client):
    created = new_game(client)
    gid, host = created["game_id"], created["host_token"]
    view = client.get(f"/games/{gid}").get_json()
    player = view["to_act"][0]
    move = client.get(f"/games/{gid}/legal-moves?player={player}",
                      headers=bearer(host)).get_json()["moves"][0]
    assert abort(client, created, host).status_code == 200
    for headers, body in ((bearer(host), {**move, "player": player}),
                          (bearer(created["player_tokens"][player]), move)):
        answer = client.post(f"/games/{gid}/commands", headers=headers, json=body)
        assert answer.status_code == 409
        assert answer.get_json()["error"]["code"] == "conflict"
    again = abort(client, created, host)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "conflict"
    assert client.get(f"/games/{gid}").get_json()["version"] == view["version"] + 1
    assert client.get(f"/games/{gid}/legal-moves?player={player}",
                      headers=bearer(host)).get_json()["moves"] == []


def test_only_the_host_may_abort(client):
    created = new_game(client)
    player_token = next(iter(created["player_tokens"].values()))
    for token, status, code in ((player_token, 403, "forbidden"), (None, 401, "unauthorized"),
                                ("not-a-token", 401, "unauthorized")):
        answer = abort(client, created, token)
        assert (answer.status_code, answer.get_json()["error"]["code"]) == (status, code)
    assert client.get(f"/games/{created['game_id']}").get_json()["status"] == "in_progress"


@pytest.mark.parametrize("body", [{}, {"reason": ""}, {"reason": 5}, {"reason": "x" * 501},
                                  {"reason": "ok", "winner": "Ann"}, {"reason": "   "}])
def test_a_malformed_abort_is_400_and_changes_nothing(client, body):
    created = new_game(client)
    answer = abort(client, created, created["host_token"], body)
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "bad_request"
    assert client.get(f"/games/{created['game_id']}").get_json()["status"] == "in_progress"


def test_a_finished_game_cannot_be_aborted(client):
    created = new_game(client)
    play_over_rest(client, created, random.Random(3))
    answer = abort(client, created, created["host_token"])
    assert answer.status_code == 409
    assert client.get(f"/games/{created['game_id']}").get_json()["status"] == "finished"


def test_an_aborted_game_is_listed_as_such_and_left_out_of_the_statistics(client):
    players = ["Zed", "Yan", "Xia"]
    finished = new_game(client, players=players)
    play_over_rest(client, finished, random.Random(4))
    stats_before = client.get("/players/Zed/stats").get_json()
    board_before = client.get("/leaderboard?game=vampir").get_json()
    aborted = new_game(client, players=players)
    some_moves(client, aborted, 4)
    assert abort(client, aborted, aborted["host_token"]).status_code == 200
    listed = client.get("/games?status=aborted").get_json()["games"]
    assert [g["game_id"] for g in listed] == [aborted["game_id"]]
    assert listed[0]["status"] == "aborted"
    assert aborted["game_id"] not in [g["game_id"] for g in
                                      client.get("/games?status=finished").get_json()["games"]]
    assert client.get("/players/Zed/stats").get_json() == stats_before
    assert client.get("/leaderboard?game=vampir").get_json() == board_before
    assert stats_before["games"]["vampir"]["played"] == 1


def test_a_stream_ends_with_the_abort(client):
    created = new_game(client)
    stream = ClientStream(client, f"/games/{created['game_id']}/stream")
    stream.next()
    assert abort(client, created, created["host_token"]).status_code == 200
    messages = stream.until_end()
    assert messages[-1].data["view"]["status"] == "aborted"
    assert [e["type"] for e in messages[-1].data["events"]] == ["GameAborted"]


def test_the_verifier_refuses_play_after_an_abort_and_an_abort_after_the_end(client):
    created = new_game(client)
    gid = created["game_id"]
    some_moves(client, created, 2)
    abort(client, created, created["host_token"])
    doc = client.get(f"/games/{gid}/export").get_json()
    cls = game_class(doc["game"])
    # Check the domain refuses a command after the abort (409 over the API).
    game = verify(doc).game
    with pytest.raises(Aborted, match="the host aborted this game"):
        game.execute(game.players[0], {"type": next(iter(cls.COMMANDS))})
    # A second abort cannot be re-run: the verifier names its version.
    events = doc["events"]
    twice = {**doc, "events": events + [{**events[-1], "version": len(events) + 1}]}
    problems = verify(twice).problems
    assert any(p["version"] == len(events) + 1 for p in problems), problems
