"""Verification's remaining gaps, closed: timestamps, secret moves, salts and the two formats."""

from __future__ import annotations

import copy
import hashlib
import itertools
import random
from datetime import timedelta

import pytest

from domain import game_class
from domain.core import event_record
from domain.core.game import Game
from domain.core.replay import Replay
from replays.document import build_document, verify
from service.audit.signing import SigningKey, check_signature
from tests.kit import played_document
from tests.replays.golden.regenerate import PLAYERS
from tests.replays.test_document import rechain, resign

SALT = "c0ffee" * 10 + "abcd"


@pytest.fixture
def key(tmp_path):
    return SigningKey.load_or_create(tmp_path)


def played(key: SigningKey, game: str = "voodoo-prince", seed: int | str = 42,
           salt: str | None = SALT, options: dict | None = None,
           replay: Replay | None = None) -> dict:
    """A finished game played at random through the rules, as a signed document."""
    table = game_class(game).start(PLAYERS[game], seed=seed, salt=salt,
                                   options=options or dict(game_class(game).SHORT_OPTIONS),
                                   replay=replay)
    return played_document(table, random.Random(seed), key)


def played_format_2(key: SigningKey, game: str = "voodoo-prince", seed: int = 42) -> dict:
    """A finished game as the releases before format 3 made it: salted, no event nonces."""
    return played(key, game, seed, replay=Replay(nonces=itertools.repeat(None)))


def check(doc: dict, key: SigningKey):
    return verify(doc, trusted_keys=[key.public_pem], check_signature=check_signature)


def first(verdict) -> dict:
    return verdict.problems[0]


def codes(verdict) -> set[str]:
    return {p["code"] for p in verdict.problems}


# -- timestamps -------------------------------------------------------------------------------

def test_a_timestamp_moved_back_is_named_at_its_version_even_re_chained_and_re_signed(key):
    doc = played(key)
    target = 9
    doc["events"][target - 1]["timestamp"] = "2000-01-01T00:00:00+00:00"
    verdict = check(resign(rechain(doc), key), key)  # even signed with the server's own key
    assert not verdict.valid
    assert first(verdict)["version"] == target and first(verdict)["code"] == "bad_timestamp"
    assert "earlier than the event before" in first(verdict)["message"]


def test_a_timestamp_without_an_offset_is_named_at_its_version(key):
    doc = played(key)
    doc["events"][4]["timestamp"] = doc["events"][4]["timestamp"][:19]  # no +00:00
    verdict = check(resign(rechain(doc), key), key)
    assert [(p["version"], p["code"]) for p in verdict.problems] == [(5, "bad_timestamp")]


def test_an_edited_timestamp_that_keeps_the_order_is_invalid_without_the_server_s_signature(
        key, tmp_path):
    doc = played(key)
    stamps = [e["timestamp"] for e in doc["events"]]
    assert stamps[5] <= stamps[6]
    doc["events"][6]["timestamp"] = stamps[5]  # moved back to its neighbour: still in order
    rechain(doc)
    # Fail to pass it off unsigned again: the old signature no longer matches.
    verdict = check(doc, key)
    assert not verdict.valid and verdict.signature == "invalid"
    assert "signature_invalid" in codes(verdict)
    # Fail to pass it off signed by another key: untrusted, and never valid without a key.
    (tmp_path / "forger").mkdir()
    resign(doc, SigningKey.load_or_create(tmp_path / "forger"))
    verdict = check(doc, key)
    assert not verdict.valid and verdict.signature == "untrusted"
    offline = verify(doc, check_signature=check_signature)
    assert not offline.valid and offline.signature == "unverified"


def test_created_at_is_the_creation_event_s_timestamp(key):
    doc = played(key)
    doc["created_at"] = "1999-12-31T23:59:59+00:00"
    verdict = check(resign(doc, key), key)
    assert [(p["version"], p["code"]) for p in verdict.problems] == [(None, "bad_timestamp")]


def test_a_clock_that_steps_back_never_puts_the_log_out_of_order(key, monkeypatch):
    table = game_class("vampir").start(PLAYERS["vampir"], seed=3, salt=SALT)
    last = table.modified_on
    # The clock jumps back an hour (NTP, another worker's clock) before the next command.
    monkeypatch.setattr(Game.Event, "create_timestamp",
                        classmethod(lambda cls: last - timedelta(hours=1)))
    player = table.to_act[0]
    table.execute(player, table.legal_moves(player)[0])
    events = table.collect_events()
    assert events[-1].timestamp == last  # held at the event before, not an hour back
    records = [event_record(e) for e in events]
    verdict = check(build_document(table, records, key.sign, key.public_pem), key)
    assert not verdict.problems


# -- secret moves (VampiRing, VR-4) ---------------------------------------------------------

def test_an_edited_vampiring_move_is_named_at_its_own_version(key):
    doc = played(key, "vampiring", seed=8, options={"max_turns": 6})
    moves = [e for e in doc["events"] if e["type"] == "MoveSubmitted"]
    target = moves[4]
    turn_end = next(e for e in doc["events"][target["version"]:] if e["type"] == "TurnResolved")
    data = target["data"]
    data["direction"] = "ccw" if data["direction"] == "cw" else "cw"  # still a legal move
    verdict = check(resign(rechain(doc), key), key)
    problem = first(verdict)
    assert problem["version"] == target["version"] < turn_end["version"], verdict.problems
    assert problem["code"] == "event_mismatch"
    assert f"{data['player']}'s move is recorded as" in problem["message"]
    assert f"TurnResolved at version {turn_end['version']} reveals" in problem["message"]


def test_an_edited_resolution_is_still_named_at_the_resolution(key):
    doc = played(key, "vampiring", seed=8, options={"max_turns": 6})
    turn_end = next(e for e in doc["events"] if e["type"] == "TurnResolved")
    turn_end["data"]["blood"] = {p: 99 for p in turn_end["data"]["blood"]}
    verdict = check(resign(rechain(doc), key), key)
    assert first(verdict)["version"] == turn_end["version"]


# -- salts and the two formats --------------------------------------------------------------

def test_format_2_commits_to_salt_and_seed(key):
    doc = played_format_2(key)
    assert doc["format_version"] == 2 and doc["salt"] == SALT
    assert not any("nonce" in e for e in doc["events"])
    assert doc["seed_commitment"] == hashlib.sha256(f"{SALT}:42".encode()).hexdigest()
    assert doc["events"][0]["data"]["salt"] == SALT
    assert check(doc, key).valid


def test_a_wrong_salt_is_refused_wherever_it_is_changed(key):
    doc = played(key)
    other = "1" * 64
    # Fail with another salt in the document only: the commitment and the creation disagree.
    bad = copy.deepcopy(doc)
    bad["salt"] = other
    verdict = check(resign(bad, key), key)
    assert {"seed_mismatch", "event_mismatch"} <= codes(verdict)
    # Fail with it in the creation event too, re-chained: the seed no longer gives the commitment.
    bad = copy.deepcopy(doc)
    bad["salt"] = bad["events"][0]["data"]["salt"] = other
    verdict = check(resign(rechain(bad), key), key)
    assert "seed_mismatch" in codes(verdict)
    # Fail with a salt that is not 64 hex digits.
    bad = copy.deepcopy(doc)
    bad["salt"] = "42"
    verdict = check(resign(bad, key), key)
    assert [p["code"] for p in verdict.problems] == ["malformed"]


def test_format_1_documents_verify_as_before(key):
    doc = played(key, salt=None)
    assert doc["format_version"] == 1 and "salt" not in doc
    assert "salt" not in doc["events"][0]["data"]
    assert doc["seed_commitment"] == hashlib.sha256(b"42").hexdigest()
    assert check(doc, key).valid
    # Fail to mix the formats: a salt in format 1, none in format 2.
    mixed = copy.deepcopy(doc)
    mixed["salt"] = SALT
    assert [p["code"] for p in check(resign(mixed, key), key).problems] == ["malformed"]
    mixed = played(key)
    del mixed["salt"]
    assert [p["code"] for p in check(resign(mixed, key), key).problems] == ["malformed"]


def test_a_format_1_document_imports_and_exports_as_format_1(app, client):
    server_key = app.extensions["gruft"].signing_key
    doc = played(server_key, "vampir", salt=None)
    answer = client.post("/games/import", json=doc)
    assert answer.status_code == 201, answer.get_json()
    imported = answer.get_json()
    assert "salt" not in imported["view"]
    again = client.get(f"/games/{imported['game_id']}/export").get_json()
    assert again["format_version"] == 1 and "salt" not in again
    assert again["seed_commitment"] == doc["seed_commitment"]
    # Check a format 2 document stays format 2, salt and all, its events without nonces.
    doc = played_format_2(server_key, "vampir")
    imported = client.post("/games/import", json=doc).get_json()
    again = client.get(f"/games/{imported['game_id']}/export").get_json()
    assert (again["format_version"], again["salt"]) == (2, SALT)
    assert not any("nonce" in e for e in again["events"])
    # Check a format 3 document stays format 3, each event with the nonce it was recorded with.
    doc = played(server_key, "vampir")
    imported = client.post("/games/import", json=doc).get_json()
    again = client.get(f"/games/{imported['game_id']}/export").get_json()
    assert again["format_version"] == 3
    assert [e.get("nonce") for e in again["events"]] == [e.get("nonce") for e in doc["events"]]
    assert [e["hash"] for e in again["events"]] == [e["hash"] for e in doc["events"]]


def test_an_import_refused_names_the_first_bad_version_once(app, client):
    server_key = app.extensions["gruft"].signing_key
    doc = played(server_key, "voodoo-prince", seed=21)
    target = next(e for e in doc["events"][10:] if e["type"] == "CardPlayed")
    held = set(doc["events"][1]["data"]["hands"][target["data"]["player"]])
    target["data"]["card"] = next(f"{c}{v}" for c in "RBGYP" for v in range(11)
                                  if f"{c}{v}" not in held)
    answer = client.post("/games/import", json=resign(rechain(doc), server_key))
    assert answer.status_code == 422
    message = answer.get_json()["error"]["message"]
    assert message.startswith(f"version {target['version']}: ") and "(VP-5)" in message
    assert message.count("version") == 1
