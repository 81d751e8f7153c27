"""What a replay imposes (domain/core/replay.py) is one object given to the game it makes: its
recorded times, authors and id, for every event until the replay ends."""

from __future__ import annotations

from uuid import UUID

from domain import game_class
from domain.core import Replay, event_record
from tests.kit import SHORT_OPTIONS, T0, HandClock, seats

RESTORED = UUID("0f6e5a2c-1d7b-4c1e-9a55-3f7f2b1e9c01")


def test_a_game_takes_its_replays_records_until_the_replay_ends():
    hand = HandClock()
    cls = game_class("vampir")
    game = cls.start(seats("vampir"), seed=5, options=SHORT_OPTIONS["vampir"],
                     replay=Replay(timestamps=hand.stamps(), authors=iter(["server"] * 3),
                                   game_id=RESTORED))
    # Check the creation takes the recorded id and time, and so does each event after it.
    assert game.id == RESTORED
    player = game.to_act[0]
    game.execute(player, game.legal_moves(player)[0])
    records = [event_record(e) for e in game.collect_events()]
    assert {r["timestamp"] for r in records} == {T0.isoformat()}
    # Check the recorded author is taken over the command's sender while the replay lasts.
    assert records[-1]["by"] == "server"
    # Check once the replay ends, the game makes its events as a live one: the clock's time,
    # the sender of the command.
    game.end_replay()
    player = game.to_act[0]
    game.execute(player, game.legal_moves(player)[0])
    (last, *_) = [event_record(e) for e in game.collect_events()]
    assert last["by"] == "seat" and last["timestamp"] > T0.isoformat()
    assert "_replay" not in vars(game)  # nothing of it is kept in a snapshot
