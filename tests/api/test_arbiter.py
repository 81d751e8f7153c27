"""The arbiter's desk over REST: annotations on any step, forks from any state of a game over."""

from __future__ import annotations

import random

import pytest

from domain import available_games
from domain.core import record_hash
from tests.kit import SHORT_OPTIONS, play_over_rest, seats

GAMES = available_games()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, key: str, seed: int = 7) -> dict:
    answer = client.post("/games", json={"game": key, "players": seats(key), "seed": seed,
                                         "options": SHORT_OPTIONS[key]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def finished_game(client, key: str, seed: int = 7) -> dict:
    created = new_game(client, key, seed)
    play_over_rest(client, created, random.Random(seed))
    return created


def log_of(client, game_id: str, headers: dict | None = None) -> list[dict]:
    return client.get(f"/games/{game_id}/events?limit=1000", headers=headers or {}).get_json()["events"]


# -- annotations --------------------------------------------------------------------------

def test_the_host_annotates_steps_and_the_game_itself_never_changes(client):
    created = new_game(client, "vampire-queen")
    gid, host = created["game_id"], bearer(created["host_token"])
    before = client.get(f"/games/{gid}").get_json()
    # Check a note on the setup (step 0) and a ruling on the last event are both kept, in order.
    first = client.post(f"/games/{gid}/annotations", headers=host,
                        json={"version": 0, "text": "Deal checked against the cards on the table."})
    assert first.status_code == 201, first.get_json()
    second = client.post(f"/games/{gid}/annotations", headers=host,
                         json={"version": before["version"], "kind": "ruling",
                               "text": "Ben's claim is refused: he held the card (VQ-5)."})
    assert second.status_code == 201
    note, ruling = first.get_json(), second.get_json()
    assert (note["kind"], note["version"], note["author"]) == ("note", 0, "host")
    assert (ruling["kind"], ruling["version"]) == ("ruling", before["version"])
    listed = client.get(f"/games/{gid}/annotations", headers=host).get_json()["annotations"]
    assert listed == [note, ruling]
    # Check the game's own record is untouched: same version, same log.
    assert client.get(f"/games/{gid}").get_json()["version"] == before["version"]


def test_annotations_are_chained_from_the_seed_commitment(client, app):
    created = finished_game(client, "vampiring")
    gid, host = created["game_id"], bearer(created["host_token"])
    for version in (0, 3, 1):
        client.post(f"/games/{gid}/annotations", headers=host, json={"version": version, "text": f"at {version}"})
    games = app.extensions["gruft"].games
    game = games.game(gid)
    records = games.arbiter.annotation_records(game)
    hashes = {e["version"]: e["hash"] for e in games.reads.records(gid)}
    prev = game.seed_commitment
    for record in records:
        # Check each link: its predecessor, its own hash, and the hash of the step it is about.
        assert record["prev_hash"] == prev
        assert record["hash"] == record_hash(prev, record)
        assert record["event_hash"] == (game.seed_commitment if record["version"] == 0
                                        else hashes[record["version"]])
        prev = record["hash"]
    assert [r["version"] for r in records] == [0, 3, 1]


@pytest.mark.parametrize("body", [
    {"version": -1, "text": "x"}, {"version": 10_000, "text": "x"}, {"version": "2", "text": "x"},
    {"version": 1, "text": ""}, {"version": 1, "text": "x", "kind": "verdict"},
    {"version": 1}, {"version": 1, "text": "x", "extra": 1}, {"version": 1, "text": "a\x00b"},
])
def test_a_bad_annotation_is_a_400_and_stores_nothing(client, body):
    created = new_game(client, "vampir")
    gid, host = created["game_id"], bearer(created["host_token"])
    answer = client.post(f"/games/{gid}/annotations", headers=host, json=body)
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["error"]["code"] == "bad_request"
    assert client.get(f"/games/{gid}/annotations", headers=host).get_json() == {"annotations": []}


def test_only_the_host_annotates_and_annotations_are_open_as_the_replay_is(client):
    created = new_game(client, "voodoo-prince")
    gid, host = created["game_id"], bearer(created["host_token"])
    player = bearer(next(iter(created["player_tokens"].values())))
    body = {"version": 1, "text": "a note"}
    # Fail to annotate as a player (403) or without a token (401): nothing is stored.
    assert client.post(f"/games/{gid}/annotations", headers=player, json=body).status_code == 403
    assert client.post(f"/games/{gid}/annotations", json=body).status_code == 401
    assert client.post(f"/games/{gid}/annotations", headers=host, json=body).status_code == 201
    # Fail to read them as a player or a spectator while the game is in play (as its replay).
    assert client.get(f"/games/{gid}/annotations", headers=player).status_code == 403
    assert client.get(f"/games/{gid}/annotations").status_code == 403
    play_over_rest(client, created, random.Random(1))
    assert len(client.get(f"/games/{gid}/annotations").get_json()["annotations"]) == 1


def test_annotating_a_missing_game_is_a_404(client):
    assert client.post("/games/00000000-0000-0000-0000-000000000000/annotations",
                       json={"version": 0, "text": "x"}).status_code == 404


# -- forks --------------------------------------------------------------------------------

def between_moves(log: list[dict], key: str, near: int) -> int:
    """The last version at or before `near` after which a player's move begins."""
    from domain import game_class

    moves = game_class(key).COMMAND_EVENTS
    return max(e["version"] - 1 for e in log[:near + 1] if e["type"] in moves)


@pytest.mark.parametrize("key", GAMES)
def test_a_fork_begins_exactly_at_the_parents_state_and_plays_on(client, key):
    created = finished_game(client, key)
    gid, host = created["game_id"], bearer(created["host_token"])
    parent_log = log_of(client, gid)
    at = between_moves(parent_log, key, len(parent_log) // 2)
    answer = client.post(f"/games/{gid}/fork", headers=host, json={"at": at})
    assert answer.status_code == 201, answer.get_json()
    fork = answer.get_json()
    # Check new tokens, the link to the parent, and the same table as the parent's after `at`.
    assert fork["game_id"] != gid and fork["host_token"] != created["host_token"]
    assert set(fork["player_tokens"]) == set(created["player_tokens"])
    assert fork["view"]["parent"] == {"game_id": gid, "version": at,
                                      "hash": next(e for e in client.get(f"/games/{gid}/export").get_json()["events"]
                                                   if e["version"] == at)["hash"]}
    fork_host = bearer(fork["host_token"])
    parent_step = client.get(f"/games/{gid}/replay/{at}", headers=host).get_json()
    fork_step = client.get(f"/games/{fork['game_id']}/replay/2", headers=fork_host).get_json()
    assert fork_step["state"] == parent_step["state"]
    assert fork["view"]["to_act"] == parent_step["view"]["to_act"]
    assert fork["view"]["seed_commitment"] != created["view"]["seed_commitment"]
    # Check the parent is untouched and lists its fork.
    assert log_of(client, gid) == parent_log
    assert client.get(f"/games/{gid}/forks").get_json() == {
        "forks": [{"game_id": fork["game_id"], "at": at}]}
    # Check the fork plays on to its own end by the same rules.
    play_over_rest(client, fork, random.Random(3))
    assert client.get(f"/games/{fork['game_id']}").get_json()["status"] == "finished"


def test_a_forks_carried_table_stays_secret_while_it_is_in_play(client):
    created = finished_game(client, "vampire-queen")
    gid, host = created["game_id"], bearer(created["host_token"])
    at = between_moves(log_of(client, gid), "vampire-queen", 6)
    fork = client.post(f"/games/{gid}/fork", headers=host, json={"at": at}).get_json()
    fid = fork["game_id"]
    ann = bearer(fork["player_tokens"]["Ann"])
    forked = [e for e in log_of(client, fid, bearer(fork["host_token"])) if e["type"] == "Forked"]
    assert "hands" in forked[0]["data"]["table"]
    for headers in ({}, ann):
        # Check a spectator and a player see the link, never the carried-over hands.
        (event,) = [e for e in log_of(client, fid, headers) if e["type"] == "Forked"]
        assert "table" not in event["data"]
        assert "parent" in event["data"]
    assert "private" not in client.get(f"/games/{fid}").get_json()
    ann_view = client.get(f"/games/{fid}/view", headers=ann).get_json()
    assert set(ann_view["private"]) == {"hand"}
    assert client.get(f"/games/{fid}/export").status_code == 403


def test_an_aborted_game_forks_as_an_analysis_of_a_public_table(client):
    created = new_game(client, "vampir")
    gid, host = created["game_id"], bearer(created["host_token"])
    view = client.get(f"/games/{gid}").get_json()
    # Check an aborted game is over and public, so its fork is an analysis fork: the parent
    # stays public (a game forked in play is sealed instead: tests/trust/test_sealed_forks.py).
    assert client.post(f"/games/{gid}/abort", headers=host, json={"reason": "voided move"}).status_code == 200
    fork = client.post(f"/games/{gid}/fork", headers=host, json={"at": view["version"]})
    assert fork.status_code == 201, fork.get_json()
    assert fork.get_json()["view"]["status"] == "in_progress"
    assert client.get(f"/games/{gid}/export").status_code == 200


@pytest.mark.parametrize("body, status", [
    ({"at": "3"}, 400), ({"at": -1}, 400), ({}, 400), ({"at": 3, "seed": 1}, 400),
    ({"at": 100_000}, 400),
])
def test_a_bad_fork_is_refused_and_makes_nothing(client, body, status):
    created = finished_game(client, "vampiring")
    gid, host = created["game_id"], bearer(created["host_token"])
    assert client.post(f"/games/{gid}/fork", headers=host, json=body).status_code == status
    assert client.get(f"/games/{gid}/forks").get_json() == {"forks": []}


def test_a_fork_begins_between_moves_not_inside_one(client):
    created = finished_game(client, "voodoo-prince")
    gid, host = created["game_id"], bearer(created["host_token"])
    log = log_of(client, gid)
    # A card that completes a trick is followed by the trick's own event: between the two the
    # trick is full and unsettled, no table to continue from.
    inside = next(e["version"] for e, after in zip(log, log[1:], strict=False)
                  if e["type"] == "CardPlayed" and after["type"] == "TrickWon")
    answer = client.post(f"/games/{gid}/fork", headers=host, json={"at": inside})
    assert answer.status_code == 400
    message = answer.get_json()["error"]["message"]
    assert "in the middle of a move" in message
    assert client.get(f"/games/{gid}/forks").get_json() == {"forks": []}
    # Check the step it suggests is the last one between moves before it, and forks.
    suggested = int(message.rsplit("after event ", 1)[1])
    assert log[suggested]["type"] == "CardPlayed" and suggested < inside
    assert client.post(f"/games/{gid}/fork", headers=host, json={"at": suggested}
                       ).status_code == 201


def test_only_the_host_forks_and_not_where_the_game_is_over(client):
    created = finished_game(client, "voodoo-prince")
    gid, host = created["game_id"], bearer(created["host_token"])
    last = client.get(f"/games/{gid}").get_json()["version"]
    player = bearer(next(iter(created["player_tokens"].values())))
    assert client.post(f"/games/{gid}/fork", headers=player, json={"at": 3}).status_code == 403
    assert client.post(f"/games/{gid}/fork", json={"at": 3}).status_code == 401
    # Fail to fork after the last event: nobody is awaited there, nothing to continue.
    answer = client.post(f"/games/{gid}/fork", headers=host, json={"at": last})
    assert answer.status_code == 400
    assert client.get(f"/games/{gid}/forks").get_json() == {"forks": []}
