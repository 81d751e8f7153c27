"""The live stream (GET /games/{id}/stream), long polling (GET /events?wait=) and the command's
answer (to_act, status), through the Flask app on a real SQLite file (docs/api.md, issue 15)."""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import threading

import pytest

from api import create_app
from domain import available_games
from service.live import delivery
from tests.api.sse import ClientStream, Message, events_of
from tests.kit import SHORT_OPTIONS, seats

KEEPALIVE = 0.05  # seconds: short, so the tests see comment lines quickly


pytestmark = pytest.mark.app_config(GRUFT_STREAM_KEEPALIVE=KEEPALIVE)


def new_game(client, key: str = "vampir", seed: int = 3) -> dict:
    answer = client.post("/games", json={"game": key, "players": seats(key), "seed": seed,
                                         "options": SHORT_OPTIONS[key]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_one(client, created: dict, rng: random.Random) -> dict:
    """One random legal command by a player to act, with that player's token; its answer."""
    gid = created["game_id"]
    view = client.get(f"/games/{gid}").get_json()
    player = rng.choice(view["to_act"])
    token = bearer(created["player_tokens"][player])
    moves = client.get(f"/games/{gid}/legal-moves", headers=token).get_json()["moves"]
    answer = client.post(f"/games/{gid}/commands", headers=token, json=rng.choice(moves))
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def in_thread(target) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


# -- the command's answer --------------------------------------------------------------------

@pytest.mark.parametrize("key", available_games())
def test_a_command_answers_who_is_awaited_and_the_status(client, key):
    created = new_game(client, key)
    gid, rng = created["game_id"], random.Random(1)
    while True:
        answer = play_one(client, created, rng)
        view = client.get(f"/games/{gid}").get_json()
        # Check the answer says what the view says right after it.
        assert (answer["to_act"], answer["status"]) == (view["to_act"], view["status"])
        assert answer["version"] == view["version"]
        if answer["status"] == "finished":
            assert answer["to_act"] == []
            break
        assert answer["status"] == "in_progress" and answer["to_act"]


# -- the stream ------------------------------------------------------------------------------

def test_the_first_message_carries_the_current_view(client):
    created = new_game(client)
    gid = created["game_id"]
    stream = ClientStream(client, f"/games/{gid}/stream")
    assert stream.status == 200
    assert stream.response.headers["Content-Type"].startswith("text/event-stream")
    assert stream.response.headers["Cache-Control"] == "no-store"
    first = stream.next()
    view = client.get(f"/games/{gid}").get_json()
    assert isinstance(first, Message)
    assert (first.id, first.event) == (view["version"], "update")
    # Check a fresh stream carries no events, only the view (the public one: no token).
    assert first.data == {"events": [], "view": view}
    stream.close()


def test_a_player_stream_carries_their_own_view(client):
    created = new_game(client)
    gid, ann = created["game_id"], seats("vampir")[0]
    token = created["player_tokens"][ann]
    for stream in (ClientStream(client, f"/games/{gid}/stream", bearer(token)),
                   ClientStream(client, f"/games/{gid}/stream?token={token}")):
        first = stream.next()
        assert first.data["view"] == client.get(f"/games/{gid}/view",
                                                headers=bearer(token)).get_json()
        assert first.data["view"]["you"] == ann and "hand" in first.data["view"]["private"]
        stream.close()
    # The host names a seat, as on /view.
    host = created["host_token"]
    stream = ClientStream(client, f"/games/{gid}/stream?player={ann}", bearer(host))
    assert stream.next().data["view"]["you"] == ann
    stream.close()


def test_a_seat_stream_carries_its_legal_moves(client):
    created = new_game(client, "vampiring")
    gid = created["game_id"]
    for name, token in created["player_tokens"].items():
        stream = ClientStream(client, f"/games/{gid}/stream", bearer(token))
        first = stream.next()
        # Check each seat's message carries that seat's moves, as /legal-moves answers them.
        moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(token)).get_json()
        assert first.data["legal_moves"] == moves["moves"] and moves["moves"], name
        stream.close()
    # Check a spectator's message carries none.
    stream = ClientStream(client, f"/games/{gid}/stream")
    assert "legal_moves" not in stream.next().data
    stream.close()


def test_a_wide_numeric_seed_and_non_ascii_names_reach_the_stream_intact(client):
    # orjson holds 64-bit integers only: a 200-bit seed (check_seed allows it), shown once the
    # game is over, must still reach a stream, through the json fallback, exactly as /view.
    seed = (1 << 200) + 12345
    players = ["Åsa", "Zoë", "Ümit"]
    answer = client.post("/games", json={"game": "vampir", "players": players, "seed": seed,
                                         "options": SHORT_OPTIONS["vampir"]})
    assert answer.status_code == 201, answer.get_json()
    created = answer.get_json()
    gid, host = created["game_id"], bearer(created["host_token"])
    # A player's stream (orjson: the names as UTF-8, not escaped) reads the same as /view.
    token = bearer(created["player_tokens"]["Zoë"])
    stream = ClientStream(client, f"/games/{gid}/stream", token)
    first = stream.next()
    assert first.data["view"]["you"] == "Zoë" and "seed" not in first.data["view"]
    assert first.data["view"] == client.get(f"/games/{gid}/view", headers=token).get_json()
    stream.close()
    aborted = client.post(f"/games/{gid}/abort", headers=host, json={"reason": "Zoë left"})
    assert aborted.status_code == 200, aborted.get_json()
    stream = ClientStream(client, f"/games/{gid}/stream?after=0")
    last = stream.next()
    assert last.data["view"]["seed"] == seed
    assert last.data["view"] == client.get(f"/games/{gid}").get_json()
    assert last.data["events"][-1]["data"]["reason"] == "Zoë left"
    stream.close()


def test_resuming_misses_nothing_and_repeats_nothing(client):
    created = new_game(client)
    gid, rng = created["game_id"], random.Random(2)
    for _ in range(4):
        play_one(client, created, rng)
    log = client.get(f"/games/{gid}/events?limit=1000").get_json()["events"]
    head = log[-1]["version"]
    for after in (0, 1, head - 2, head):
        for path, headers in ((f"/games/{gid}/stream?after={after}", {}),
                              (f"/games/{gid}/stream?after=0", {"Last-Event-ID": str(after)})):
            stream = ClientStream(client, path, headers)
            first = stream.next()
            # Check the first message carries exactly the events after the resume point
            # (Last-Event-ID wins over ?after=, as a browser reconnecting sends both).
            assert first.id == head
            assert first.data["events"] == [e for e in log if e["version"] > after]
            stream.close()


def test_a_long_catch_up_comes_in_pages_shared_by_streams_resuming_anywhere(client, monkeypatch):
    monkeypatch.setattr(delivery, "CATCH_UP_PAGE", 4)
    created = new_game(client)
    gid, rng = created["game_id"], random.Random(2)
    for _ in range(12):
        play_one(client, created, rng)
    log = client.get(f"/games/{gid}/events?limit=1000").get_json()["events"]
    head = log[-1]["version"]
    assert head > 13
    for after in (1, 2):
        stream = ClientStream(client, f"/games/{gid}/stream?after={after}")
        pages = stream.until_version(head)
        stream.close()
        # Check the pages carry the log after the resume point, each once, at most 4 events a
        # page; each ends on a multiple of 4 (so every resume point shares them) but the last,
        # and only the last, at the head, carries the view.
        assert events_of(pages) == [e for e in log if e["version"] > after]
        assert all(len(page.data["events"]) <= 4 for page in pages)
        assert [page.id for page in pages] == [*range(4, head, 4), head]
        assert [page.id for page in pages if "view" in page.data] == [head]
        assert pages[-1].data["view"]["version"] == head
        assert all(page.data["events"][-1]["version"] == page.id for page in pages)


@pytest.mark.app_config(GRUFT_STREAM_KEEPALIVE=1, GRUFT_STREAM_MAX_PENDING=2000)
def test_a_stream_read_too_slowly_is_cut_off(client, caplog):
    created = new_game(client, "vampire-queen")
    gid, rng = created["game_id"], random.Random(3)
    stream = ClientStream(client, f"/games/{gid}/stream")
    first = stream.next()
    assert stream.next() == "keepalive"  # the writer has the stream
    # Nothing read meanwhile: the writer queues the messages until too many wait.
    with caplog.at_level(logging.WARNING, logger="gruft.api"):
        while "cut off" not in caplog.text:
            assert play_one(client, created, rng)["status"] == "in_progress"
        # Check the stream then ends, before the game does, without what was waiting.
        messages = stream.until_end()
    assert messages[-1].id == first.id
    assert client.get(f"/games/{gid}").get_json()["status"] == "in_progress"


def test_every_change_reaches_the_stream_and_it_ends_with_the_game(client):
    created = new_game(client)
    gid = created["game_id"]
    stream = ClientStream(client, f"/games/{gid}/stream?after=0")
    start = stream.next().id

    def play() -> None:
        rng = random.Random(4)
        while client.get(f"/games/{gid}").get_json()["status"] == "in_progress":
            play_one(client, created, rng)

    player = in_thread(play)
    messages = stream.until_end()
    player.join(60)
    # Check the events of all messages are the log, each once, in order, and each message's
    # id is the version its view shows. (Their data was redacted as the game stood when each
    # was sent; the log now shows everything, the game being over.)
    log = client.get(f"/games/{gid}/events?limit=1000").get_json()["events"]
    assert [(e["version"], e["type"], e["timestamp"]) for e in events_of(messages)] == [
        (e["version"], e["type"], e["timestamp"]) for e in log]
    assert messages[-1].data["events"] == log[-len(messages[-1].data["events"]):]
    assert [e["version"] for e in events_of(messages)] == list(range(1, len(log) + 1))
    assert all(m.id == m.data["view"]["version"] for m in messages)
    assert len(messages) > 1 and messages[0].id == start
    # Check it ended right after the message that finished the game.
    assert messages[-1].data["view"]["status"] == "finished"
    assert [m.data["view"]["status"] for m in messages[:-1]] == ["in_progress"] * (
        len(messages) - 1)


def test_an_idle_stream_gets_comment_lines_and_pings(client):
    created = new_game(client)
    stream = ClientStream(client, f"/games/{created['game_id']}/stream")
    stream.next()
    assert stream.next() == "keepalive" and stream.next() == "keepalive"
    # Check each keepalive comes with a ping a browser's EventSource sees (the page's heartbeat).
    stream.next()
    assert stream.parsed.pings >= 2
    stream.close()


def test_a_finished_game_streams_one_message_and_ends(client):
    created = new_game(client)
    gid, rng = created["game_id"], random.Random(5)
    while play_one(client, created, rng)["status"] != "finished":
        pass
    stream = ClientStream(client, f"/games/{gid}/stream")
    messages = stream.until_end()
    assert len(messages) == 1 and messages[0].data["view"]["status"] == "finished"


@pytest.mark.parametrize("query, headers", [
    ("after=-1", {}), ("after=x", {}), ("palyer=Ann", {}), ("token=", {}),
    ("", {"Last-Event-ID": "seven"}), ("", {"Last-Event-ID": "-3"}),
])
def test_malformed_stream_requests_are_400(client, query, headers):
    gid = new_game(client)["game_id"]
    answer = client.get(f"/games/{gid}/stream?{query}", headers=headers)
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "bad_request"


def test_stream_refusals(client):
    created = new_game(client)
    gid = created["game_id"]
    ann, ben = seats("vampir")[:2]
    wrong = client.get(f"/games/{gid}/stream?token=not-a-token")
    assert (wrong.status_code, wrong.get_json()["error"]["code"]) == (401, "unauthorized")
    other = client.get(f"/games/{gid}/stream?player={ben}",
                       headers=bearer(created["player_tokens"][ann]))
    assert other.status_code == 403
    missing = client.get("/games/00000000-0000-0000-0000-000000000000/stream")
    assert missing.status_code == 404


def test_the_token_in_the_query_is_never_logged(client, caplog):
    created = new_game(client)
    token = created["player_tokens"][seats("vampir")[0]]
    with caplog.at_level(logging.DEBUG):
        stream = ClientStream(client, f"/games/{created['game_id']}/stream?token={token}")
        stream.next()
        stream.close()
        client.get(f"/games/{created['game_id']}/stream?token={token}&after=-1")  # a 400
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/stream" in logged  # the request was logged ...
    assert token not in logged  # ... without its token


# -- long polling ----------------------------------------------------------------------------

def test_long_poll_answers_when_an_event_is_stored(client):
    created = new_game(client)
    gid = created["game_id"]
    head = client.get(f"/games/{gid}").get_json()["version"]
    got: dict = {}

    def poll() -> None:
        got["answer"] = client.get(f"/games/{gid}/events?after={head}&wait=30").get_json()

    poller = in_thread(poll)
    answer = play_one(client, created, random.Random(6))
    poller.join(30)
    # Check the poll was answered by the command (not after 30 s, empty) with its events.
    assert not poller.is_alive()
    assert [e["version"] for e in got["answer"]["events"]] == [
        e["version"] for e in answer["events"]]


def test_long_poll_with_events_at_hand_answers_at_once_and_empty_after_the_wait(client):
    created = new_game(client)
    gid = created["game_id"]
    head = client.get(f"/games/{gid}").get_json()["version"]
    assert len(client.get(f"/games/{gid}/events?after=0&wait=30").get_json()["events"]) == head
    assert client.get(f"/games/{gid}/events?after={head}&wait=0.1").get_json() == {
        "events": [], "next_after": None}


@pytest.mark.parametrize("wait", ["-1", "31", "abc", "nan", "inf", ""])
def test_bad_waits_are_400(client, wait):
    gid = new_game(client)["game_id"]
    answer = client.get(f"/games/{gid}/events?wait={wait}")
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["error"]["code"] == "bad_request"


def test_the_openapi_document_describes_the_live_routes(client):
    doc = client.get("/openapi.json").get_json()
    stream = doc["paths"]["/games/{game_id}/stream"]["get"]
    assert "text/event-stream" in stream["responses"]["200"]["content"]
    assert {p["name"] for p in stream["parameters"]} >= {"after", "token", "player",
                                                          "Last-Event-ID"}
    assert "/games/{game_id}/abort" in doc["paths"]
    events = doc["paths"]["/games/{game_id}/events"]["get"]
    assert "wait" in {p["name"] for p in events["parameters"]}
    result = json.dumps(doc["components"]["schemas"]["CommandResult"])
    assert '"to_act"' in result and '"status"' in result


def test_a_worker_holds_no_more_streams_than_it_may(app, client):
    """Each stream holds a thread: beyond GRUFT_STREAMS_MAX a stream is refused (503, Retry-After)
    and threads stay free for commands; a stream that ends gives its place back."""
    from api.live import SLOTS

    gid = new_game(client)["game_id"]
    store = app.extensions["gruft"].games  # streams of other tests may still be open
    store.settings = dataclasses.replace(store.settings, streams_max=SLOTS.open + 1)
    first = ClientStream(client, f"/games/{gid}/stream")
    assert first.status == 200
    refused = client.get(f"/games/{gid}/stream")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert refused.get_json()["error"]["code"] == "unavailable"
    assert client.get(f"/games/{gid}").status_code == 200  # other requests are served
    first.close()
    again = ClientStream(client, f"/games/{gid}/stream")
    assert again.status == 200
    again.close()


def test_closing_the_application_ends_its_writer_and_presence_threads_before_its_store(
        sqlite_env):
    # Both read the store in their rounds; closing an SQLite connection under a running
    # statement crashed a test process (CI: the writer's presence round, in select_events).
    import uuid

    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    worker = app.extensions["gruft"]
    store, writer = worker.games, worker.stream_writer()
    store.presence.present(uuid.uuid4(), ["Ann"])  # its reading thread starts
    threads = [writer._thread, store.presence._thread]
    assert all(t is not None and t.is_alive() for t in threads)
    alive_at_store_close = []
    real_close = store.factory.close

    def close_store() -> None:
        alive_at_store_close.append([t.is_alive() for t in threads])
        real_close()

    store.factory.close = close_store
    worker.close()  # the owner closes the writer, then the Application (presence, the store)
    assert alive_at_store_close == [[False, False]]
