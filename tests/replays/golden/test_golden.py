"""The golden replays still verify, and today's rules still produce them exactly."""

import json

import pytest

from domain import available_games
from domain.core import event_hash
from replays.document import verify
from service.signing import SigningKey, check_signature
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
    # A difference here means the rules or the event shapes changed: if on purpose, run
    # `python -m tests.replays.golden.regenerate` and review the diff of tests/replays/golden/*.json.
    stored = json.loads(path_of(key).read_text("utf-8"))
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
