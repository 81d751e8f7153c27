"""A store that stays locked answers 503 with Retry-After, writes nothing, and recovers."""

from __future__ import annotations

import sqlite3

from api import create_app


def test_a_store_locked_beyond_the_timeout_answers_503_and_writes_nothing(sqlite_env):
    env = {**sqlite_env, "SQLITE_LOCK_TIMEOUT": "1"}
    app = create_app({"TESTING": True, "GRUFT_ENV": env})
    client = app.test_client()
    try:
        created = client.post("/games", json={"game": "vampiring", "players": ["a", "b"],
                                              "seed": 1}).json
        game, host = created["game_id"], {"Authorization": f"Bearer {created['host_token']}"}
        move = client.get(f"/games/{game}/legal-moves?player=a", headers=host).json["moves"][0]
        before = client.get(f"/games/{game}").json["version"]
        # Another writer holds the SQLite write lock longer than SQLITE_LOCK_TIMEOUT allows
        blocker = sqlite3.connect(env["SQLITE_DBNAME"], isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            busy = client.post(f"/games/{game}/commands", json={**move, "player": "a"},
                               headers=host)
        finally:
            blocker.rollback()
            blocker.close()
        # Check: 503 in the contract's error shape, a hint when to retry, nothing written …
        assert busy.status_code == 503, busy.json
        assert busy.json["error"]["code"] == "unavailable"
        assert "nothing was written" in busy.json["error"]["message"]
        assert busy.headers["Retry-After"] == "1"
        assert client.get(f"/games/{game}").json["version"] == before
        # … and the same command succeeds once the lock is gone
        done = client.post(f"/games/{game}/commands", json={**move, "player": "a"}, headers=host)
        assert done.status_code == 200, done.json
        assert done.json["version"] > before
    finally:
        app.extensions["gruft"].close()
