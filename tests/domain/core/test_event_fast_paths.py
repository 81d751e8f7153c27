"""The core's fast paths give what the slow ones gave: the same canonical text and chain links,
the same events through eventsourcing (domain/core/chain.py, domain/core/fast_events.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

import pytest
from eventsourcing.domain import (
    BoundCommandMethodDecorator,
    CommandMethodDecorator,
    decorated_func_callers,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import game_class
from domain.core.chain import canonical, event_hash, event_record, linked

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def reference(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=300)
@given(json_values)
def test_canonical_is_json_dumps_with_sorted_keys(value):
    assert canonical(value) == reference(value)


@settings(max_examples=200)
@given(st.text(), st.integers(), st.text(), st.text(),
       st.dictionaries(st.text(), json_values, max_size=4))
def test_event_hash_is_the_api_md_formula(prev, version, type_, timestamp, data):
    body = {"version": version, "type": type_, "timestamp": timestamp, "data": data,
            "prev_hash": prev}
    expected = hashlib.sha256((prev + reference(body)).encode("utf-8")).hexdigest()
    assert event_hash(prev, version, type_, timestamp, data) == expected
    # Check `by` (docs/api.md, "Who did what") is hashed as one more key of the event.
    by_body = {**body, "by": type_}
    expected = hashlib.sha256((prev + reference(by_body)).encode("utf-8")).hexdigest()
    assert event_hash(prev, version, type_, timestamp, data, type_) == expected


@settings(max_examples=200)
@given(st.text(), st.integers(min_value=1), st.text(), st.text(),
       st.dictionaries(st.text(), json_values, max_size=4), st.text(),
       st.integers(min_value=1, max_value=9), st.none() | st.text())
def test_the_rules_links_are_event_hash(prev, version, type_, timestamp, data, by, shape, nonce):
    # The link of an event the rules make (domain/core/fast_events.py) is written out for
    # speed: check it is the formula's, `by`, `shape` and a format 3 `nonce` included.
    assert linked(prev, version, type_, timestamp, data, by, shape, nonce) == event_hash(
        prev, version, type_, timestamp, data, by, shape, nonce)


def _played(game_key: str, steps: int) -> object:
    game = game_class(game_key).start(["A", "B", "C"], seed=7)
    rng = random.Random(3)
    for _ in range(steps):
        if game.finished:
            break
        player = game.to_act[0]
        game.execute(player, rng.choice(game.legal_moves(player)))
    return game


@pytest.mark.parametrize("game_key", ["vampire-queen", "voodoo-prince", "vampir", "vampiring"])
def test_events_rebuild_the_same_aggregate(game_key):
    game = _played(game_key, 40)
    events = game.collect_events()
    rebuilt = None
    for stored in events:
        rebuilt = stored.mutate(rebuilt)
    assert rebuilt.full_state() == game.full_state()
    assert rebuilt.chain_hash == game.chain_hash == events[-1].hash
    prev = game.seed_commitment
    for stored in events:  # every link as docs/api.md defines it
        record = event_record(stored)
        assert record["prev_hash"] == prev
        assert event_hash(prev, record["version"], record["type"], record["timestamp"],
                          record["data"], record["by"], record.get("shape", 1),
                          record.get("nonce")) == record["hash"]
        prev = record["hash"]


def test_recorder_triggers_the_librarys_event_for_every_call_the_method_takes():
    fast = _played("vampire-queen", 0)
    slow = _played("vampire-queen", 0)
    fast.collect_events(), slow.collect_events()
    cls = type(fast)
    player = fast.to_act[0]
    card = fast.hands[player][0]
    fast._played(value=1, cards=[card], player=player)  # keywords in any order
    decorator = cls._played.__wrapped__
    assert decorator.__name__ == "_played"
    # the library's own bound path, as every call went before
    lib = next(d for d in decorated_func_callers if isinstance(d, CommandMethodDecorator)
               and d.decorated_func is decorator)
    BoundCommandMethodDecorator(lib, slow).trigger(player=player, cards=[card], value=1)
    (a,), (b,) = fast.collect_events(), slow.collect_events()
    assert type(a) is type(b) is cls.Played
    clock = {"timestamp", "hash", "prev_hash", "originator_id"}  # differ between two games
    assert {k: v for k, v in vars(a).items() if k not in clock} \
        == {k: v for k, v in vars(b).items() if k not in clock}
    # built without the dataclass __init__, yet with its fields in its order (the log shows
    # `data` in this order) and equal to one the dataclass builds
    # `by` (who stored it) comes last, beside the fields, as the store keeps it
    assert list(vars(a)) == [f.name for f in dataclasses.fields(cls.Played)] + ["by"]
    assert a.by == "server"  # no command sent it: the server's
    assert type(a)(**{k: v for k, v in vars(a).items() if k != "by"}) == a
    # positional arguments give the same event
    fast._passed(player, False)
    (c,) = fast.collect_events()
    assert type(c) is cls.Passed and c.player == player and c.forced is False
    assert list(vars(c)) == [f.name for f in dataclasses.fields(cls.Passed)] + ["by"]
    # a missing or unknown field is refused, as the library refuses it, and nothing is stored
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'forced'"):
        fast._passed(player=player)
    with pytest.raises(TypeError, match="unexpected keyword argument 'slayer'"):
        fast._passed(player=player, forced=False, slayer=True)
    assert fast.collect_events() == []
