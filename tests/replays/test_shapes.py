"""Event shapes (docs/format.md): VampiRing's TurnResolved in its first shape (0.1.0) and its
second, stored, loaded, verified and exported each as it was stored."""

from __future__ import annotations

import copy
import json
import random
import shutil
import sqlite3
from pathlib import Path
from uuid import UUID

import pytest

from bots.vampiring import VampiRingBot
from domain import game_class
from domain.core import HOST, SPECTATOR, event_data
from domain.core.narration import describe
from replays.document import build_document, verify
from service import Games
from service.audit.signing import SigningKey, check_signature, key_id
from tests.kit import play_out
from tests.replays.test_document import rechain, resign

FIXTURES = Path(__file__).parents[1] / "fixtures" / "v0.1.0"
VAMPIRING = game_class("vampiring")


def first_shape_document() -> dict:
    """A finished VampiRing game as 0.1.0 exported it: every TurnResolved in shape 1."""
    return json.loads((FIXTURES / "documents" / "vampiring-finished.json").read_text("utf-8"))


@pytest.fixture
def key(tmp_path):
    return SigningKey.load_or_create(tmp_path)


@pytest.fixture
def games(sqlite_env):
    games = Games(env=sqlite_env)
    yield games
    games.close()


def forged(doc: dict, key: SigningKey) -> dict:
    """What a forger does after editing: re-chain, and sign with a key of their own."""
    doc["key_id"] = key_id(key.public_pem)
    return resign(rechain(doc), key)


def stored_rows(path: str, topic_end: str) -> list[dict]:
    """The stored states of one event type, read from the SQLite file as they lie there."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT topic, state FROM stored_events ORDER BY rowid").fetchall()
    return [json.loads(state) for topic, state in rows if topic.endswith(topic_end)]


def test_a_first_shape_document_is_checked_in_its_own_shape(key):
    doc = first_shape_document()
    turn = next(e for e in doc["events"] if e["type"] == "TurnResolved" and e["data"]["fights"])
    # Check a first-shape document verifies: its events compared with what 0.1.0 recorded.
    assert verify(doc, trusted_keys=[doc["signature"]["key"]],
                  check_signature=check_signature).valid
    # Fail to pass off a wound the rules never dealt: detail that the second shape no longer
    # records is still checked in a document that records it (re-chained and re-signed).
    forgery = copy.deepcopy(doc)
    fight = next(e for e in forgery["events"] if e["version"] == turn["version"])["data"]["fights"][0]
    fight["card"] = "cross" if fight["card"] != "cross" else "garlic"
    verdict = verify(forged(forgery, key), trusted_keys=[key.public_pem],
                     check_signature=check_signature)
    assert [(p["version"], p["code"]) for p in verdict.problems] == [
        (turn["version"], "event_mismatch")]


def test_a_shape_this_release_cannot_make_is_named(key):
    doc = copy.deepcopy(first_shape_document())
    turn = next(e for e in doc["events"] if e["type"] == "TurnResolved")
    turn["shape"] = 3
    verdict = verify(forged(doc, key), trusted_keys=[key.public_pem],
                     check_signature=check_signature)
    assert verdict.problems[0]["version"] == turn["version"]
    assert "shape 3" in verdict.problems[0]["message"]


def test_an_imported_first_shape_game_is_stored_and_exported_as_it_was(games, sqlite_env):
    doc = first_shape_document()
    game = verify(doc).game
    new = games.store_imported(game)
    # Check the rows hold the first shape as 0.1.0 stored it: the detail, no class_version.
    rows = stored_rows(sqlite_env["SQLITE_DBNAME"], "VampiRing.TurnResolved")
    assert rows and all("fights" in r and "class_version" not in r for r in rows)
    # Check the export carries the events, chain links included, as the document signed them.
    records = games.reads.records(new.game_id)
    assert [(r["data"], r["hash"], r.get("shape")) for r in records] == [
        (e["data"], e["hash"], e.get("shape")) for e in doc["events"]]
    # Check the game loads, each event upcast to today's shape.
    assert games.game(new.game_id).full_state()["scores"] == doc["final"]["scores"]


def test_new_games_store_the_second_shape_and_snapshots_their_version(tmp_path):
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
           "SQLITE_DBNAME": str(tmp_path / "games.sqlite"), "GRUFT_DATA_DIR": str(tmp_path),
           "SNAPSHOT_INTERVAL": "5"}
    games = Games(env=env)
    try:
        new = games.create_game("vampiring", ["Ann", "Ben", "Cy"], seed=4,
                                options={"max_turns": 8})
        play_out(games, new.game_id, random.Random(4))
        records = games.reads.records(new.game_id)
    finally:
        games.close()
    rows = stored_rows(env["SQLITE_DBNAME"], "VampiRing.TurnResolved")
    # Check the second shape is stored: the outcome only, and its class_version.
    assert rows and all(r["class_version"] == 2 and "fights" not in r for r in rows)
    assert {r.get("shape") for r in records if r["type"] == "TurnResolved"} == {2}
    # Check snapshots carry the state's shape.
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        snapshots = [json.loads(s) for (s,) in db.execute("SELECT state FROM stored_snapshots")]
    assert snapshots and all(s["state"]["class_version"] == 2 for s in snapshots)


def test_the_last_turn_derived_from_the_second_shape_is_the_one_recorded_in_the_first():
    doc = first_shape_document()
    gid = UUID(doc["game_id"])
    game = None
    for record in doc["events"]:
        game = VAMPIRING.event_from_record(gid, record).mutate(game)
        if record["type"] != "TurnResolved":
            continue
        # Check the state keeps the outcome only, and the views derive the turn in full
        # (paths, fights, hauntings, wounds, drops lost) exactly as 0.1.0 recorded it.
        assert "fights" not in event_data(VAMPIRING.event_from_record(gid, record))
        recorded = {k: v for k, v in record["data"].items() if k not in ("blood", "scores")}
        assert game.view(SPECTATOR)["state"]["last_turn"] == recorded, record["version"]
        assert game.full_state()["last_turn"] == recorded
        # Check a fork's table keeps 0.1.0's form: families as the turn left them, paths too.
        table = game.table_state()
        assert table["last_turn"] == recorded and "turn_start" not in table
        assert table["families"] == {p: recorded["vampires"][p] for p in game.families}


def test_both_shapes_read_in_the_same_plain_words():
    doc = first_shape_document()
    gid = UUID(doc["game_id"])
    second = [{**r, "shape": 2, "data": event_data(VAMPIRING.event_from_record(gid, r))}
              if r["type"] == "TurnResolved" else r for r in doc["events"]]
    # Check the narrator tells each turn's fights and wounds from either shape, word for word.
    first_words = describe(VAMPIRING, doc["events"], doc["players"], doc["options"], strict=True)
    assert describe(VAMPIRING, second, doc["players"], doc["options"], strict=True) == first_words
    assert any("a fight on" in item["text"] for item in first_words)


def test_the_bot_plays_on_a_game_stored_in_the_first_shape(tmp_path):
    shutil.copy(FIXTURES / "games.sqlite", tmp_path / "games.sqlite")
    shutil.copy(FIXTURES / "signing-key.pem", tmp_path / "signing-key.pem")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
           "SQLITE_DBNAME": str(tmp_path / "games.sqlite"), "GRUFT_DATA_DIR": str(tmp_path)}
    made = json.loads((FIXTURES / "manifest.json").read_text("utf-8"))["games"]
    gid = made["vampiring-in-play"]["game_id"]
    games, bot = Games(env=env), VampiRingBot(random.Random(3))
    try:
        stored = games.reads.records(gid)
        assert {r.get("shape", 1) for r in stored if r["type"] == "TurnResolved"} == {1}
        # Check the heuristic bot reads the table of a 0.1.0 game (turns upcast, the last one
        # derived from the moves) and plays it to its end; the game then holds both shapes.
        for _ in range(500):
            game = games.game(gid)
            if game.finished:
                break
            player = game.to_act[0]
            move = bot.choose(game, player, game.legal_moves(player))
            games.command(gid, HOST, {**move, "player": player}, by="host")
        records = games.reads.records(gid)
        assert games.game(gid).finished
        assert {r.get("shape", 1) for r in records if r["type"] == "TurnResolved"} == {1, 2}
        assert records[: len(stored)] == stored
        assert verify(build_export(games, gid), trusted_keys=None).problems == []
    finally:
        games.close()


def build_export(games, gid) -> dict:
    """The game's document as the host's export makes it (signed with the store's key)."""
    key = SigningKey.load_or_create(Path(games.storage["GRUFT_DATA_DIR"]))
    game, records = games.reads.replay_records(gid, HOST, "the test")
    return build_document(game, records, key.sign, key.public_pem)
