"""The REST contract of docs/api.md: shapes, tokens, and every error status with its one JSON shape."""

from __future__ import annotations

import random

import pytest

from domain import available_games
from tests.kit import SHORT_OPTIONS, play_over_rest, seats

VIEW_KEYS = {"game_id", "game", "players", "status", "version", "to_act", "scores", "winners",
             "seed_commitment", "state"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client, game="voodoo-prince", players=("Ann", "Ben", "Cy"), **extra):
    answer = client.post("/games", json={"game": game, "players": list(players), **extra})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def assert_error(answer, status: int, code: str, rule: str | None = None) -> dict:
    assert answer.status_code == status, answer.get_json()
    body = answer.get_json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if rule is not None:
        assert body["error"]["rule"] == rule
    return body["error"]


def log_of(client, game_id, headers=None):
    return client.get(f"/games/{game_id}/events?limit=1000", headers=headers or {}).get_json()


def test_create_answers_tokens_and_a_public_view(client):
    # Check a created game: one host token, one token per player, all distinct; public view only.
    created = create(client, seed=11)
    assert set(created["player_tokens"]) == {"Ann", "Ben", "Cy"}
    tokens = [created["host_token"], *created["player_tokens"].values()]
    assert len(set(tokens)) == 4 and all(len(t) >= 22 for t in tokens)
    view = created["view"]
    assert set(view) >= VIEW_KEYS
    assert "private" not in view and "seed" not in view
    assert view["status"] == "in_progress" and view["winners"] == []
    # Check the same public view is served at GET /games/{id}.
    assert client.get(f"/games/{created['game_id']}").get_json() == view


@pytest.mark.parametrize("body, fragment", [
    ({"players": ["A", "B"]}, "game"),
    ({"game": "chess", "players": ["A", "B"]}, "Must be one of"),
    ({"game": "voodoo-prince", "players": "Ann"}, "players"),
    ({"game": "voodoo-prince", "players": ["A"]}, "2 to 5 players"),
    ({"game": "voodoo-prince", "players": ["A", "A"]}, "distinct"),
    ({"game": "voodoo-prince", "players": ["A", "B"], "colour": "red"}, "Unknown field"),
    ({"game": "voodoo-prince", "players": ["A", "B"], "seed": 1.5}, "seed"),
    ({"game": "voodoo-prince", "players": ["A", "B"], "seed": True}, "seed"),
    ({"game": "voodoo-prince", "players": ["A", "B"], "options": {"rounds": 99}}, "rounds"),
    ({"game": "voodoo-prince", "players": ["A", "B"], "options": {"speed": 1}}, "no option"),
    ({"game": "voodoo-prince", "players": ["A", "B"], "deal": {"rounds": "x"}}, ""),
])
def test_bad_creations_are_400_and_store_nothing(client, body, fragment):
    # Fail to create a game from a malformed body; nothing is stored.
    error = assert_error(client.post("/games", json=body), 400, "bad_request")
    assert fragment in error["message"]
    assert client.get("/games").get_json()["games"] == []


def test_malformed_json_and_oversized_bodies(client):
    # Fail to send JSON that does not parse (400) or a body over 1 MiB (413).
    assert_error(client.post("/games", data="{", content_type="application/json"), 400,
                 "bad_request")
    huge = '{"game": "vampir", "players": ["' + "x" * (1 << 20) + '"]}'
    assert_error(client.post("/games", data=huge, content_type="application/json"), 413,
                 "payload_too_large")


def test_tokens_401_and_403(client):
    created = create(client)
    other = create(client)
    gid = created["game_id"]
    ann, ben = bearer(created["player_tokens"]["Ann"]), bearer(created["player_tokens"]["Ben"])
    # Fail with a wrong, malformed or foreign token: 401, and the answer names no game detail.
    for headers in (bearer("nonsense"), {"Authorization": "Basic abc"},
                    bearer(other["player_tokens"]["Ann"]), bearer(other["host_token"])):
        for path in ("", "/view", "/legal-moves", "/events"):
            assert_error(client.get(f"/games/{gid}{path}", headers=headers), 401, "unauthorized")
        assert_error(client.post(f"/games/{gid}/commands", headers=headers,
                                 json={"type": "play", "card": "R1"}), 401, "unauthorized")
    # Fail to command without a token (a spectator acts for nobody): 401.
    assert_error(client.post(f"/games/{gid}/commands", json={"type": "play", "card": "R1"}),
                 401, "unauthorized")
    # Fail to act or look as another player with a player token: 403.
    assert_error(client.post(f"/games/{gid}/commands", headers=ben,
                             json={"type": "play", "card": "R1", "player": "Ann"}), 403, "forbidden")
    assert_error(client.get(f"/games/{gid}/view?player=Ann", headers=ben), 403, "forbidden")
    # Fail to replay or export an unfinished game as a player: 403.
    assert_error(client.get(f"/games/{gid}/replay/1", headers=ann), 403, "forbidden")
    assert_error(client.get(f"/games/{gid}/export", headers=ann), 403, "forbidden")
    assert_error(client.get(f"/games/{gid}/replay/1"), 403, "forbidden")


def test_not_found(client):
    created = create(client)
    gid, host = created["game_id"], bearer(created["host_token"])
    assert_error(client.get("/games/00000000-0000-0000-0000-000000000000"), 404, "not_found")
    assert_error(client.get("/games/not-a-uuid/view"), 404, "not_found")
    version = created["view"]["version"]
    assert client.get(f"/games/{gid}/replay/{version}", headers=host).status_code == 200
    assert_error(client.get(f"/games/{gid}/replay/{version + 1}", headers=host), 404, "not_found")


def test_refusals_cite_their_ruling_and_change_nothing(any_store_client):
    client = any_store_client
    created = create(client, seed=5)
    gid = created["game_id"]
    tokens = {p: bearer(t) for p, t in created["player_tokens"].items()}
    before = log_of(client, gid, bearer(created["host_token"]))
    leader = created["view"]["to_act"][0]
    waiting = next(p for p in created["player_tokens"] if p != leader)
    # Fail to play out of turn: 422 not_your_turn, citing the turn ruling.
    assert_error(client.post(f"/games/{gid}/commands", headers=tokens[waiting],
                             json={"type": "play", "card": "R1"}), 422, "not_your_turn", "VP-5")
    # Fail to play a card the leader does not hold: 422 illegal_move citing VP-5.
    hand = client.get(f"/games/{gid}/view", headers=tokens[leader]).get_json()["private"]["hand"]
    missing = next(f"{c}{v}" for c in "RBGYP" for v in range(11) if f"{c}{v}" not in hand)
    assert_error(client.post(f"/games/{gid}/commands", headers=tokens[leader],
                             json={"type": "play", "card": missing}), 422, "illegal_move", "VP-5")
    # Fail with a malformed command: unknown type, unknown field, wrong type: 400.
    for body in ({"type": "shuffle"}, {"type": "play", "card": "R1", "cheat": 1},
                 {"type": "play", "card": 7}, {"card": "R1"}):
        assert_error(client.post(f"/games/{gid}/commands", headers=tokens[leader], json=body),
                     400, "bad_request")
    # Check nothing changed.
    assert log_of(client, gid, bearer(created["host_token"])) == before


def test_stale_expected_version_is_a_409_and_writes_nothing(any_store_client):
    client = any_store_client
    created = create(client, seed=5)
    gid, host = created["game_id"], bearer(created["host_token"])
    version = created["view"]["version"]
    leader = created["view"]["to_act"][0]
    move = client.get(f"/games/{gid}/legal-moves?player={leader}", headers=host).get_json()["moves"][0]
    # Fail with a stale version.
    assert_error(client.post(f"/games/{gid}/commands", headers=host,
                             json={**move, "player": leader, "expected_version": version - 1}),
                 409, "conflict")
    assert client.get(f"/games/{gid}").get_json()["version"] == version
    # Check the right version is accepted, and the host acts for the named player.
    answer = client.post(f"/games/{gid}/commands", headers=host,
                         json={**move, "player": leader, "expected_version": version})
    assert answer.status_code == 200
    assert answer.get_json()["version"] > version
    assert answer.get_json()["events"][0]["data"]["player"] == leader


def test_events_are_paged_without_gaps(any_store_client):
    client = any_store_client
    created = create(client, seed=3)
    gid, host = created["game_id"], bearer(created["host_token"])
    play_a_few(client, created, 7)
    seen, after = [], 0
    while True:
        page = client.get(f"/games/{gid}/events?after={after}&limit=2", headers=host).get_json()
        seen += page["events"]
        if page["next_after"] is None:
            break
        after = page["next_after"]
    assert [e["version"] for e in seen] == list(range(1, len(seen) + 1))
    assert len(seen) == client.get(f"/games/{gid}").get_json()["version"]
    assert all(set(e) - {"shape"} == {"version", "type", "timestamp", "by", "data"} for e in seen)
    assert_error(client.get(f"/games/{gid}/events?limit=0"), 400, "bad_request")
    assert_error(client.get(f"/games/{gid}/events?after=-1"), 400, "bad_request")


def play_a_few(client, created, count):
    host = bearer(created["host_token"])
    gid = created["game_id"]
    for _ in range(count):
        view = client.get(f"/games/{gid}").get_json()
        player = view["to_act"][0]
        move = client.get(f"/games/{gid}/legal-moves?player={player}", headers=host).get_json()
        assert client.post(f"/games/{gid}/commands", headers=host,
                           json={**move["moves"][0], "player": player}).status_code == 200


def test_openapi_describes_every_endpoint(client):
    paths = client.get("/openapi.json").get_json()["paths"]
    for path in ("/games", "/games/{game_id}", "/games/{game_id}/view",
                 "/games/{game_id}/legal-moves", "/games/{game_id}/commands",
                 "/games/{game_id}/events", "/games/{game_id}/replay/{n}",
                 "/games/{game_id}/export", "/replays/verify", "/games/import", "/signing-key"):
        assert path in paths, path


@pytest.mark.parametrize("key", available_games())
def test_a_whole_game_over_rest(any_store_client, key):
    client = any_store_client
    # Check a full game for every game kind, played by random clients each with their own token.
    created = create(client, game=key, players=seats(key), options=SHORT_OPTIONS[key])
    commands = play_over_rest(client, created, random.Random(key))
    view = client.get(f"/games/{created['game_id']}").get_json()
    assert commands > 0 and view["status"] == "finished" and view["to_act"] == []
    assert set(view["winners"]) <= set(view["players"])
    # Once finished everything is public: the seed, the replay, the export.
    assert "seed" in view
    export = client.get(f"/games/{created['game_id']}/export").get_json()
    verdict = client.post("/replays/verify", json=export).get_json()
    assert verdict["signature"] == "verified"  # by this server's own key
    assert {k: verdict[k] for k in ("valid", "problems", "scores", "winners")} == {
        "valid": True, "problems": [], "scores": view["scores"], "winners": view["winners"]}
