"""Hostile input (issue 16): deep nesting, huge numbers, lone surrogates, NUL bytes, odd types and
oversized or chunked bodies all get a clear 4xx in the error shape, and nothing changes."""

from __future__ import annotations

import io
import json

import pytest

from tests.api.test_contract import assert_error, bearer, create, log_of

DEEP = 970  # the probe's depth: Python's JSON parser recursed until RecursionError


def deep(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def post_raw(client, path: str, text: str, headers=None):
    return client.post(path, data=text.encode("utf-8", "surrogatepass"),
                       content_type="application/json", headers=headers or {})


def stored_games(client) -> list:
    return client.get("/games").get_json()["games"]


@pytest.fixture
def game(client):
    created = create(client, seed=5)
    return created, bearer(created["host_token"])


def body_paths(created) -> list[str]:
    return ["/games", f"/games/{created['game_id']}/commands", "/replays/verify", "/games/import"]


def test_deep_nesting_is_a_400_on_every_body_route(client, game):
    created, host = game
    before = log_of(client, created["game_id"], host)
    for path in body_paths(created):
        for text in (deep(), '{"game": ' + deep() + "}", '{"a":' * DEEP + "1" + "}" * DEEP):
            # Fail to send a body nested ~970 deep: 400, not a RecursionError.
            error = assert_error(post_raw(client, path, text, host), 400, "bad_request")
            assert "nest" in error["message"], error
    # Check nothing changed.
    assert log_of(client, created["game_id"], host) == before
    assert len(stored_games(client)) == 1


def test_moderate_nesting_that_parses_is_still_bounded(client, game):
    # A body that parses (60 deep) but nests deeper than any request needs is refused too, so no
    # later step (schemas, canonical JSON, hashing) recurses over it.
    created, host = game
    for path in body_paths(created):
        assert_error(post_raw(client, path, deep(60), host), 400, "bad_request")


def test_huge_integer_literals_are_a_400(client, game):
    created, host = game
    before = log_of(client, created["game_id"], host)
    huge = "9" * 5000  # over Python's 4,300-digit limit for int()
    bodies = {"/games": '{"game": "voodoo-prince", "players": ["A", "B"], "seed": HUGE}',
              f"/games/{created['game_id']}/commands":
                  '{"type": "play", "card": "R1", "expected_version": HUGE}',
              "/replays/verify": '{"format": HUGE}', "/games/import": '{"format": HUGE}'}
    for path, text in bodies.items():
        error = assert_error(post_raw(client, path, text.replace("HUGE", huge), host), 400,
                             "bad_request")
        assert "digits" in error["message"], error
    assert log_of(client, created["game_id"], host) == before
    assert len(stored_games(client)) == 1


@pytest.mark.parametrize("field", ["seed", "players", "game"])
def test_lone_surrogates_are_a_400(client, field):
    body = {"game": "voodoo-prince", "players": ["Ann", "Ben"], "seed": "x"}
    body[field] = ["Ann", "B\ud800"] if field == "players" else "a\ud800"
    text = json.dumps(body)  # json.dumps writes the lone surrogate as the escape \ud800
    assert "\\ud800" in text
    error = assert_error(post_raw(client, "/games", text), 400, "bad_request")
    assert "surrogate" in error["message"], error
    assert stored_games(client) == []


def test_a_surrogate_pair_is_a_character_not_a_surrogate(client):
    # The escaped pair \ud83d\ude00 is one character (U+1F600): accepted.
    text = json.dumps({"game": "voodoo-prince", "players": ["Ann", "Ben"], "seed": "x\U0001F600"})
    assert "\\ud83d\\ude00" in text
    assert post_raw(client, "/games", text).status_code == 201


def finished_export(client) -> dict:
    import random

    from tests.kit import play_over_rest

    created = create(client, game="voodoo-prince", players=("Ann", "Ben"), seed=9,
                     options={"rounds": 1})
    play_over_rest(client, created, random.Random(1))
    return client.get(f"/games/{created['game_id']}/export").get_json()


def test_surrogates_and_odd_types_in_a_replay_document_are_answered(client):
    document = finished_export(client)
    games_before = stored_games(client)
    variants = []
    for key, value in (("seed_commitment", 7), ("seed_commitment", None),
                       ("seed_commitment", ["x"]), ("seed_commitment", "a\ud800"),
                       ("seed", "a\ud800"), ("game_id", "\ud800"), ("created_at", 1),
                       ("players", ["Ann", "\udfff"])):
        variants.append({**document, key: value})
    event = dict(document["events"][1])
    variants.append({**document, "events": [document["events"][0],
                                            {**event, "data": {"player": "\ud800"}}]})
    variants.append({**document, "events": [document["events"][0], {**event, "prev_hash": 3}]})
    variants.append({**document, "signature": {**document["signature"], "value": "\ud800"}})
    for variant in variants:
        text = json.dumps(variant)
        # Check verify never fails with a 5xx: a 400 (not Unicode) or an invalid verdict.
        answer = post_raw(client, "/replays/verify", text)
        assert answer.status_code in (200, 400), answer.get_json()
        if answer.status_code == 200:
            assert answer.get_json()["valid"] is False
        else:
            assert_error(answer, 400, "bad_request")
        # Fail to import it: 400 or 422, nothing stored.
        answer = post_raw(client, "/games/import", text)
        assert answer.status_code in (400, 422), answer.get_json()
    assert stored_games(client) == games_before


def test_a_non_string_seed_commitment_makes_a_document_invalid_not_a_crash():
    from replays.document import verify

    for value in (7, None, [], {}, 1.5):
        verdict = verify({"format": "gruft-replay", "format_version": 1, "game": "vampir",
                          "game_id": "x", "players": [], "options": {}, "seed": 1,
                          "seed_commitment": value, "created_at": "", "final": {},
                          "signature": {}, "events": [{"version": 1, "type": "Created",
                                                       "timestamp": "2026-01-01T00:00:00+00:00",
                                                       "data": {}, "prev_hash": value,
                                                       "hash": "0"}]})
        assert not verdict.valid and verdict.problems[0]["code"] == "malformed", verdict


@pytest.mark.parametrize("value", ["2", 2.9, 2.0, True, None, [2]])
def test_expected_version_must_be_an_integer(client, game, value):
    created, host = game
    gid = created["game_id"]
    before = log_of(client, gid, host)
    leader = created["view"]["to_act"][0]
    move = client.get(f"/games/{gid}/legal-moves?player={leader}", headers=host).get_json()["moves"][0]
    # Fail to send expected_version as a string, a fraction, a boolean, null or a list: 400.
    error = assert_error(client.post(f"/games/{gid}/commands", headers=host, json={
        **move, "player": leader, "expected_version": value}), 400, "bad_request")
    assert "expected_version" in error["message"]
    assert log_of(client, gid, host) == before


def test_405_keeps_the_allow_header(client):
    # RFC 9110: a 405 names the methods the resource allows, in the error shape.
    answer = client.delete("/games")
    assert_error(answer, 405, "method_not_allowed")
    assert set(answer.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
    answer = client.put("/replays/verify")
    assert_error(answer, 405, "method_not_allowed")
    assert "POST" in answer.headers["Allow"]


# As a server that de-chunks bodies (gunicorn) hands them on: no Content-Length, the stream ends.
CHUNKED = {"headers": {"Transfer-Encoding": "chunked"},
           "environ_overrides": {"wsgi.input_terminated": True}}


def chunked(total: int):
    """A request body of `total` bytes arriving in chunks, with no Content-Length."""
    return io.BytesIO(b'{"game": "' + b"x" * (total - 12) + b'"}')


def test_a_chunked_body_over_the_bound_is_a_413(client):
    # Fail to send a 5 MiB body chunked (no Content-Length): 413, as with a Content-Length.
    for path in ("/games", "/games/import", "/replays/verify"):
        answer = client.post(path, input_stream=chunked(5 << 20 if path == "/games" else 40 << 20),
                             content_type="application/json", **CHUNKED)
        assert_error(answer, 413, "payload_too_large")
    assert stored_games(client) == []


def test_a_chunked_body_within_the_bound_is_read(client):
    body = json.dumps({"game": "voodoo-prince", "players": ["Ann", "Ben"]}).encode()
    answer = client.post("/games", input_stream=io.BytesIO(body), content_type="application/json",
                         **CHUNKED)
    assert answer.status_code == 201, answer.get_json()


@pytest.fixture
def postgres_client(postgres_env):
    from api import create_app

    app = create_app({"TESTING": True, "GRUFT_ENV": postgres_env})
    yield app.test_client()
    app.extensions["gruft"].close()


NUL_PATHS = ["/players/%00/stats", "/players/a%00b/stats", "/games?player=a%00b", "/?player=%00",
             "/games?game=%00", "/games/%00", "/games/%00/events", "/leaderboard?game=%00"]


def check_nul_refused(client):
    create(client, seed=1)
    before = stored_games(client)
    for path in NUL_PATHS:
        # Fail to name a player (or anything) with a NUL byte: 400, not a database error.
        answer = client.get(path)
        assert answer.status_code in (400, 404), (path, answer.status_code)
        if answer.is_json:
            assert_error(answer, answer.status_code, "bad_request" if answer.status_code == 400
                         else "not_found")
    text = json.dumps({"game": "voodoo-prince", "players": ["A\u0000", "B"]})
    assert_error(post_raw(client, "/games", text), 400, "bad_request")
    assert stored_games(client) == before


def test_nul_bytes_in_names_are_a_400(client):
    check_nul_refused(client)


@pytest.mark.postgres
def test_nul_bytes_in_names_are_a_400_on_postgresql(postgres_client):
    # PostgreSQL text cannot hold NUL: psycopg raised DataError (a 500) before.
    check_nul_refused(postgres_client)
