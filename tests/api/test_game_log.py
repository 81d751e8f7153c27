"""The game log over the API: checkpoints, proofs, exports that carry their proof, the keys'
history, retired keys, and a rewritten game caught by a checkpoint kept before."""

from __future__ import annotations

import random

import pytest

from domain import game_class
from domain.core import canonical
from replays.logproof import checkpoint_problem
from service.audit.merkle import leaf_hash, verify_consistency, verify_inclusion
from service.audit.signing import SigningKey, check_signature
from service.settings import data_dir, storage_env
from tests.kit import SHORT_OPTIONS, play_over_rest, played_document, seats, wait_until


def finished_game(client, key: str = "vampir", seed: int = 5) -> dict:
    created = client.post("/games", json={"game": key, "players": seats(key), "seed": seed,
                                          "options": SHORT_OPTIONS[key]}).get_json()
    play_over_rest(client, created, random.Random(seed))
    # The log's subscriber appends it soon after, on its own thread: wait for it.
    wait_until(lambda: client.get(f"/log/proof/{created['game_id']}").status_code == 200,
               "the game to be logged")
    return created


def leaf_hash_of(leaf: dict) -> bytes:
    return leaf_hash(canonical(leaf).encode())


def test_an_export_carries_its_proof_against_a_signed_checkpoint(client):
    first, second = finished_game(client, seed=1), finished_game(client, "vampiring", seed=2)
    document = client.get(f"/games/{second['game_id']}/export").get_json()
    # Check the export's log part proves the game's last event in a checkpoint of this log.
    part = document["log"]
    keys = client.get("/signing-keys").get_json()["keys"]
    assert checkpoint_problem(part["checkpoint"], [k["key"] for k in keys], check_signature) is None
    leaf = {"game_id": second["game_id"], "version": len(document["events"]),
            "hash": document["events"][-1]["hash"]}
    assert part["index"] == 1 and part["checkpoint"]["size"] == 2
    assert verify_inclusion(leaf_hash_of(leaf), 1, 2, [bytes.fromhex(p) for p in part["proof"]],
                            bytes.fromhex(part["checkpoint"]["root"]))
    verdict = client.post("/replays/verify", json=document).get_json()
    assert verdict["valid"], verdict["problems"]
    # Check the proof endpoint says the same, at the current size and an older one.
    proof = client.get(f"/log/proof/{second['game_id']}").get_json()
    assert proof == {"index": 1, "size": 2, "leaf": leaf, "proof": part["proof"]}
    assert client.get(f"/log/proof/{first['game_id']}?size=1").get_json()["index"] == 0
    # Fail to pass a bent proof or a checkpoint of another size: invalid, the problem named.
    for bend in ({"index": 0}, {"proof": part["proof"][::-1] + [part["proof"][0]]},
                 {"checkpoint": {**part["checkpoint"], "size": 3}}):
        bent = {**document, "log": {**part, **bend}}
        problems = client.post("/replays/verify", json=bent).get_json()["problems"]
        assert [p["code"] for p in problems][:1] in (["log_invalid"], ["signature_invalid"])
        assert any(p["code"] == "log_invalid" for p in problems)


def test_a_game_in_play_is_not_in_the_log(client):
    created = client.post("/games", json={"game": "vampir", "players": seats("vampir")}).get_json()
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert "log" not in client.get(f"/games/{created['game_id']}/export", headers=host).get_json()
    answer = client.get(f"/log/proof/{created['game_id']}")
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("path", [
    "/log/proof/not-a-game", "/log/proof/3fa85f64-5717-4562-b3fc-2c963f66afa6"])
def test_unknown_games_are_404(client, path):
    answer = client.get(path)
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("query", [
    "/log/consistency", "/log/consistency?first=-1", "/log/consistency?first=x",
    "/log/consistency?first=2&second=1", "/log/consistency?first=0&second=5",
    "/log/consistency?first=0&size=1", "/log/proof/{gid}?size=0", "/log/proof/{gid}?size=9",
    "/log/proof/{gid}?size=1e3", "/log/proof/{gid}?index=0",
    "/log/consistency?first=99999999999999999999999"])
def test_bad_input_is_400_and_changes_nothing(client, query):
    game = finished_game(client)
    before = client.get("/log/checkpoint").get_json()
    answer = client.get(query.format(gid=game["game_id"]))
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["error"]["code"] == "bad_request"
    after = client.get("/log/checkpoint").get_json()
    assert (after["size"], after["root"]) == (before["size"], before["root"])


def test_consistency_proofs_over_the_api(client):
    roots = {}
    for seed in range(1, 4):
        finished_game(client, seed=seed)
        checkpoint = client.get("/log/checkpoint").get_json()
        roots[checkpoint["size"]] = bytes.fromhex(checkpoint["root"])
    assert sorted(roots) == [1, 2, 3]
    for first in (0, 1, 2, 3):
        answer = client.get(f"/log/consistency?first={first}&second=3").get_json()
        assert answer["first"] == first and answer["second"] == 3
        old = roots.get(first, bytes.fromhex(
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
        assert verify_consistency(first, 3, old, roots[3],
                                  [bytes.fromhex(p) for p in answer["proof"]])
    assert client.get("/log/consistency?first=1").get_json()["second"] == 3


def test_a_retired_key_vouches_only_for_games_in_the_log(sqlite_env, tmp_path, make_app):
    app = make_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    client = app.test_client()
    real = client.get(f"/games/{finished_game(client)['game_id']}/export").get_json()
    old_key = app.extensions["gruft"].signing_key
    # A forger who got hold of the old key signs a game that never existed on this server.
    key = "vampir"
    forged_game = game_class(key).start(seats(key), seed=9, options=SHORT_OPTIONS[key])
    forged = played_document(forged_game, random.Random(9), old_key)

    SigningKey.rotate(data_dir(storage_env(sqlite_env)))
    rotated = make_app({"TESTING": True, "GRUFT_ENV": sqlite_env}).test_client()
    keys = rotated.get("/signing-keys").get_json()["keys"]
    # Check the history lists both keys, the retired one with its end, the current one open.
    assert [k["key_id"] for k in keys] == [old_key.key_id, keys[1]["key_id"]]
    assert keys[0]["until"] is not None and keys[1]["until"] is None
    assert keys[0]["from"] is not None and keys[1]["from"] is not None
    # Check the real game's document, signed before the rotation, still verifies and imports.
    assert rotated.post("/replays/verify", json=real).get_json()["valid"]
    assert rotated.post("/games/import", json=real).status_code == 201
    # Fail the forgery: a retired key, a game not in the log; nothing imported.
    verdict = rotated.post("/replays/verify", json=forged).get_json()
    assert not verdict["valid"] and verdict["signature"] == "retired"
    assert [p["code"] for p in verdict["problems"]] == ["retired_key"]
    listed = rotated.get("/games").get_json()["games"]
    answer = rotated.post("/games/import", json=forged)
    assert answer.status_code == 422 and "retired" in answer.get_json()["error"]["message"]
    assert rotated.get("/games").get_json()["games"] == listed
