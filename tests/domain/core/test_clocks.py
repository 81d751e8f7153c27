"""Clocks and seats handed over, in the shared core (domain/core/clocks.py, domain/core/seats.py).

Every event's timestamp comes from a hand-moved clock (a `Replay` of its times), so each test
says exactly how long every move took; replay rebuilds the clocks from the stored timestamps.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain import available_games, game_class
from domain.core import Aborted, BadCommand, BadSetup, Game, OutOfTime, Replay, event_record
from domain.core.chain import BOT
from domain.core.clocks import RULE, clocks_at, deadline, late
from tests.kit import SHORT_OPTIONS, T0, HandClock, seats

CLOCK = {"bank": 60, "increment": 5}


def started(key: str, hand: HandClock, clock: dict | None = CLOCK) -> Game:
    """A game whose every event is stamped with `hand`'s time (a Replay of its times)."""
    return game_class(key).start(seats(key), seed=7, options=SHORT_OPTIONS[key],
                                 salt="ab" * 32, clock=clock,
                                 replay=Replay(timestamps=hand.stamps()))


def move(game: Game, player: str | None = None) -> str:
    """The first legal move of `player` (else of the first seat awaited), at the hand clock's
    time (`started`); answers who moved."""
    player = player or game.to_act[0]
    game.execute(player, game.legal_moves(player)[0])
    return player


def replayed(game: Game) -> Game:
    """The game rebuilt from its events' records, as the store and verification rebuild it."""
    records = [event_record(e) for e in game.pending_events]
    return type(game).replayed(game.id, records)


def test_a_game_without_a_clock_records_none():
    game = started("vampir", HandClock(), clock=None)
    # Check the creation event has no clock field (its data as before clocks) and no view of
    # clocks is made.
    assert "clock" not in event_record(game.pending_events[0])["data"]
    assert clocks_at(game, T0) is None


SHAPE = r'^clock must be \{"bank": seconds, "increment": seconds\}$'


@pytest.mark.parametrize(("clock", "says"), [
    ({"bank": 0, "increment": 0}, "^clock bank must be from 1 to 604800 seconds$"),
    ({"bank": 60}, SHAPE),
    ({"bank": "60", "increment": 0}, "^clock bank must be a number of seconds$"),
    ({"bank": True, "increment": 0}, "^clock bank must be a number of seconds$"),
    ({"bank": 60, "increment": -1}, "^clock increment must be from 0 to 86400 seconds$"),
    ([60, 5], SHAPE),
    ({"bank": 60, "increment": 0, "delay": 3}, SHAPE)])
def test_a_bad_clock_is_refused(clock, says):
    # Fail to start a game with a clock that is not {"bank" >= 1, "increment" >= 0} seconds.
    with pytest.raises(BadSetup, match=says):
        started("vampir", HandClock(), clock=clock)


def test_a_seat_is_charged_the_time_between_the_stored_events_and_gets_its_increment():
    hand = HandClock()
    game = started("voodoo-prince", hand)  # one card a turn: the next seat is awaited
    first = game.to_act[0]
    # Check the creation records the clock and the awaited seat's clock runs from the start.
    assert event_record(game.pending_events[0])["data"]["clock"] == CLOCK
    view = clocks_at(game, hand.after(10))
    assert view[first] == {"remaining": 50.0, "running": True}
    assert all(not v["running"] and v["remaining"] == 60 for p, v in view.items() if p != first)
    # Check a move 10 s in leaves 60 - 10 + 5 seconds, and the next seat's clock starts.
    move(game, first)
    view = clocks_at(game, hand.now)
    assert view[first] == {"remaining": 55.0, "running": False}
    assert [p for p, v in view.items() if v["running"]] == game.to_act
    # Check replay, at any later hour, rebuilds the same clocks from the stored timestamps.
    again = replayed(game)
    assert (again.clock_left, again.clock_since) == (game.clock_left, game.clock_since)


def test_a_clock_runs_out_no_earlier_than_its_deadline_and_the_next_move_clears_it():
    hand = HandClock()
    game = started("vampir", hand)
    player = game.to_act[0]
    due = deadline(game, player)
    assert due == T0 + timedelta(seconds=60)
    version = game.version
    # Fail to record the clock running out a second before its deadline: nothing is stored.
    with pytest.raises(BadCommand, match="runs until"):
        game.expire_clock(player, due - timedelta(seconds=1))
    assert game.version == version and game.expired == ()
    # Fail to run out the clock of a seat that is not awaited.
    waiting = next(p for p in game.players if p not in game.to_act)
    with pytest.raises(BadCommand, match="not running"):
        game.expire_clock(waiting, due)
    # Check at the deadline it runs out: recorded, the seat's time is 0, its move is the bot's.
    hand.now = due
    game.expire_clock(player, due)
    assert event_record(game.pending_events[-1])["type"] == "ClockExpired"
    assert game.expired == [player]
    assert clocks_at(game, due + timedelta(seconds=3))[player]["remaining"] == 0
    # Fail to run it out twice.
    with pytest.raises(BadCommand, match="already run out"):
        game.expire_clock(player, due)
    # Check the seat's move (the bot's) clears it and adds the increment.
    hand.after(0.5)
    move(game, player)
    assert game.expired == [] and game.clock_left[player] == CLOCK["increment"]
    assert replayed(game).expired == []


@pytest.mark.parametrize("key", available_games())
def test_a_live_move_after_its_seats_deadline_is_refused_out_of_time(key):
    # CL-1. The clocks ran from T0 (days ago, by the recorded timestamps): a move made now,
    # live, comes long after the seat's 60 s bank ran out.
    hand = HandClock()
    game = started(key, hand)
    game.end_replay()  # live from here: the clock's time, checked (a replay never is)
    player = game.to_act[0]
    version = game.version
    with pytest.raises(OutOfTime, match="clock ran out at") as refused:
        game.execute(player, game.legal_moves(player)[0])
    assert (refused.value.code, refused.value.rule) == ("out_of_time", RULE)
    assert RULE == "CL-1"
    assert game.version == version  # nothing stored
    # Check the clock's move is not late: ClockExpired, then the bot's move for that seat.
    game.expire_clock(player, datetime.now(UTC))
    game.execute(player, game.legal_moves(player)[0], by=BOT)
    assert game.expired == [] and game.version > version + 1


def test_a_live_move_in_time_is_stored_at_the_time_it_was_found_in_time():
    game = game_class("vampir").start(seats("vampir"), seed=7, options=SHORT_OPTIONS["vampir"],
                                      salt="ab" * 32, clock=CLOCK)
    player = game.to_act[0]
    before = len(game.pending_events)
    game.execute(player, game.legal_moves(player)[0])
    stamps = {e.timestamp for e in game.pending_events[before:]}
    assert len(stamps) == 1 and stamps.pop() <= deadline(game, game.to_act[0])


def test_a_game_without_a_clock_has_no_deadline():
    hand = HandClock()
    game = started("vampir", hand, clock=None)  # made at T0, days ago
    game.end_replay()
    player = game.to_act[0]
    game.execute(player, game.legal_moves(player)[0])  # live, now: no clock, never late
    assert late(game, game.to_act[0], datetime.now(UTC), "seat") is None


@pytest.mark.parametrize("key", available_games())
def test_clocks_follow_every_game_to_its_end(key):
    hand = HandClock()
    game = started(key, hand)
    while not game.finished:
        hand.after(1)
        move(game)
        # Check exactly the awaited seats' clocks run, and nobody's time is negative.
        view = clocks_at(game, hand.now)
        assert sorted(p for p, v in view.items() if v["running"]) == sorted(
            [] if game.finished else game.to_act)
        assert all(v["remaining"] >= 0 for v in view.values())
    again = replayed(game)
    assert (again.clock_left, again.clock_since) == (game.clock_left, game.clock_since)


def test_a_seat_is_handed_to_a_bot_and_back_as_recorded_events():
    hand = HandClock()
    game = started("vampiring", hand, clock=None)
    ann = game.players[0]
    # Check handing a seat to a bot, then back, records both, in order.
    game.hand_seat(ann, "heuristic")
    assert game.handed == {ann: "heuristic"}
    game.hand_seat(ann, None)
    assert game.handed == {ann: None}
    types = [event_record(e)["type"] for e in game.pending_events[-2:]]
    assert types == ["SeatHanded", "SeatHanded"]
    assert replayed(game).handed == {ann: None}
    # Fail to hand a seat nobody sits in, or to a bot named by something else than a word.
    version = game.version
    with pytest.raises(BadCommand, match="'Zed' does not play in this game"):
        game.hand_seat("Zed", "heuristic")
    with pytest.raises(BadCommand, match="a seat is handed to a bot by its kind"):
        game.hand_seat(ann, 3)
    assert game.version == version
    # Fail to hand a seat of a game that is over.
    game.abort("the club closes")
    with pytest.raises(Aborted, match="the host aborted this game"):
        game.hand_seat(ann, "random")


# -- clocks that wait for the table (docs/api.md, "The table") ----------------------------------

READY = {**CLOCK, "start": "ready"}


def stacked_voodoo(hand: HandClock, bots: dict | None = None) -> Game:
    """A Voodoo Prince table from a stacked deal (Marie leads P1), its clocks waiting."""
    from tests.domain.voodoo_prince.kit import FOUR, stacked
    deal = stacked(FOUR, {"Marie": ["P1"], "Lukas": ["P2"]}, trump="B")
    return game_class("voodoo-prince").start(FOUR, seed="scenario", options={"rounds": 1},
                                             deal=deal, salt="ab" * 32, clock=READY,
                                             bots=bots, replay=Replay(timestamps=hand.stamps()))


def test_clocks_that_wait_for_the_table_start_with_a_persons_first_move():
    hand = HandClock()
    game = stacked_voodoo(hand, bots={"Nina": "heuristic"})
    assert event_record(game.pending_events[0])["data"]["clock"] == READY
    # Check nobody's bank runs an hour after creation: no deadline, nothing to run out.
    view = clocks_at(game, hand.after(3600))
    assert all(v == {"remaining": 60.0, "running": False} for v in view.values())
    assert deadline(game, "Marie") is None
    with pytest.raises(BadCommand, match="not running"):
        game.expire_clock("Marie", hand.now)
    # Check Marie's first move (a person's) was free and starts the clocks after it, in its step.
    game.execute("Marie", {"type": "play", "card": "P1"})
    records = [event_record(e) for e in game.pending_events]
    assert [r["type"] for r in records[-2:]] == ["CardPlayed", "ClocksStarted"]
    assert (records[-1]["data"], records[-1]["by"]) == ({"reason": "move"}, "server")
    assert clocks_at(game, hand.now)["Marie"] == {"remaining": 60.0, "running": False}
    assert clocks_at(game, hand.after(10))["Lukas"] == {"remaining": 50.0, "running": True}
    assert deadline(game, "Lukas") == hand.now + timedelta(seconds=50)
    # Check the next moves start nothing more, and replay rebuilds the same clocks.
    move(game)
    assert sum(event_record(e)["type"] == "ClocksStarted" for e in game.pending_events) == 1
    again = replayed(game)
    assert (again.clock_left, again.clock_since, again.clocks_started) == (
        game.clock_left, game.clock_since, True)


def test_a_bots_move_does_not_start_the_clocks_the_host_or_the_table_does():
    hand = HandClock()
    game = stacked_voodoo(hand, bots={"Marie": "heuristic"})
    # Check the bot seat's move leaves the clocks waiting.
    game.execute("Marie", {"type": "play", "card": "P1"}, by="bot")
    assert not game.clocks_started and deadline(game, "Lukas") is None
    # Fail to start them for a reason the rules do not know (the move's is the move's own).
    with pytest.raises(BadCommand, match="clocks start when"):
        game.start_clocks("move")
    # Check the host's word starts them: by host, the awaited seat's bank runs from there.
    hand.after(30)
    game.start_clocks("host")
    started_by = event_record(game.pending_events[-1])
    assert (started_by["type"], started_by["data"], started_by["by"]) == (
        "ClocksStarted", {"reason": "host"}, "host")
    assert deadline(game, "Lukas") == hand.now + timedelta(seconds=60)
    # Fail to start them twice.
    with pytest.raises(BadCommand, match="no clocks waiting"):
        game.start_clocks("present")
    assert replayed(game).clock_since == game.clock_since


def test_a_fork_of_any_clocked_game_waits_for_its_table():
    hand = HandClock()
    parent = started("vampir", hand)  # a clock recorded without "start": running from creation
    assert deadline(parent, parent.to_act[0]) is not None
    move(parent)
    fork = type(parent).fork(parent, {"game_id": str(parent.id), "version": parent.version,
                                      "hash": parent.chain_hash}, seed=9, salt="cd" * 32)
    assert fork.clock == {**CLOCK, "start": "ready"}
    assert all(deadline(fork, p) is None for p in fork.players)
    assert "clocks_started" not in event_record(fork.pending_events[1])["data"]["table"]


def test_a_seat_is_handed_over_at_most_twenty_times_a_game():
    """Issue 32, item 2: a seat handed to the bot and back 30,000 times made a game of 30,002
    events whose own export the server refused to verify or import."""
    from domain.core.seats import HANDOVERS_PER_SEAT

    hand = HandClock()
    game = started("vampiring", hand, clock=None)
    ann, ben = game.players[:2]
    for n in range(HANDOVERS_PER_SEAT):
        game.hand_seat(ann, "random" if n % 2 == 0 else None)
    # Fail to hand Ann's seat once more, either way: nothing recorded.
    version = game.version
    for bot in ("heuristic", None):
        with pytest.raises(BadCommand, match=f"handed over {HANDOVERS_PER_SEAT} times"):
            game.hand_seat(ann, bot)
    assert game.version == version and game.handed == {ann: None}
    # Check another seat has its own count, and replay counts the same.
    game.hand_seat(ben, "heuristic")
    again = replayed(game)
    assert again.handovers == {ann: HANDOVERS_PER_SEAT, ben: 1}
    with pytest.raises(BadCommand, match="handed over"):
        again.hand_seat(ann, "random")
    # Check a fork counts afresh: its record is its own, and its table carries no count.
    fork = type(game).fork(game, {"game_id": str(game.id), "version": game.version,
                                  "hash": game.chain_hash}, seed=9, salt="cd" * 32)
    assert "handovers" not in event_record(fork.pending_events[1])["data"]["table"]
    fork.hand_seat(ann, "random")
    assert fork.handovers == {ann: 1}
