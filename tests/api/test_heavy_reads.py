"""Reads priced like commands (issue 32, item 8): on a long game, the newest events' narration
costs what it tells, not the log; a finished game's export is kept, not built again; and the
heavy reads (narration, viewer page, export, replay steps) are limited per address, so one
address looping on them is refused (429 with Retry-After) while every other is served."""

from __future__ import annotations

import json
import random
import re

import pytest

from api import create_app
from domain.core import HOST, SPECTATOR
from domain.core.narration import tell
from service.reads import shown_event
from tests.api.test_contract import assert_error, bearer
from tests.kit import wait_until

# The options' longest Vampire Queen: 12 players, 20 phases (about 4,850 events played out).
PLAYERS = [f"P{i}" for i in range(12)]
LONG = {"game": "vampire-queen", "players": PLAYERS, "seed": 5, "options": {"phases": 20}}


def long_game(app, client, events: int) -> dict:
    """A Vampire Queen game of at least `events` events, still in play: its moves are played
    on the stored game and saved at once, as one command's events are (quicker than thousands
    of commands)."""
    created = client.post("/games", json=LONG).get_json()
    games = app.extensions["gruft"].games
    game = games.game(created["game_id"])
    rng = random.Random(5)
    while game.version < events:
        player = rng.choice(game.to_act)
        game.execute(player, rng.choice(game.legal_moves(player)))
        assert not game.finished
    games._save_and_share(game)
    assert games.game(created["game_id"]).version == game.version
    return created


def step(app, game_id: str) -> None:
    """One more move through the service."""
    games = app.extensions["gruft"].games
    game = games.game(game_id)
    player = game.to_act[0]
    games.run_command(game_id, HOST, {**game.legal_moves(player)[0], "player": player})


def told_whole(app, game_id: str) -> dict[int, str]:
    """Every event's words for a spectator, told from the start."""
    games = app.extensions["gruft"].games
    game = games.game(game_id)
    shown = [shown_event(game, e, SPECTATOR) for e in games.repository.event_store.get(game.id)]
    return {t["version"]: t["text"] for t in tell(type(game), shown, list(game.players),
                                                  dict(game.options))}


def test_the_newest_events_are_told_without_walking_the_log(app, client):
    created = long_game(app, client, 4000)
    gid = created["game_id"]
    reads = app.extensions["gruft"].games.reads
    version = app.extensions["gruft"].games.game(gid).version
    # The first page walks the log: it tells all of it.
    before = reads.narrated
    told = client.get(f"/games/{gid}/narration").get_json()["events"]
    assert len(told) == version and reads.narrated - before == version
    # Check the page a client asks next (from one event before the last) reads one event...
    before = reads.narrated
    told = client.get(f"/games/{gid}/narration?after={version - 1}").get_json()["events"]
    assert [t["version"] for t in told] == [version]
    assert reads.narrated - before == 1
    # ...and, three moves later, the events since then, each told as from the start.
    for _ in range(3):
        step(app, gid)
    newest = app.extensions["gruft"].games.game(gid).version
    before = reads.narrated
    told = client.get(f"/games/{gid}/narration?after={version - 1}").get_json()["events"]
    assert reads.narrated - before == newest - (version - 1)
    whole = told_whole(app, gid)
    assert [(t["version"], t["text"]) for t in told] == [
        (v, whole[v]) for v in range(version, newest + 1)]
    # Check a seat's page is told from its own context (its own secrets), not the spectator's.
    player = PLAYERS[0]
    mine = client.get(f"/games/{gid}/narration?after={newest - 1}",
                      headers=bearer(created["player_tokens"][player])).get_json()["events"]
    assert [t["version"] for t in mine] == [newest]


def test_a_finished_games_export_and_page_are_kept(app, client):
    created = client.post("/games", json={**LONG, "options": {"phases": 1}}).get_json()
    gid = created["game_id"]
    games = app.extensions["gruft"].games
    rng = random.Random(3)
    while not games.game(gid).finished:
        game = games.game(gid)
        player = rng.choice(game.to_act)
        games.run_command(gid, HOST, {**rng.choice(game.legal_moves(player)), "player": player})
    export = f"/games/{gid}/export"
    assert client.get(export).status_code == 200
    # The game log appends the finished game on its own thread (its proof joins the export).
    wait_until(lambda: client.get(export).get_data() == client.get(export).get_data(),
               "the export to hold still")
    first = client.get(export)
    read = games.reads.records_read
    again = client.get(export)
    assert again.get_data() == first.get_data()
    assert games.reads.records_read == read  # answered from the cache, the log not read
    # The public page too: the second is the first, kept whole.
    page = client.get(f"/games/{gid}/viewer").get_data(as_text=True)
    assert client.get(f"/games/{gid}/viewer").get_data(as_text=True) == page
    assert viewer_data(page)["annotations"] == []
    # An annotation changes the document and the page: they are built again.
    answer = client.post(f"/games/{gid}/annotations", headers=bearer(created["host_token"]),
                         json={"version": 1, "text": "the deal"})
    assert answer.status_code == 201, answer.get_json()
    third = client.get(f"/games/{gid}/export").get_json()
    assert [a["text"] for a in third["annotations"]] == ["the deal"]
    assert games.reads.records_read > read
    page = client.get(f"/games/{gid}/viewer").get_data(as_text=True)
    assert [a["text"] for a in viewer_data(page)["annotations"]] == ["the deal"]


def viewer_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', html,
                      re.S)
    assert found, html[:200]
    return json.loads(found.group(1))


def test_a_long_games_viewer_page_is_described_once_per_version(app, client):
    created = long_game(app, client, 3000)
    gid, host = created["game_id"], bearer(created["host_token"])
    reads = app.extensions["gruft"].games.reads
    first = client.get(f"/games/{gid}/viewer", headers=host)
    assert first.status_code == 200
    data = viewer_data(first.get_data(as_text=True))
    version = app.extensions["gruft"].games.game(gid).version
    assert [e["version"] for e in data["events"]] == list(range(1, version + 1))
    assert data["starts"] and "Played" in data["event_types"]
    # Check the same page again is told from what was kept: the log is not read.
    read = reads.records_read
    again = client.get(f"/games/{gid}/viewer", headers=host)
    assert reads.records_read == read
    assert viewer_data(again.get_data(as_text=True)) == data
    # In another language it is described again, in that language.
    german = viewer_data(client.get(f"/games/{gid}/viewer?lang=de", headers=host
                                    ).get_data(as_text=True))
    assert reads.records_read == read + 1
    assert german["events"][0]["text"] != data["events"][0]["text"]
    # One move later: the page describes the new version.
    step(app, gid)
    newer = viewer_data(client.get(f"/games/{gid}/viewer", headers=host).get_data(as_text=True))
    assert len(newer["events"]) == version + 1 and newer["version"] == version + 1


@pytest.fixture
def limited(sqlite_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env, "GRUFT_READ_LIMIT": "3/minute"})
    yield app
    app.extensions["gruft"].close()


def test_heavy_reads_are_limited_per_address(limited):
    client = limited.test_client()
    created = client.post("/games", json={"game": "vampir", "players": ["Ann", "Ben", "Cy"]}).get_json()
    gid, host = created["game_id"], bearer(created["host_token"])
    heavy = [f"/games/{gid}/narration", f"/games/{gid}/export", f"/games/{gid}/replay/1",
             f"/games/{gid}/viewer"]
    busy, bystander = {"REMOTE_ADDR": "10.0.0.1"}, {"REMOTE_ADDR": "10.0.0.2"}
    for path in heavy[:3]:  # the address's three
        assert client.get(path, headers=host, environ_base=busy).status_code == 200, path
    # Check every heavy read past the limit is refused with Retry-After, from that address...
    for path in heavy:
        answer = client.get(path, headers=host, environ_base=busy)
        assert_error(answer, 429, "rate_limited")
        assert 0 < int(answer.headers["Retry-After"]) <= 60
    # ...while another address reads its own three, and the busy one still plays and views.
    for path in heavy[1:]:
        assert client.get(path, headers=host, environ_base=bystander).status_code == 200, path
    for _ in range(5):
        assert client.get(f"/games/{gid}", environ_base=busy).status_code == 200
    assert client.get(f"/games/{gid}/events", environ_base=busy).status_code == 200
    player = limited.extensions["gruft"].games.game(gid).to_act[0]
    seat = bearer(created["player_tokens"][player])
    move = client.get(f"/games/{gid}/legal-moves", headers=seat, environ_base=busy
                      ).get_json()["moves"][0]
    answer = client.post(f"/games/{gid}/commands", headers=seat, json=move, environ_base=busy)
    assert answer.status_code == 200, answer.get_json()


def test_an_address_has_few_heavy_reads_under_way_at_once(sqlite_env):
    """An address asking many games' first pages at once takes GRUFT_READS_PER_ADDRESS threads of
    a worker, not all of them: past that, 429 with Retry-After; other addresses are served."""
    from api.holds import READ, READS

    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env, "GRUFT_READS_PER_ADDRESS": "1"})
    try:
        client = app.test_client()
        created = client.post("/games", json={"game": "vampiring", "players": ["Ann", "Ben"]}
                              ).get_json()
        gid, host = created["game_id"], bearer(created["host_token"])
        busy, bystander = {"REMOTE_ADDR": "10.0.0.3"}, {"REMOTE_ADDR": "10.0.0.4"}
        heavy = [f"/games/{gid}/narration", f"/games/{gid}/export", f"/games/{gid}/replay/1",
                 f"/games/{gid}/viewer"]
        READS.take(READ, "10.0.0.3", None, 1)  # a read of that address under way
        try:
            for path in heavy:
                answer = client.get(path, headers=host, environ_base=busy)
                error = assert_error(answer, 429, "rate_limited")
                assert "under way" in error["message"]
                assert int(answer.headers["Retry-After"]) > 0
                assert client.get(path, headers=host, environ_base=bystander).status_code == 200
            assert client.get(f"/games/{gid}", environ_base=busy).status_code == 200
        finally:
            READS.give(READ, "10.0.0.3")
        # Check once it is answered, the address reads again.
        for path in heavy:
            assert client.get(path, headers=host, environ_base=busy).status_code == 200, path
    finally:
        app.extensions["gruft"].close()
