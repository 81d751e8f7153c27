"""The golden replays still verify, and today's rules still produce them exactly."""

import json
from uuid import UUID

import pytest

from domain import available_games, game_class
from domain.core import event_data, event_hash
from domain.core.game import recorded_shapes
from replays.document import verify
from service.audit.signing import SigningKey, check_signature
from tests.replays.golden.regenerate import HERE, golden_document, path_of

# A test-only key kept beside the documents (never a server's key).
GOLDEN_KEY = SigningKey.load_or_create(HERE).public_pem


@pytest.mark.parametrize("key", available_games())
def test_golden_replay_verifies(key):
    stored = json.loads(path_of(key).read_text("utf-8"))
    verdict = verify(stored, trusted_keys=[GOLDEN_KEY], check_signature=check_signature)
    assert verdict.valid, verdict.problems
    assert verdict.scores == stored["final"]["scores"]


@pytest.mark.parametrize("key", available_games())
def test_rules_and_event_shapes_are_unchanged(key):
    # A difference here means the rules changed, or an event's shape changed without keeping
    # the way to make its old one (docs/format.md, "Event shapes"). Never regenerate the golden
    # documents to make it pass: they are the proof that old documents still verify.
    stored = json.loads(path_of(key).read_text("utf-8"))
    # Check today's rules, making each event in the shape the golden document recorded it in,
    # give its events exactly: same data, same chain.
    with recorded_shapes(e.get("shape", 1) for e in stored["events"]):
        fresh = golden_document(key)
    assert [(e["type"], e["data"]) for e in fresh["events"]] == [
        (e["type"], e["data"]) for e in stored["events"]]
    # Today's events also say who stored them (`by`), which the golden ones, stored before,
    # do not: without it, every link is what it was.
    assert all(e["by"] in ("seat", "server") for e in fresh["events"])
    prev, links = fresh["seed_commitment"], []
    for e in fresh["events"]:
        prev = event_hash(prev, e["version"], e["type"], e["timestamp"], e["data"])
        links.append(prev)
    assert links == [e["hash"] for e in stored["events"]]
    assert fresh["final"] == stored["final"]


@pytest.mark.parametrize("key", available_games())
def test_todays_shapes_are_the_golden_events_upcast(key):
    stored = json.loads(path_of(key).read_text("utf-8"))
    cls, game_id = game_class(key), UUID(stored["game_id"])
    fresh = golden_document(key)
    # Check each event made today, in its current shape, is the golden one read through its
    # type's upcasters (what loading a store of that release gives the rules).
    assert [(e["type"], event_data(cls.event_from_record(game_id, e))) for e in fresh["events"]] == [
        (e["type"], event_data(cls.event_from_record(game_id, e))) for e in stored["events"]]
    # ...and the shapes they are made in today are their types' current ones.
    for e in fresh["events"]:
        event_class = type(cls.event_from_record(game_id, e))
        assert e.get("shape", 1) == getattr(event_class, "class_version", 1)
