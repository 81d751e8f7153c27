"""Replay documents: export, verification and import — and every forgery the audit must catch."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from domain import available_games, game_class
from domain.core import HOST, event_hash
from replays.document import build_document, describe, unsigned, verify
from service import Games
from service.audit.signing import SigningKey, check_signature
from tests.kit import SHORT_OPTIONS, play_out, seats


@pytest.fixture
def games(sqlite_env):
    games = Games(env=sqlite_env)
    yield games
    games.close()


@pytest.fixture
def any_store_games(storage_env):
    """The service on SQLite and, in a second run of the test, on PostgreSQL."""
    games = Games(env=storage_env)
    yield games
    games.close()


@pytest.fixture
def key(tmp_path):
    return SigningKey.load_or_create(tmp_path)


def finished_document(games, key, game_key, seed=7):
    new = games.create_game(game_key, seats(game_key), seed=seed, options=SHORT_OPTIONS[game_key])
    play_out(games, new.game_id, random.Random(seed))
    game = games.game(new.game_id)
    return build_document(game, games.reads.records(new.game_id), key.sign, key.public_pem)


def check(doc, key):
    return verify(doc, trusted_keys=[key.public_pem], check_signature=check_signature)


def rechain(doc):
    """What a forger does after editing: renumber and recompute every hash."""
    prev = doc["seed_commitment"]
    for version, record in enumerate(doc["events"], start=1):
        record["version"] = version
        record["prev_hash"] = prev
        record["hash"] = prev = event_hash(prev, version, record["type"], record["timestamp"],
                                           record["data"], record.get("by"),
                                           record.get("shape", 1), record.get("nonce"))
    return doc


def resign(doc, key):
    doc["signature"] = {"alg": "ed25519", "key": key.public_pem, "value": key.sign(unsigned(doc))}
    return doc


def action_versions(doc):
    actions = game_class(doc["game"]).COMMAND_EVENTS
    return [r["version"] for r in doc["events"] if r["type"] in actions]


def codes(verdict):
    return {p["code"] for p in verdict.problems}


@pytest.mark.parametrize("game_key", available_games())
def test_an_honest_export_verifies_and_the_chain_was_built_at_write_time(any_store_games, key,
                                                                        game_key):
    games = any_store_games
    doc = finished_document(games, key, game_key)
    verdict = check(doc, key)
    assert verdict.valid, verdict.problems
    assert verdict.scores == doc["final"]["scores"]
    # Check the stored links are exactly the document's (built when stored, not at export).
    stored = games.repository.event_store.get(games.game(doc["game_id"]).id)
    assert [(e.prev_hash, e.hash) for e in stored] == [
        (r["prev_hash"], r["hash"]) for r in doc["events"]]
    assert doc["events"][0]["prev_hash"] == doc["seed_commitment"]


@pytest.mark.parametrize("game_key", available_games())
def test_forgeries_are_caught_even_with_recomputed_hashes(games, key, game_key):
    doc = finished_document(games, key, game_key)
    forger = SigningKey.load_or_create(Path(__import__("tempfile").mkdtemp()))
    target = action_versions(doc)[len(action_versions(doc)) // 2]

    def forged(edit):
        bad = copy.deepcopy(doc)
        edit(bad)
        return check(resign(rechain(bad), forger), key)

    def assert_caught(verdict, at_or_after):
        assert not verdict.valid
        assert "untrusted_key" in codes(verdict)  # the forger could not use the server's key
        ruled = [p for p in verdict.problems if p["version"] is not None]
        assert ruled and ruled[0]["version"] >= at_or_after, verdict.problems

    # Fail to pass off an edited player action (another player named).
    def swap_player(bad):
        record = bad["events"][target - 1]["data"]
        others = [p for p in bad["players"] if p != record["player"]]
        record["player"] = others[0]
    assert_caught(forged(swap_player), target)
    # Fail to pass off a dropped event.
    assert_caught(forged(lambda bad: bad["events"].pop(target - 1)), target)
    # Fail to pass off two events swapped.
    def reorder(bad):
        ev = bad["events"]
        ev[target - 1], ev[target] = ev[target], ev[target - 1]
    assert_caught(forged(reorder), target)
    # Fail to pass off an inserted (repeated) event.
    assert_caught(forged(lambda bad: bad["events"].insert(target, copy.deepcopy(
        bad["events"][target - 1]))), target)
    # Fail to pass off altered final scores.
    def rescore(bad):
        first = bad["players"][0]
        bad["final"]["scores"][first] += 1
    verdict = forged(rescore)
    assert "final_mismatch" in codes(verdict)
    # Fail to pass off a different seed (its commitment and the deals no longer match).
    def reseed(bad):
        bad["seed"] = f"{bad['seed']}x"
    verdict = forged(reseed)
    assert {"seed_mismatch"} <= codes(verdict)


def test_edits_without_rehashing_break_the_chain_and_signature(games, key):
    doc = finished_document(games, key, available_games()[0])
    bad = copy.deepcopy(doc)
    bad["events"][3]["timestamp"] = "2001-01-01T00:00:00+00:00"
    verdict = check(bad, key)
    assert {"signature_invalid", "chain_broken"} <= codes(verdict)
    assert next(p for p in verdict.problems if p["code"] == "chain_broken")["version"] == 4


def test_a_forged_move_names_its_version_and_ruling(games, key):
    # Voodoo Prince: replace a played card by one the player does not hold.
    doc = finished_document(games, key, "voodoo-prince", seed=21)
    target = action_versions(doc)[5]
    record = doc["events"][target - 1]
    assert record["type"] == "CardPlayed"
    hands = doc["events"][1]["data"]["hands"]
    held = set(hands[record["data"]["player"]])
    record["data"]["card"] = next(f"{c}{v}" for c in "RBGYP" for v in range(11)
                                  if f"{c}{v}" not in held)
    verdict = check(resign(rechain(doc), key), key)  # even re-signed with the server's own key
    assert [p["code"] for p in verdict.problems] == ["illegal_move"]
    problem = verdict.problems[0]
    assert problem["version"] == target
    assert "(VP-5)" in problem["message"]
    # The version is the problem's own field; the message does not repeat it.
    assert "version" not in problem["message"]
    assert describe(problem) == f"version {target}: {problem['message']}"


def test_a_dealt_hand_that_the_seed_does_not_produce_is_caught(games, key):
    doc = finished_document(games, key, "voodoo-prince", seed=5)
    hands = doc["events"][1]["data"]["hands"]
    a, b = list(hands)[:2]
    hands[a][0], hands[b][0] = hands[b][0], hands[a][0]
    verdict = check(resign(rechain(doc), key), key)
    assert verdict.problems[0]["version"] == 2
    assert "seed" in verdict.problems[0]["message"]


def test_import_takes_only_valid_documents(any_store_client):
    client = any_store_client
    created = client.post("/games", json={"game": available_games()[0],
                                          "players": seats(available_games()[0]),
                                          "options": SHORT_OPTIONS[available_games()[0]]}).get_json()
    host = {"Authorization": f"Bearer {created['host_token']}"}
    from tests.kit import play_over_rest
    play_over_rest(client, created, random.Random(4))
    doc = client.get(f"/games/{created['game_id']}/export", headers=host).get_json()
    # Check a valid document imports as a new game with the same chain and result.
    answer = client.post("/games/import", json=doc)
    assert answer.status_code == 201
    imported = answer.get_json()
    assert imported["game_id"] != doc["game_id"] and set(imported["player_tokens"]) == set(
        doc["players"])
    again = client.get(f"/games/{imported['game_id']}/export").get_json()
    assert [e["hash"] for e in again["events"]] == [e["hash"] for e in doc["events"]]
    assert again["final"] == doc["final"]
    listed = len(client.get("/games").get_json()["games"])
    # Fail to import a forged one: 422, nothing stored.
    doc["events"][-1]["data"]["forged"] = True
    answer = client.post("/games/import", json=doc)
    assert answer.status_code == 422 and answer.get_json()["error"]["code"] == "invalid_replay"
    assert len(client.get("/games").get_json()["games"]) == listed
    # Fail to verify or import something that is not a document.
    assert client.post("/replays/verify", json=[1, 2]).get_json()["valid"] is False
    assert client.post("/games/import", data="nope", content_type="application/json"
                       ).status_code == 400


def test_replay_steps_equal_a_fresh_rebuild(games, key):
    from replays.stepper import rebuild_states

    doc = finished_document(games, key, available_games()[0])
    states = rebuild_states(doc)
    game_id = doc["game_id"]
    for n in range(1, len(doc["events"]) + 1):
        step = games.reads.replay(game_id, HOST, n)
        assert step["event"]["version"] == n
        assert {k: states[n - 1][k] for k in step["state"]} == step["state"]


def _swap_in_first_list(value) -> bool:
    """Swap two different items of the first list found in a JSON value (a hand, a ring)."""
    if isinstance(value, list) and len(set(map(str, value))) > 1:
        j = next(i for i, item in enumerate(value) if item != value[0])
        value[0], value[j] = value[j], value[0]
        return True
    if isinstance(value, dict):
        return any(_swap_in_first_list(v) for v in value.values())
    return False


@pytest.mark.parametrize("game_key", available_games())
def test_every_game_names_a_rearranged_deal(games, key, game_key):
    # Fail to pass off a first deal rearranged by hand, even re-chained and re-signed.
    doc = finished_document(games, key, game_key)
    dealt = game_class(game_key).DEAL_EVENTS
    record = next(r for r in doc["events"] if r["type"] in dealt)
    assert _swap_in_first_list(record["data"])
    verdict = check(resign(rechain(doc), key), key)
    assert verdict.problems[0]["version"] == record["version"]
    assert "the deal is not what the revealed seed produces" in verdict.problems[0]["message"]
