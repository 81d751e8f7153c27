"""What an imported game counts for (issue 16): a game counts once in the statistics, whichever
copy of it finishes first — re-imports, and imports into the server that played it, add nothing."""

from __future__ import annotations

import random

from tests.api.test_contract import bearer, create
from tests.kit import play_over_rest

GAME = {"game": "voodoo-prince", "players": ("Ann", "Ben"), "options": {"rounds": 1}}


def stats(client, name: str) -> dict:
    return client.get(f"/players/{name}/stats").get_json()["games"].get("voodoo-prince")


def board(client) -> list:
    return client.get("/leaderboard?game=voodoo-prince").get_json()["players"]


def imported(client, document: dict) -> dict:
    answer = client.post("/games/import", json=document)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def test_imports_of_a_game_this_server_played_count_nothing(any_store_client):
    client = any_store_client
    created = create(client, seed=4, **GAME)
    play_over_rest(client, created, random.Random(4))
    document = client.get(f"/games/{created['game_id']}/export").get_json()
    winner = document["final"]["winners"][0]
    before = {"winner": stats(client, winner), "board": board(client)}
    assert before["winner"]["played"] == 1 and before["winner"]["won"] == 1
    # Check importing the export ten times stores ten games and counts none of them.
    copies = [imported(client, document)["game_id"] for _ in range(10)]
    assert len(set(copies)) == 10
    listed = {g["game_id"]: g["status"] for g in client.get("/games").get_json()["games"]}
    assert all(listed[c] == "finished" for c in copies)
    assert stats(client, winner) == before["winner"]
    assert board(client) == before["board"]


def test_a_game_counts_once_on_a_server_that_did_not_play_it(tmp_path, make_app):
    def app(name):
        # Two servers sharing one signing key (one data dir), each with its own store.
        return make_app({"TESTING": True, "GRUFT_ENV": {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / f"{name}.sqlite"),
            "GRUFT_DATA_DIR": str(tmp_path / "data")}}).test_client()

    played, fresh = app("played"), app("fresh")
    created = create(played, seed=8, **GAME)
    play_over_rest(played, created, random.Random(8))
    document = played.get(f"/games/{created['game_id']}/export").get_json()
    # Check the first import counts the game once, and the next ones add nothing.
    imported(fresh, document)
    assert stats(fresh, "Ann") == stats(played, "Ann")
    assert stats(fresh, "Ben") == stats(played, "Ben")
    imported(fresh, document)
    imported(fresh, document)
    assert stats(fresh, "Ann") == stats(played, "Ann")
    assert board(fresh) == board(played)


def test_an_export_in_play_imported_and_finished_counts_once(client):
    # The host exports a game in play; the copy and the original both go on to the end.
    created = create(client, seed=6, **GAME)
    host = bearer(created["host_token"])
    document = client.get(f"/games/{created['game_id']}/export", headers=host).get_json()
    copy = imported(client, document)
    play_over_rest(client, copy, random.Random(1))
    counted = {p: stats(client, p) for p in ("Ann", "Ben")}
    assert sum(s["played"] for s in counted.values()) == 2
    # Check the original, finishing second, adds nothing: the game was counted once already.
    play_over_rest(client, created, random.Random(2))
    assert {p: stats(client, p) for p in ("Ann", "Ben")} == counted
    # Check a game of its own (another seed) still counts.
    other = create(client, seed=7, **GAME)
    play_over_rest(client, other, random.Random(3))
    assert stats(client, "Ann")["played"] == 2
