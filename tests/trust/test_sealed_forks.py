"""Forks keep the secrets they carry (issue 22 item 1, docs/api.md "Forks keep the secrets").

An arbiter forks a game in play: the parent stops and stays sealed with its fork. Twin games that
differ only in what a viewer may not see (another seat's hand, Vampir's draw pile order, Vampire
Queen's set-aside cards, a pending VampiRing move) are forked alike: through every endpoint
(view, events, narration, replay steps, export, viewer, annotations, stream), a spectator and a seat must
not tell the twins apart, parent or fork, until every fork is over; the host always can.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from domain import available_games, game_class
from domain.vampire_queen.deal import stacked_hands
from tests.api.sse import ClientStream
from tests.api.test_secrets import PLAYERS, VIEWER, common_moves, host, twin_deals
from tests.kit import play_over_rest

HEX = re.compile(r"[0-9a-f]{64}")


def twins(client, key: str) -> list[dict]:
    """Two games of `key` that differ only in what VIEWER and a spectator may not see."""
    if key == "vampiring":
        games = [client.post("/games", json={"game": key, "players": PLAYERS, "seed": 5}
                             ).get_json() for _ in range(2)]
        # Ben submits a different secret move in each game and is then awaited no more.
        for game, move in zip(games, ({"metamorphosis": "a", "direction": "cw"},
                                      {"metamorphosis": "b", "direction": "ccw"}), strict=True):
            answer = client.post(f"/games/{game['game_id']}/commands", headers=host(game),
                                 json={"type": "move", "player": "Ben", **move})
            assert answer.status_code == 200
        return games
    if key == "vampire-queen":
        options, deal_a, _ = twin_deals(key)
        # Cy's hand gives one card to the cards set aside (VQ-2) and takes another from them.
        hands = deal_a["phases"][0]["hands"]
        _, aside = stacked_hands(hands)
        other = json.loads(json.dumps(hands))
        other["Cy"][0] = next(c for c in aside if c != other["Cy"][0] and not c.startswith("S"))
        deals = (deal_a, {"phases": [{"hands": other}]})
    else:
        options, *deals = twin_deals(key)
    return [client.post("/games", json={"game": key, "players": PLAYERS, "seed": 99,
                                        "options": options, "deal": deal}).get_json()
            for deal in deals]


def scrubbed(value, ids: list[str]):
    """An answer without what differs between twins by nature: ids, times, hashes, tokens."""
    text = json.dumps(value, sort_keys=True)
    for number, gid in enumerate(ids):
        text = text.replace(gid, f"<game {number}>")
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", text)
    text = HEX.sub("<hash>", text)
    text = re.sub(r"[0-9a-f]{12}\\u2026", "<hash>", text)  # a commitment told in words
    text = re.sub(r'"(timestamp|created_at)": "[^"]*"', r'"\1": "<time>"', text)
    text = re.sub(r"\d{4}-\d\d-\d\dT[0-9:.+]+", "<time>", text)
    text = re.sub(r'"(token|host_token)": "[^"]*"', r'"\1": "<token>"', text)
    # a seat's receipt signs a chain hash (scrubbed above), which differs as the hash does
    text = re.sub(r'"signature": "[^"]*"', '"signature": "<signature>"', text)
    return json.loads(text)


def readable(client, gid: str, headers: dict, token: str | None) -> dict:
    """Everything one viewer can read about a game, through every endpoint."""
    version = client.get(f"/games/{gid}").get_json()["version"]
    query = f"?token={token}" if token else ""
    paths = [f"/games/{gid}", f"/games/{gid}/events?limit=1000", f"/games/{gid}/narration",
             f"/games/{gid}/export",
             f"/games/{gid}/annotations", f"/games/{gid}/forks", f"/games/{gid}/viewer{query}",
             *(f"/games/{gid}/replay/{n}" for n in range(version + 1))]
    if token:
        paths += [f"/games/{gid}/view", f"/games/{gid}/legal-moves"]
    out = {}
    for path in paths:
        answer = client.get(path, headers=headers)
        body = answer.get_json(silent=True)
        name = path.replace(gid, "<gid>")
        name = name.replace(token, "<token>") if token else name
        out[name] = (answer.status_code,
                                           body if body is not None else answer.get_data(True))
    stream = ClientStream(client, f"/games/{gid}/stream?after=0{'&token=' + token if token else ''}")
    out["stream"] = (stream.status, [stream.next().data])
    stream.close()
    return out


def family_seen(client, games: list[dict], who: str) -> dict:
    """What `who` (a spectator, VIEWER or the host) reads of every game of one family."""
    out = {}
    for number, game in enumerate(games):
        if who == "host":
            token = game["host_token"]
        else:
            token = game["player_tokens"][VIEWER] if who == VIEWER else None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        out[number] = readable(client, game["game_id"], headers, token)
    return scrubbed(out, [g["game_id"] for g in games])


def fork_in_play(client, game: dict) -> dict:
    """The host forks a game in play at its current step: the fork's creation answer."""
    version = client.get(f"/games/{game['game_id']}").get_json()["version"]
    answer = client.post(f"/games/{game['game_id']}/fork", headers=host(game),
                         json={"at": version})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def check_alike(client, families: list[list[dict]], when: str) -> None:
    for who in ("spectator", VIEWER):
        seen = [family_seen(client, family, who) for family in families]
        differ = [(member, path) for member in seen[0] for path in seen[0][member]
                  if seen[0][member][path] != seen[1][member][path]]
        assert not differ, f"{who} tells the twins apart {when}: {differ}"


@pytest.mark.parametrize("key", available_games())
def test_a_game_forked_in_play_stays_sealed_with_its_fork(client, key):
    pair = twins(client, key)
    if key != "vampiring":
        common_moves(client, *pair, random.Random(1), 3)
    # Check forking in play stops the parent, its reason naming the fork.
    forks = [fork_in_play(client, game) for game in pair]
    for game, fork in zip(pair, forks, strict=True):
        view = client.get(f"/games/{game['game_id']}").get_json()
        assert view["status"] == "aborted" and view["sealed"] is True
        assert "seed" not in view and "salt" not in view
        (aborted,) = [e for e in client.get(f"/games/{game['game_id']}/events?limit=1000"
                                            ).get_json()["events"] if e["type"] == "GameAborted"]
        assert fork["game_id"] in aborted["data"]["reason"]
        assert aborted["by"] == "host"
        # Fail to move in the stopped parent.
        legal = client.get(f"/games/{fork['game_id']}/legal-moves?player={fork['view']['to_act'][0]}",
                           headers=host(fork)).get_json()["moves"]
        refused = client.post(f"/games/{game['game_id']}/commands", headers=host(game),
                              json={**legal[0], "player": fork["view"]["to_act"][0]})
        assert refused.status_code == 409
    families = [[game, fork] for game, fork in zip(pair, forks, strict=True)]
    check_alike(client, families, "once forked")
    # Check a spectator may not replay or export the stopped parent; its host may.
    gid = pair[0]["game_id"]
    for path in (f"/games/{gid}/export", f"/games/{gid}/replay/1", f"/games/{gid}/annotations"):
        answer = client.get(path)
        assert answer.status_code == 403 and "sealed" in answer.get_json()["error"]["message"]
        assert client.get(path, headers=host(pair[0])).status_code == 200
    # Check the host does see the difference the others may not.
    assert family_seen(client, families[0], "host") != family_seen(client, families[1], "host")
    # Check once every fork is over, everything of the family is public and verifies.
    for fork in forks:
        play_over_rest(client, fork, random.Random(4))
    for family in families:
        for game in family:
            gid = game["game_id"]
            view = client.get(f"/games/{gid}").get_json()
            assert "sealed" not in view and "seed" in view
            document = client.get(f"/games/{gid}/export")
            assert document.status_code == 200
            assert client.post("/replays/verify", json=document.get_json()).get_json()["valid"]


def test_every_fork_of_the_family_keeps_it_sealed(client):
    pair = twins(client, "voodoo-prince")
    common_moves(client, *pair, random.Random(2), 2)
    firsts = [fork_in_play(client, game) for game in pair]
    common_moves(client, *firsts, random.Random(3), 2)
    # A fork of the fork, in play too: the first fork stops, the family grows.
    seconds = [fork_in_play(client, fork) for fork in firsts]
    # A second fork of the sealed parent (over, not public): it joins the family too.
    thirds = [client.post(f"/games/{g['game_id']}/fork", headers=host(g),
                          json={"at": f["view"]["parent"]["version"]}).get_json()
              for g, f in zip(pair, firsts, strict=True)]
    for third in thirds:
        assert third["view"]["status"] == "in_progress"
    families = [list(f) for f in zip(pair, firsts, seconds, thirds, strict=True)]
    check_alike(client, families, "with three forks")
    # Check a fork that is over stays sealed while another of its family plays (the twins'
    # forks played on apart, so only the others are compared).
    for fork in seconds:
        play_over_rest(client, fork, random.Random(5))
    check_alike(client, [[g for g in f if g not in seconds] for f in families], "one over")
    for fork in seconds:
        fid = fork["game_id"]
        view = client.get(f"/games/{fid}").get_json()
        assert view["status"] == "finished" and view["sealed"] is True
        assert "seed" not in view and "salt" not in view
        assert client.get(f"/games/{fid}/export").status_code == 403
        assert client.get(f"/games/{fid}/replay/2").status_code == 403
        (forked,) = [e for e in client.get(f"/games/{fid}/events").get_json()["events"]
                     if e["type"] == "Forked"]
        assert "table" not in forked["data"]
    for fork in thirds:
        play_over_rest(client, fork, random.Random(6))
    for game in families[0]:
        assert client.get(f"/games/{game['game_id']}/export").status_code == 200


def test_a_fork_of_a_game_over_is_an_analysis_fork(client):
    game = client.post("/games", json={"game": "vampir", "players": PLAYERS, "seed": 8,
                                       "options": {"rounds": 1}}).get_json()
    play_over_rest(client, game, random.Random(8))
    gid = game["game_id"]
    fork = client.post(f"/games/{gid}/fork", headers=host(game), json={"at": 4}).get_json()
    # Check the parent stays as it was, public, and the fork is in no family.
    view = client.get(f"/games/{gid}").get_json()
    assert view["status"] == "finished" and "sealed" not in view
    assert client.get(f"/games/{gid}/export").status_code == 200
    (forked,) = [e for e in client.get(f"/games/{fork['game_id']}/events", headers=host(fork)
                                       ).get_json()["events"] if e["type"] == "Forked"]
    assert "family" not in forked["data"]


def test_a_fork_keeps_bot_seats_and_clock(app, client):
    games = app.extensions["gruft"].games
    created = games.create_game("voodoo-prince", ["Ann", "Ben"], seed=3, options={"rounds": 1},
                                bots={"Ben": "random"})
    gid = str(created.game_id)
    # A clock, as the table's creation records it (the domain takes it; the route may not yet).
    clocked = game_class("voodoo-prince").start(["Ann", "Ben"], seed=4, options={"rounds": 1},
                                                clock={"bank": 60, "increment": 2})
    stored = games.store_new(clocked)
    fork = client.post(f"/games/{gid}/fork", headers=host({"host_token": created.host_token}),
                       json={"at": client.get(f"/games/{gid}").get_json()["version"]}).get_json()
    assert fork["view"]["bots"] == {"Ben": "random"}
    fork2 = client.post(f"/games/{stored.game_id}/fork",
                        headers=host({"host_token": stored.host_token}),
                        json={"at": client.get(f"/games/{stored.game_id}").get_json()["version"]}
                        ).get_json()
    export = client.get(f"/games/{fork2['game_id']}/export",
                        headers=host(fork2)).get_json()
    # the fork's clocks wait for its own table (docs/api.md, "When the clocks start")
    assert export["events"][0]["data"]["clock"] == {"bank": 60, "increment": 2,
                                                    "start": "ready"}


def test_the_organiser_playing_a_seat_keeps_only_that_seats_eyes_in_the_fork(client):
    game = client.post("/games", json={"game": "vampir", "players": PLAYERS, "seed": 8,
                                       "options": {"rounds": 1}, "host_seat": "Ann"}).get_json()
    fork = fork_in_play(client, game)
    organiser = host(fork)
    # Check the organiser's token of the fork sees Ann's hand, never Ben's, nor the carried table.
    assert "hand" in client.get(f"/games/{fork['game_id']}/view", headers=organiser
                                ).get_json()["private"]
    assert client.get(f"/games/{fork['game_id']}/view?player=Ben",
                      headers=organiser).status_code in (400, 403)
    (forked,) = [e for e in client.get(f"/games/{fork['game_id']}/events",
                                       headers=organiser).get_json()["events"]
                 if e["type"] == "Forked"]
    assert "table" not in forked["data"]
    assert client.get(f"/games/{game['game_id']}/export", headers=host(game)).status_code == 403
