"""Limits on creating and importing games (issue 16, item 10): per client address, in memory or
in Redis, 429 `rate_limited` with Retry-After; an operator's creation key (401 without it)."""

from __future__ import annotations

import uuid

import pytest

from tests.api.test_contract import assert_error, bearer

GAME = {"game": "voodoo-prince", "players": ["Ann", "Ben"]}
REDIS = "redis://127.0.0.1:6379"


def limited_app(make_app, sqlite_env, **config):
    return make_app({"TESTING": True, "GRUFT_ENV": sqlite_env, **config})


def export_of(client) -> dict:
    created = client.post("/games", json=GAME).get_json()
    return client.get(f"/games/{created['game_id']}/export",
                      headers=bearer(created["host_token"])).get_json()


def check_limit(clients, address="10.0.0.1"):
    """Three creations or imports per minute from one address, whichever client answers."""
    first, *others = clients
    env = {"REMOTE_ADDR": address}
    document = None
    # Check creations up to the limit are answered, imports counting as creations.
    assert first.post("/games", json=GAME, environ_base=env).status_code == 201
    document = export_of(first) if document is None else document  # from another address
    assert first.post("/games/import", json=document, environ_base=env).status_code == 201
    last = others[0] if others else first
    assert last.post("/games", json=GAME, environ_base=env).status_code == 201
    games = first.get("/games?limit=200").get_json()["games"]
    # Fail to create or import once more: 429 rate_limited with Retry-After, nothing stored.
    for client in clients:
        for answer in (client.post("/games", json=GAME, environ_base=env),
                       client.post("/games/import", json=document, environ_base=env)):
            error = assert_error(answer, 429, "rate_limited")
            assert "3 per 1 minute" in error["message"] or "3/minute" in error["message"]
            assert 0 < int(answer.headers["Retry-After"]) <= 60
    assert first.get("/games?limit=200").get_json()["games"] == games
    # Check other addresses and the other routes are not limited.
    assert first.post("/games", json=GAME, environ_base={"REMOTE_ADDR": "10.0.0.2"}
                      ).status_code == 201
    for _ in range(5):
        assert first.get("/games", environ_base=env).status_code == 200


def test_creations_are_limited_per_address_in_memory(make_app, sqlite_env):
    app = limited_app(make_app, sqlite_env, GRUFT_CREATE_LIMIT="3/minute")
    check_limit([app.test_client()])


def test_creations_are_limited_across_workers_in_redis(make_app, sqlite_env, tmp_path):
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS).ping()
    except redis.RedisError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    # Two apps on one store stand for two workers: the count is Redis's, shared by both.
    prefix = f"gruft-test-{uuid.uuid4().hex}"
    apps = [limited_app(make_app, sqlite_env, GRUFT_CREATE_LIMIT="3/minute", GRUFT_RATELIMIT_STORAGE=REDIS,
                        GRUFT_RATELIMIT_PREFIX=prefix) for _ in range(2)]
    try:
        check_limit([a.test_client() for a in apps])
        assert redis.Redis.from_url(REDIS).keys(f"*{prefix}*")  # counted there, not in memory
    finally:
        store = redis.Redis.from_url(REDIS)
        for key in store.scan_iter(f"*{prefix}*"):
            store.delete(key)


def test_zero_turns_the_limit_off(make_app, sqlite_env):
    client = limited_app(make_app, sqlite_env, GRUFT_CREATE_LIMIT="0").test_client()
    for _ in range(70):  # past the default 60/minute
        assert client.post("/games", json=GAME).status_code == 201


def test_the_default_limit_is_sixty_a_minute(make_app, sqlite_env, monkeypatch):
    monkeypatch.delenv("GRUFT_CREATE_LIMIT", raising=False)
    client = limited_app(make_app, sqlite_env).test_client()
    statuses = [client.post("/games", json=GAME).status_code for _ in range(61)]
    assert statuses == [201] * 60 + [429]


def test_a_creation_key_is_required_where_set(make_app, sqlite_env):
    app = limited_app(make_app, sqlite_env, GRUFT_CREATE_KEY="s3cret-key", GRUFT_CREATE_LIMIT="2/minute")
    client = app.test_client()
    # Fail to create or import without the key, or with another: 401, nothing stored.
    for headers in ({}, bearer("wrong"), {"Authorization": "Basic s3cret-key"}):
        assert_error(client.post("/games", json=GAME, headers=headers), 401, "unauthorized")
        assert_error(client.post("/games/import", json={}, headers=headers), 401, "unauthorized")
    assert client.get("/games").get_json()["games"] == []
    # Check the key lets a creation through; refusals did not use up the limit.
    created = client.post("/games", json=GAME, headers=bearer("s3cret-key"))
    assert created.status_code == 201
    # Check the game's own routes take its own tokens, not the creation key.
    game = created.get_json()
    assert client.get(f"/games/{game['game_id']}/view",
                      headers=bearer(game["player_tokens"]["Ann"])).status_code == 200
    assert client.post("/games", json=GAME, headers=bearer("s3cret-key")).status_code == 201
    assert_error(client.post("/games", json=GAME, headers=bearer("s3cret-key")), 429,
                 "rate_limited")


def test_forking_counts_as_creating(make_app, sqlite_env):
    app = limited_app(make_app, sqlite_env, GRUFT_CREATE_KEY="s3cret-key", GRUFT_CREATE_LIMIT="2/minute")
    client = app.test_client()
    game = client.post("/games", json=GAME, headers=bearer("s3cret-key")).get_json()
    gid, host = game["game_id"], bearer(game["host_token"])
    at = client.get(f"/games/{gid}").get_json()["version"]
    # Fail to fork with the host's token alone, or with a wrong key beside it: 401, nothing made.
    for extra in ({}, {"Gruft-Create-Key": "wrong"}):
        assert_error(client.post(f"/games/{gid}/fork", json={"at": at}, headers={**host, **extra}),
                     401, "unauthorized")
    assert client.get(f"/games/{gid}/forks").get_json() == {"forks": []}
    assert client.get(f"/games/{gid}").get_json()["status"] == "in_progress"
    # Check the host's token with the key beside it forks; it counts against the limit (2).
    keyed = {**host, "Gruft-Create-Key": "s3cret-key"}
    fork = client.post(f"/games/{gid}/fork", json={"at": at}, headers=keyed)
    assert fork.status_code == 201, fork.get_json()
    fork = fork.get_json()
    again = client.post(f"/games/{fork['game_id']}/fork", json={"at": at},
                        headers={**bearer(fork["host_token"]), "Gruft-Create-Key": "s3cret-key"})
    assert_error(again, 429, "rate_limited")
    assert client.get(f"/games/{fork['game_id']}/forks").get_json() == {"forks": []}


def test_a_rematch_that_makes_a_game_obeys_the_key_and_the_limit(make_app, sqlite_env):
    """Issue 32, item 2: abort and rematch, or a seat's token after the bots finished, made 30
    games in 0.9 s with no key; a rematch counts against whoever makes it, the calls answering
    the rematch made count for nothing."""
    app = limited_app(make_app, sqlite_env, GRUFT_CREATE_KEY="s3cret-key", GRUFT_CREATE_LIMIT="3/minute")
    client = app.test_client()
    game = client.post("/games", json=GAME, headers=bearer("s3cret-key")).get_json()
    gid, host = game["game_id"], bearer(game["host_token"])
    ann = bearer(game["player_tokens"]["Ann"])
    assert client.post(f"/games/{gid}/abort", headers=host, json={"reason": "x"}).status_code == 200
    # Fail to make the rematch with the host's or a seat's token alone: 401, nothing made.
    for token in (host, ann, {**ann, "Gruft-Create-Key": "wrong"}):
        assert_error(client.post(f"/games/{gid}/rematch", headers=token), 401, "unauthorized")
    assert "rematch" not in client.get(f"/games/{gid}").get_json()
    # Check a seat with the key beside its token makes it; then every seat and the host are
    # answered it without the key, and those answers count for nothing.
    made = client.post(f"/games/{gid}/rematch", headers={**ann, "Gruft-Create-Key": "s3cret-key"})
    assert made.status_code == 200, made.get_json()
    rematch = made.get_json()["game_id"]
    for _ in range(5):
        for token in (host, ann, bearer(game["player_tokens"]["Ben"])):
            answer = client.post(f"/games/{gid}/rematch", headers=token)
            assert answer.status_code == 200 and answer.get_json()["game_id"] == rematch
    # Check the third game made from this address (the limit) is the last: the rematch of the
    # rematch, asked with the key, is 429, nothing made.
    host_keyed = {**bearer(client.post(f"/games/{gid}/rematch", headers=host).get_json()[
        "host_token"]), "Gruft-Create-Key": "s3cret-key"}
    assert client.post(f"/games/{rematch}/abort", headers=host_keyed,
                       json={"reason": "x"}).status_code == 200
    third = client.post(f"/games/{rematch}/rematch", headers=host_keyed)
    assert third.status_code == 201, third.get_json()
    third_id = third.get_json()["game_id"]
    assert client.post(f"/games/{third_id}/abort", headers=host_keyed,
                       json={"reason": "x"}).status_code == 200
    assert_error(client.post(f"/games/{third_id}/rematch", headers=host_keyed), 429,
                 "rate_limited")
    assert "rematch" not in client.get(f"/games/{third_id}").get_json()
