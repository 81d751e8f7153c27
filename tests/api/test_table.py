"""The table over HTTP (docs/api.md, (table)): clocks chosen at creation, seats handed to the
server's bot and taken back, who has the game open, and the organiser who plays a seat.

The app under test is the served one (serving.wsgi: the API with its bot runner), bots moving at
once (GRUFT_BOT_DELAY=0), on a real SQLite file.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import pytest

from serving.wsgi import create_app
from tests.api.sse import ClientStream
from tests.kit import SHORT_OPTIONS, seats, wait_until

CLOCK = {"bank": 600, "increment": 5}


@pytest.fixture
def served(sqlite_env) -> Iterator[Any]:
    """The served app (with its bot runner) on a fresh SQLite file."""
    app = create_app({"TESTING": True, "GRUFT_ENV": {**sqlite_env, "GRUFT_BOT_DELAY": "0"}})
    yield app
    app.extensions["gruft"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Any, key: str = "vampiring", **extra: Any) -> dict[str, Any]:
    answer = client.post("/games", json={"game": key, "players": seats(key), "seed": 7,
                                         "options": SHORT_OPTIONS[key], **extra})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


# -- clocks -----------------------------------------------------------------------------------

def test_a_clock_waits_for_every_person_at_the_table_then_runs_for_the_seats_awaited(served):
    client = served.test_client()
    # Check the creation records the clock, waiting for the table, and nobody's bank runs.
    game = create(client, "vampir", clock=CLOCK, bots={"Cy": "heuristic"})
    gid = game["game_id"]
    view = client.get(f"/games/{gid}").get_json()
    assert set(view["clocks"]) == set(view["players"]) and view["clocks_started"] is False
    assert all(c == {"remaining": CLOCK["bank"], "running": False}
               for c in view["clocks"].values())
    created = client.get(f"/games/{gid}/events?limit=1").get_json()["events"][0]
    assert created["data"]["clock"] == {**CLOCK, "start": "ready"}
    # Check one person's page open is not the table: the banks still wait.
    people = [p for p in view["players"] if p != "Cy"]
    def page(player: str) -> ClientStream:
        stream = ClientStream(client, f"/games/{gid}/stream?token={game['player_tokens'][player]}")
        stream.next()
        return stream

    streams = [page(people[0])]
    try:
        assert client.get(f"/games/{gid}").get_json()["present"] == people[:1]
        assert client.get(f"/games/{gid}/events?type=ClocksStarted").get_json()["events"] == []
        # Check the last person's page (the bot's seat needs none) starts them (docs/api.md,
        # "The table"): by the server, and the awaited seats' banks run.
        streams += [page(p) for p in people[1:]]
        wait_until(lambda: client.get(f"/games/{gid}").get_json()["clocks_started"],
                   "the clocks to start with every person at the table")
    finally:
        for stream in streams:
            stream.close()
    started = client.get(f"/games/{gid}/events?type=ClocksStarted").get_json()["events"]
    assert [(e["by"], e["data"]) for e in started] == [("server", {"reason": "present"})]
    view = client.get(f"/games/{gid}").get_json()
    for name, clock in view["clocks"].items():
        assert clock["running"] == (name in view["to_act"])
        assert 0 < clock["remaining"] <= CLOCK["bank"]
    # Check a game without a clock shows none.
    plain = create(client, "vampir")
    assert "clocks" not in client.get(f"/games/{plain['game_id']}").get_json()


def test_a_seat_out_of_time_is_played_by_the_bot_recorded_as_such(served):
    client = served.test_client()
    game = create(client, "vampiring", clock={"bank": 3, "increment": 30})
    gid = game["game_id"]
    # The host starts the clocks (they wait for the table); Ann moves in time; Ben does not,
    # and his clock runs out after 3 seconds.
    assert client.post(f"/games/{gid}/clocks/start",
                       headers=bearer(game["host_token"])).status_code == 200
    ann = bearer(game["player_tokens"]["Ann"])
    moves = client.get(f"/games/{gid}/legal-moves", headers=ann).get_json()["moves"]
    assert client.post(f"/games/{gid}/commands", headers=ann, json=moves[0]).status_code == 200

    def expired() -> list[dict[str, Any]]:
        return client.get(f"/games/{gid}/events?type=ClockExpired").get_json()["events"]

    wait_until(lambda: expired() != [], "Ben's clock to run out")
    stored = expired()[0]
    assert (stored["by"], stored["data"]) == ("clock", {"player": "Ben"})
    after = client.get(f"/games/{gid}/events?after={stored['version']}").get_json()["events"]
    assert (after[0]["by"], after[0]["data"]["player"]) == ("bot", "Ben")
    # Check the views show Ben's clock at 0 plus his increment, and Ann's not run out.
    clocks = client.get(f"/games/{gid}").get_json()["clocks"]
    assert clocks["Ben"]["remaining"] <= 30 < clocks["Ann"]["remaining"]
    served.extensions["gruft"].running("clocks").stop()


def test_a_move_after_its_seats_deadline_is_refused_and_the_clocks_move_stored(client):
    # CL-1. A stacked game with a 1 s bank and no clock runner at all (api.create_app starts
    # none): the refused request itself stores the clock's move.
    from tests.api.test_metrics import clock_lateness
    from tests.api.test_secrets import dealt

    counted = clock_lateness(client).get("move", 0.0)
    _, data = dealt("voodoo-prince", 3, {"rounds": 1})
    deal = {"rounds": [{"trump": data["trump"], "hands": data["hands"]}]}
    answer = client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Ben", "Cy"],
                                         "options": {"rounds": 1}, "deal": deal,
                                         "clock": {"bank": 1, "increment": 0}})
    assert answer.status_code == 201, answer.get_json()
    game = answer.get_json()
    gid = game["game_id"]
    assert client.post(f"/games/{gid}/clocks/start",
                       headers=bearer(game["host_token"])).status_code == 200
    events = client.get(f"/games/{gid}/events").get_json()["events"]
    started = datetime.fromisoformat(events[-1]["timestamp"])  # ClocksStarted: the bank runs
    seat = client.get(f"/games/{gid}").get_json()["to_act"][0]
    token = bearer(game["player_tokens"][seat])
    move = client.get(f"/games/{gid}/legal-moves", headers=token).get_json()["moves"][0]
    wait_until(lambda: datetime.now(UTC) > started + timedelta(seconds=1.2),
               f"{seat}'s deadline to pass")
    refused = client.post(f"/games/{gid}/commands", headers=token, json=move)
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert (error["code"], error["rule"]) == ("out_of_time", "CL-1")
    # Check the clock's move is stored, at once, in that request: ClockExpired by the clock,
    # then the seat's move by the bot, and the seat's own move nowhere.
    after = client.get(f"/games/{gid}/events?after={events[-1]['version']}").get_json()["events"]
    assert [(e["type"], e["by"]) for e in after[:2]] == [("ClockExpired", "clock"),
                                                          ("CardPlayed", "bot")]
    assert after[0]["data"] == {"player": seat} and after[1]["data"]["player"] == seat
    assert datetime.fromisoformat(after[0]["timestamp"]) >= started + timedelta(seconds=1)
    assert seat not in client.get(f"/games/{gid}").get_json()["to_act"]
    # Check it is counted in the metrics as stored by the late move's request.
    assert clock_lateness(client)["move"] == counted + 1


def test_the_host_starts_the_clocks_and_only_once(served):
    client = served.test_client()
    game = create(client, "voodoo-prince", clock=CLOCK)
    gid, host = game["game_id"], bearer(game["host_token"])
    # Fail to start them as a seat or a spectator: nothing is stored.
    seat = bearer(game["player_tokens"][seats("voodoo-prince")[1]])
    assert client.post(f"/games/{gid}/clocks/start", headers=seat).status_code == 403
    assert client.post(f"/games/{gid}/clocks/start").status_code == 401
    assert client.get(f"/games/{gid}").get_json()["clocks_started"] is False
    # Check the host's word starts them (by host), and the awaited seat's bank runs.
    answer = client.post(f"/games/{gid}/clocks/start", headers=host)
    assert answer.status_code == 200, answer.get_json()
    view = answer.get_json()
    assert view["clocks_started"] is True
    assert [view["clocks"][p]["running"] for p in view["to_act"]] == [True]
    started = client.get(f"/games/{gid}/events?type=ClocksStarted").get_json()["events"]
    assert [(e["by"], e["data"]) for e in started] == [("host", {"reason": "host"})]
    # Fail to start them again, or in a game without a clock.
    assert client.post(f"/games/{gid}/clocks/start", headers=host).status_code == 409
    plain = create(client, "voodoo-prince")
    assert client.post(f"/games/{plain['game_id']}/clocks/start",
                       headers=bearer(plain["host_token"])).status_code == 409


def test_a_fork_made_with_nobody_present_is_not_played_by_the_clock(served):
    client = served.test_client()
    game = create(client, "vampir", clock={"bank": 1, "increment": 0})
    gid, host = game["game_id"], bearer(game["host_token"])
    runner = served.extensions["gruft"].clock_runner().runner
    # The fork of a game in play at its start: nobody has its link yet.
    at = client.get(f"/games/{gid}").get_json()["version"]
    answer = client.post(f"/games/{gid}/fork", headers=host, json={"at": at})
    assert answer.status_code == 201, answer.get_json()
    fork = answer.get_json()
    fid = fork["game_id"]
    # Check the runner looked at the fork and found no clock to run out (nothing scheduled):
    # its banks wait for the table, however long.
    wait_until(lambda: UUID(fid) in runner.active and UUID(fid) not in runner._due,
               "the clock runner to look at the fork")
    view = client.get(f"/games/{fid}").get_json()
    assert view["clocks_started"] is False and not any(
        c["running"] for c in view["clocks"].values())
    assert client.get(f"/games/{fid}/events?type=ClockExpired").get_json()["events"] == []
    # Check once its host starts them, the awaited seat's second runs out and the bot moves.
    assert client.post(f"/games/{fid}/clocks/start",
                       headers=bearer(fork["host_token"])).status_code == 200
    wait_until(lambda: client.get(f"/games/{fid}/events?type=ClockExpired").get_json()[
        "events"] != [], "the fork's clock to run out once started")


@pytest.mark.parametrize("clock", [{"bank": 0, "increment": 0}, {"bank": 60},
                                   {"bank": 60, "increment": -1}, {"bank": True, "increment": 0},
                                   {"bank": "60", "increment": 0},
                                   {"bank": 60, "increment": 0, "extra": 1}, [60, 0], 60],
                         ids=repr)
def test_a_bad_clock_is_refused_and_creates_nothing(served, clock):
    client = served.test_client()
    answer = client.post("/games", json={"game": "vampir", "players": seats("vampir"),
                                         "clock": clock})
    assert answer.status_code == 400, answer.get_json()
    # Check nothing at all was stored.
    assert served.extensions["gruft"].games.recorder.max_notification_id() is None


# -- seats handed over and taken back ----------------------------------------------------------

def test_the_host_hands_a_seat_to_the_bot_and_its_player_takes_it_back(served):
    client = served.test_client()
    game = create(client, "vampire-queen")
    gid, host = game["game_id"], bearer(game["host_token"])
    view = client.get(f"/games/{gid}").get_json()
    first = view["to_act"][0]
    # Check the host hands the awaited seat to the heuristic bot: recorded, shown, played.
    answer = client.post(f"/games/{gid}/seats/{first}", headers=host, json={"bot": "heuristic"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["bots"] == {first: "heuristic"}
    log = client.get(f"/games/{gid}/events").get_json()["events"]
    handed = [e for e in log if e["type"] == "SeatHanded"]
    assert handed == [{**handed[0], "by": "host", "data": {"player": first, "bot": "heuristic"}}]
    wait_until(lambda: any(e["by"] == "bot" for e in client.get(
        f"/games/{gid}/events?after={handed[0]['version']}").get_json()["events"]),
        "the bot to play the handed seat")
    # Check the seat's own token takes it back (by seat) and the views say so.
    own = bearer(game["player_tokens"][first])
    answer = client.post(f"/games/{gid}/seats/{first}", headers=own, json={"bot": None})
    assert answer.status_code == 200, answer.get_json()
    assert "bots" not in answer.get_json()
    back = client.get(f"/games/{gid}/events?type=SeatHanded").get_json()["events"]
    assert [(e["by"], e["data"]["bot"]) for e in back] == [("host", "heuristic"), ("seat", None)]
    # Check asking for what already is stores nothing.
    version = client.get(f"/games/{gid}").get_json()["version"]
    assert client.post(f"/games/{gid}/seats/{first}", headers=own,
                       json={"bot": None}).status_code == 200
    assert client.get(f"/games/{gid}").get_json()["version"] == version


def test_a_player_hands_over_only_their_own_seat(served):
    client = served.test_client()
    game = create(client, "vampir")
    gid = game["game_id"]
    ann, ben = bearer(game["player_tokens"]["Ann"]), bearer(game["player_tokens"]["Ben"])
    version = client.get(f"/games/{gid}").get_json()["version"]
    cases = [
        (ben, "Ann", {"bot": "heuristic"}, 403),  # another's seat
        (ben, "Ann", {"bot": None}, 403),
        ({}, "Ann", {"bot": "heuristic"}, 401),  # a spectator
        (ann, "Zed", {"bot": "heuristic"}, 404),  # no such seat
        (ann, "Ann", {"bot": "smart"}, 400),  # no such bot
        (ann, "Ann", {}, 400),
        (ann, "Ann", {"bot": "random", "extra": 1}, 400),
    ]
    for headers, seat, body, status in cases:
        answer = client.post(f"/games/{gid}/seats/{seat}", headers=headers, json=body)
        assert answer.status_code == status, (seat, body, answer.get_json())
    # Check none of them changed anything.
    assert client.get(f"/games/{gid}").get_json()["version"] == version
    # Check Ann may hand her own seat to a bot (by seat).
    answer = client.post(f"/games/{gid}/seats/Ann", headers=ann, json={"bot": "random"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["bots"] == {"Ann": "random"}


def test_a_game_that_is_over_hands_no_seat(served):
    client = served.test_client()
    game = create(client, "vampir")
    gid, host = game["game_id"], bearer(game["host_token"])
    assert client.post(f"/games/{gid}/abort", headers=host,
                       json={"reason": "test"}).status_code == 200
    answer = client.post(f"/games/{gid}/seats/Ann", headers=host, json={"bot": "heuristic"})
    assert answer.status_code == 409, answer.get_json()


# -- presence -------------------------------------------------------------------------------------

def test_the_views_say_which_seats_have_the_game_open(served):
    client = served.test_client()
    game = create(client, "vampir")
    gid = game["game_id"]
    assert client.get(f"/games/{gid}").get_json()["present"] == []
    # Check a seat's open stream makes it present, in every view and its own first message.
    ben = ClientStream(client, f"/games/{gid}/stream?token={game['player_tokens']['Ben']}")
    assert ben.status == 200
    assert ben.next().data["view"]["present"] == ["Ben"]
    assert client.get(f"/games/{gid}").get_json()["present"] == ["Ben"]
    # Check a spectator's and the host's streams are no seat's.
    spectator = ClientStream(client, f"/games/{gid}/stream")
    host = ClientStream(client, f"/games/{gid}/stream?token={game['host_token']}")
    spectator.next(), host.next()
    ann = ClientStream(client, f"/games/{gid}/stream?token={game['player_tokens']['Ann']}")
    assert ann.next().data["view"]["present"] == ["Ann", "Ben"]  # in seat order
    # Check the other streams are told, and a closed stream's seat leaves.
    while ["Ann", "Ben"] not in ben.parsed.presence:
        ben.next()
    ann.close()
    assert client.get(f"/games/{gid}").get_json()["present"] == ["Ben"]
    while ben.parsed.presence[-1] != ["Ben"]:
        ben.next()
    for stream in (ben, spectator, host):
        stream.close()
    assert client.get(f"/games/{gid}").get_json()["present"] == []


# -- the organiser plays a seat --------------------------------------------------------------------

def test_the_organiser_playing_a_seat_sees_only_its_secrets(served):
    client = served.test_client()
    game = create(client, "vampiring", host_seat="Ann")
    gid, host = game["game_id"], bearer(game["host_token"])
    # Ben moves: his move is secret until the turn resolves.
    ben = bearer(game["player_tokens"]["Ben"])
    moves = client.get(f"/games/{gid}/legal-moves", headers=ben).get_json()["moves"]
    assert client.post(f"/games/{gid}/commands", headers=ben, json=moves[0]).status_code == 200
    # Check the host token's view is Ann's, and it names no other seat's.
    view = client.get(f"/games/{gid}/view", headers=host).get_json()
    assert view["you"] == "Ann"
    assert view == client.get(f"/games/{gid}/view",
                              headers=bearer(game["player_tokens"]["Ann"])).get_json()
    assert "seed" not in view and "salt" not in view
    assert client.get(f"/games/{gid}/view?player=Ben", headers=host).status_code == 403
    # Check the log as the host token reads it is Ann's, Ben's secret move left out.
    log = client.get(f"/games/{gid}/events", headers=host).get_json()["events"]
    annlog = client.get(f"/games/{gid}/events",
                        headers=bearer(game["player_tokens"]["Ann"])).get_json()["events"]
    assert log == annlog
    submitted = [e for e in log if e["type"] == "MoveSubmitted"]
    assert submitted and all(set(e["data"]) == {"player"} for e in submitted)
    assert "seed" not in log[0]["data"]
    # Check the host token's stream shows what Ann's does, no more.
    stream = ClientStream(client, f"/games/{gid}/stream?after=0&token={game['host_token']}")
    first = stream.next()
    assert first.data["view"] == {**view, "present": ["Ann"]}
    assert first.data["events"] == annlog
    assert "Ben" not in str(first.data["view"]["private"])
    stream.close()
    # Check the replay, the export and the annotations stay closed to it while in play.
    for path in (f"/games/{gid}/replay/1", f"/games/{gid}/export", f"/games/{gid}/annotations"):
        assert client.get(path, headers=host).status_code == 403, path
    # Check it acts only for Ann, recorded as her seat's own move.
    assert client.post(f"/games/{gid}/commands", headers=host,
                       json={**moves[0], "player": "Ben"}).status_code == 403
    mine = client.get(f"/games/{gid}/legal-moves", headers=host).get_json()
    assert mine["player"] == "Ann"
    answer = client.post(f"/games/{gid}/commands", headers=host, json=mine["moves"][0])
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["events"][0]["by"] == "seat"
    # Check it keeps the host's other rights: invitations (and its own link), seats, abort.
    links = client.post(f"/games/{gid}/invitations", headers=host,
                        json={"tokens": [game["player_tokens"]["Ben"]]}).get_json()
    assert [i["player"] for i in links["invitations"]] == ["Ben"]
    assert f"/games/{gid}/play?invite=" in links["host"]["url"]  # a code, never a token
    assert client.post(f"/games/{gid}/seats/Ben", headers=host,
                       json={"bot": "heuristic"}).status_code == 200
    assert client.post(f"/games/{gid}/abort", headers=host,
                       json={"reason": "done"}).status_code == 200
    # Check once it is over everything is public, to the host token too.
    assert client.get(f"/games/{gid}/export", headers=host).status_code == 200


@pytest.mark.parametrize("host_seat", ["Zed", "", 3])
def test_a_host_seat_that_is_no_seat_is_refused(served, host_seat):
    client = served.test_client()
    answer = client.post("/games", json={"game": "vampir", "players": seats("vampir"),
                                         "host_seat": host_seat})
    assert answer.status_code == 400, answer.get_json()
    answer = client.post("/games", json={"game": "vampir", "players": seats("vampir"),
                                         "host_seat": "Ann", "bots": {"Ann": "random"}})
    assert answer.status_code == 400, answer.get_json()
    assert served.extensions["gruft"].games.recorder.max_notification_id() is None


def test_invitation_links_use_the_public_url_where_set(sqlite_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env,
                      "GRUFT_PUBLIC_URL": "http://192.168.1.20:8000/"})
    try:
        client = app.test_client()
        game = create(client, "vampir")
        gid = game["game_id"]
        links = client.post(f"/games/{gid}/invitations", headers=bearer(game["host_token"]),
                            json={"tokens": [game["player_tokens"]["Ann"]]}).get_json()
        assert links["invitations"][0]["url"].startswith(
            f"http://192.168.1.20:8000/games/{gid}/play?invite=")
        assert links["loopback"] is False
    finally:
        app.extensions["gruft"].close()


def test_without_a_public_url_links_use_the_requests_address(served):
    client = served.test_client()
    game = create(client, "vampir")
    gid, host = game["game_id"], bearer(game["host_token"])
    # Check the links use the request's address, and say when it is a loopback one.
    links = client.post(f"/games/{gid}/invitations", headers=host, json={"tokens": []},
                        base_url="http://127.0.0.1:8000").get_json()
    assert links["host"]["url"].startswith(f"http://127.0.0.1:8000/games/{gid}/play?invite=")
    assert links["loopback"] is True
    links = client.post(f"/games/{gid}/invitations", headers=host, json={"tokens": []},
                        base_url="http://10.0.0.5:8000").get_json()
    assert links["host"]["url"].startswith("http://10.0.0.5:8000/")
    assert links["loopback"] is False


# -- rematch --------------------------------------------------------------------------------------

def test_a_rematch_has_the_same_seats_rotated_and_every_token_still_works(served):
    client = served.test_client()
    game = create(client, "vampir", bots={"Cy": "random"}, clock=CLOCK, host_seat="Ann")
    gid, host = game["game_id"], bearer(game["host_token"])
    ben = bearer(game["player_tokens"]["Ben"])
    # Fail to start a rematch of a game in play, or as a spectator.
    assert client.post(f"/games/{gid}/rematch", headers=host).status_code == 409
    assert client.post(f"/games/{gid}/rematch").status_code == 401
    assert client.post(f"/games/{gid}/abort", headers=host,
                       json={"reason": "again"}).status_code == 200
    # A seat's stream asking to be told of the rematch stays open past the end.
    waiting = ClientStream(client, f"/games/{gid}/stream?rematch=true&token="
                                   f"{game['player_tokens']['Ben']}")
    assert waiting.next().data["view"]["status"] == "aborted"
    # Check the host's call makes it: as POST /games, the seats rotated, the same settings.
    answer = client.post(f"/games/{gid}/rematch", headers=host)
    assert answer.status_code == 201, answer.get_json()
    made = answer.get_json()
    rid = made["game_id"]
    assert made["view"]["players"] == ["Ben", "Cy", "Ann"]
    assert made["view"]["bots"] == {"Cy": "random"} and "clocks" in made["view"]
    created = client.get(f"/games/{rid}/events?limit=1").get_json()["events"][0]["data"]
    assert created["clock"] == {**CLOCK, "start": "ready"}
    assert made["view"]["options"] == client.get(f"/games/{gid}").get_json()["options"]
    # Check the waiting stream names it as its last message.
    assert waiting.until_end() and waiting.parsed.rematch == rid
    # Check the finished game's view names it, and later calls answer the same game.
    assert client.get(f"/games/{gid}").get_json()["rematch"] == rid
    again = client.post(f"/games/{gid}/rematch", headers=host)
    assert again.status_code == 200
    assert again.get_json()["game_id"] == rid
    assert again.get_json()["host_token"] == game["host_token"]
    seat = client.post(f"/games/{gid}/rematch", headers=ben).get_json()
    assert seat == {"game_id": rid, "player_token": game["player_tokens"]["Ben"]}
    # Check the old tokens and the fresh ones act for the same seats; the organiser still
    # plays Ann's seat (host_seat carried over).
    assert client.get(f"/games/{rid}/view", headers=ben).get_json()["you"] == "Ben"
    fresh_ben = bearer(made["player_tokens"]["Ben"])
    assert client.get(f"/games/{rid}/view", headers=fresh_ben).get_json()["you"] == "Ben"
    for token in (game["host_token"], made["host_token"]):
        assert client.get(f"/games/{rid}/view", headers=bearer(token)).get_json()["you"] == "Ann"
    # Check a finished game's stream tells of the rematch too (its one message).
    stream = ClientStream(client, f"/games/{gid}/stream")
    assert stream.next().data["view"]["rematch"] == rid


def test_a_seat_may_start_the_rematch_and_the_host_then_finds_it(served):
    client = served.test_client()
    game = create(client, "vampir")
    gid, host = game["game_id"], bearer(game["host_token"])
    assert client.post(f"/games/{gid}/abort", headers=host,
                       json={"reason": "again"}).status_code == 200
    cy = game["player_tokens"]["Cy"]
    answer = client.post(f"/games/{gid}/rematch", headers=bearer(cy))
    assert answer.status_code == 200, answer.get_json()
    rid = answer.get_json()["game_id"]
    assert answer.get_json()["player_token"] == cy
    assert client.get(f"/games/{rid}/view", headers=bearer(cy)).get_json()["you"] == "Cy"
    host_answer = client.post(f"/games/{gid}/rematch", headers=host).get_json()
    assert host_answer["game_id"] == rid and host_answer["player_tokens"] == {}
    # Check the rematch of the rematch is a game of its own, every token still valid.
    assert client.post(f"/games/{rid}/abort", headers=host,
                       json={"reason": "once more"}).status_code == 200
    third = client.post(f"/games/{rid}/rematch", headers=bearer(cy)).get_json()["game_id"]
    assert third not in (gid, rid)
    assert client.get(f"/games/{third}/view", headers=bearer(cy)).get_json()["you"] == "Cy"
    assert client.get(f"/games/{third}").get_json()["players"] == ["Cy", "Ann", "Ben"]


def test_presence_and_rematches_reach_every_worker(storage_env, tmp_path):
    from tests.api.sse import SocketStream
    from tests.kit import call, served_gruft

    with served_gruft(storage_env, tmp_path / "serve.log", workers=2) as port:
        status, game = call(port, "POST", "/games", {"game": "vampir",
                                                     "players": seats("vampir")})
        assert status == 201, game
        gid = game["game_id"]

        def everywhere(present: list[str]) -> bool:
            # New connections spread over both workers: each must say the same.
            return all(call(port, "GET", f"/games/{gid}")[1]["present"] == present
                       for _ in range(12))

        # Check a stream open in one worker makes its seat present in the other's views too.
        stream = SocketStream(port, f"/games/{gid}/stream", token=game["player_tokens"]["Cy"])
        assert stream.status == 200
        stream.next()
        wait_until(lambda: everywhere(["Cy"]), "every worker to see Cy present")
        # Check a closed stream's seat leaves every worker's views.
        stream.close()
        wait_until(lambda: everywhere([]), "every worker to see Cy gone")
        # Check a stream waiting for the rematch (written by a worker's stream writer) is told
        # of it, whichever worker made it.
        assert call(port, "POST", f"/games/{gid}/abort", {"reason": "again"},
                    token=game["host_token"])[0] == 200
        waiting = SocketStream(port, f"/games/{gid}/stream?rematch=true",
                               token=game["player_tokens"]["Ann"])
        assert waiting.next().data["view"]["status"] == "aborted"
        status, made = call(port, "POST", f"/games/{gid}/rematch", token=game["host_token"])
        assert status == 201, made
        waiting.until_end()
        assert waiting.parsed.rematch == made["game_id"]


def test_racing_rematch_calls_make_one_rematch(served):
    import threading

    from domain.core import HOST, Viewer

    client = served.test_client()
    store = served.extensions["gruft"].games
    game = create(client, "vampir")
    gid = game["game_id"]
    assert client.post(f"/games/{gid}/abort", headers=bearer(game["host_token"]),
                       json={"reason": "again"}).status_code == 200
    # The host and two seats ask at the same moment, each on a thread of its own.
    gate, answers = threading.Barrier(3), []

    def ask(viewer: Viewer) -> None:
        gate.wait()
        answers.append(store.rematch(gid, viewer))

    threads = [threading.Thread(target=ask, args=(v,)) for v in (
        HOST, Viewer(player="Ann"), Viewer(player="Ben"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    # Check every caller was answered the same game, and one rematch was stored.
    assert len({rematch_id for rematch_id, _ in answers}) == 1 and len(answers) == 3
    assert client.get(f"/games/{gid}").get_json()["rematch"] == str(answers[0][0])
    listed = client.get("/games?limit=200").get_json()["games"]
    assert len(listed) == 2


def test_a_seat_that_joined_by_an_invitation_link_moves_on_to_the_rematch(served):
    from urllib.parse import parse_qs, urlsplit

    client = served.test_client()
    game = create(client, "vampir")
    gid, host = game["game_id"], bearer(game["host_token"])
    links = client.post(f"/games/{gid}/invitations", headers=host,
                        json={"players": ["Ben"]}).get_json()
    code = parse_qs(urlsplit(links["invitations"][0]["url"]).query)["invite"][0]
    credential = client.post(f"/games/{gid}/invitations/accept",
                             json={"code": code}).get_json()["token"]
    host_code = parse_qs(urlsplit(links["host"]["url"]).query)["invite"][0]
    host_credential = client.post(f"/games/{gid}/invitations/accept",
                                  json={"code": host_code}).get_json()["token"]
    assert client.post(f"/games/{gid}/abort", headers=host,
                       json={"reason": "again"}).status_code == 200
    # Check the credential Ben's page got for its code is Ben's in the rematch too.
    answer = client.post(f"/games/{gid}/rematch", headers=bearer(credential)).get_json()
    assert answer["player_token"] == credential
    view = client.get(f"/games/{answer['game_id']}/view", headers=bearer(credential))
    assert view.status_code == 200 and view.get_json()["you"] == "Ben"
    # Check the host's credential from its own link is the host's there.
    again = client.post(f"/games/{gid}/rematch", headers=bearer(host_credential))
    assert again.status_code == 200 and again.get_json()["game_id"] == answer["game_id"]


def _accepted_credential(client: Any, gid: str, host: dict[str, str], seat: str) -> str:
    """A new invitation for `seat`, exchanged for its credential (as the link's holder would)."""
    from urllib.parse import parse_qs, urlsplit

    links = client.post(f"/games/{gid}/invitations", headers=host,
                        json={"players": [seat], "host": False}).get_json()
    code = parse_qs(urlsplit(links["invitations"][0]["url"]).query)["invite"][0]
    return client.post(f"/games/{gid}/invitations/accept", json={"code": code}).get_json()["token"]


def _rematch_after_abort(client: Any, gid: str, host: dict[str, str]) -> str:
    assert client.post(f"/games/{gid}/abort", headers=host, json={"reason": "again"}).status_code == 200
    return client.post(f"/games/{gid}/rematch", headers=host).get_json()["game_id"]


@pytest.mark.parametrize("reissued_in", ["finished game", "rematch"])
def test_a_reissued_invitation_ends_the_old_links_credential_in_every_rematch(served, reissued_in):
    """Issue 32, item 4: Eve got Ben's misdirected link; the host issues Ben a new one."""
    client = served.test_client()
    game = create(client, "vampir")
    gid, host = game["game_id"], bearer(game["host_token"])
    eve = _accepted_credential(client, gid, host, "Ben")
    rematch = _rematch_after_abort(client, gid, host)
    # Check Eve's credential is Ben's in the rematch, as every credential of the game before is
    assert client.get(f"/games/{rematch}/view", headers=bearer(eve)).get_json()["you"] == "Ben"
    # The host issues Ben's invitation again, in the finished game or in the rematch
    again_in = gid if reissued_in == "finished game" else rematch
    rematch_host = bearer(client.post(f"/games/{gid}/rematch", headers=host).get_json()["host_token"])
    ben = _accepted_credential(client, again_in, host if again_in == gid else rematch_host, "Ben")
    # Check Eve's credential now opens Ben's seat nowhere after the re-issue: not in the rematch,
    # and not in the rematch of the rematch either
    assert client.get(f"/games/{rematch}/view", headers=bearer(eve)).status_code == 401
    third = _rematch_after_abort(client, rematch, rematch_host)
    assert client.get(f"/games/{third}/view", headers=bearer(eve)).status_code == 401
    assert client.post(f"/games/{third}/rematch", headers=bearer(eve)).status_code == 401
    # Check Ben's creation token and his new link's credential still work where they were valid
    assert client.get(f"/games/{third}/view",
                      headers=bearer(game["player_tokens"]["Ben"])).get_json()["you"] == "Ben"
    assert client.get(f"/games/{again_in}/view", headers=bearer(ben)).get_json()["you"] == "Ben"
    if again_in == rematch:  # a rematch made after it carries the new link's credential
        assert client.get(f"/games/{third}/view", headers=bearer(ben)).get_json()["you"] == "Ben"
