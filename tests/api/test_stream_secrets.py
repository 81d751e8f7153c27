"""A stream shows each viewer exactly what the event log and their view show them, no more.

Twin games as in test_secrets.py: two games that differ only in what a viewer may not see must
stream identically to that viewer and to a spectator. And for every seat, the host and a
spectator, each message's events are what GET /events answers that token, and its view is what
/view (or the public view) answers, at the same version.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from domain import available_games
from tests.api.sse import ClientStream
from tests.api.test_secrets import PLAYERS, VIEWER, common_moves, host, scrub, twin_games

KEEPALIVE = 0.02


pytestmark = pytest.mark.app_config(GRUFT_STREAM_KEEPALIVE=KEEPALIVE)


def scrubbed(value, game_id: str):
    """As test_secrets scrubs, and the seed's commitment too: each game draws its own salt."""
    text = json.dumps(scrub(value, game_id), sort_keys=True)
    # A seat's receipt names its move's chain hash, and signs it: the chain begins with the
    # creation's secret salt, so a hash tells nothing of what it covers, and differs as games do.
    text = re.sub(r'"(hash|signature)": "[^"]*"', r'"\1": "<\1>"', text)
    return json.loads(re.sub(r'"seed_commitment": "[0-9a-f]*"', '"seed_commitment": "<c>"', text))


def open_streams(client, game: dict) -> dict[str, ClientStream]:
    """A stream from the start for every seat (by ?token=), the host and a spectator."""
    gid = game["game_id"]
    streams = {name: ClientStream(client, f"/games/{gid}/stream?after=0&token={token}")
               for name, token in game["player_tokens"].items()}
    streams["host"] = ClientStream(client, f"/games/{gid}/stream?after=0",
                                   {"Authorization": f"Bearer {game['host_token']}"})
    streams["spectator"] = ClientStream(client, f"/games/{gid}/stream?after=0")
    for stream in streams.values():
        assert stream.status == 200
        stream.next()
    return streams


def caught_up(client, game: dict, streams: dict[str, ClientStream]) -> dict[str, list]:
    """Each viewer's messages up to the game's version now (scrubbed of ids and times)."""
    version = client.get(f"/games/{game['game_id']}").get_json()["version"]
    seen = {}
    for name, stream in streams.items():
        messages = stream.until_version(version)
        assert messages[-1].id == version
        seen[name] = scrubbed([(m.id, m.data) for m in messages], game["game_id"])
    return seen


def headers_of(game: dict, name: str) -> dict[str, str]:
    token = game["host_token"] if name == "host" else game["player_tokens"].get(name)
    return {"Authorization": f"Bearer {token}"} if token else {}


def check_same_as_log_and_view(client, game: dict, streams: dict[str, ClientStream]) -> None:
    """The newest message of each stream: its view is the viewer's view now, and all events
    streamed so far are the log as that viewer reads it now (the game is still on)."""
    gid = game["game_id"]
    for name, stream in streams.items():
        headers = headers_of(game, name)
        log = client.get(f"/games/{gid}/events?limit=1000", headers=headers).get_json()["events"]
        streamed = [e for m in stream.parsed.messages for e in m.data["events"]]
        assert streamed == log, name
        path = f"/games/{gid}/view" if name in game["player_tokens"] else f"/games/{gid}"
        assert stream.parsed.messages[-1].data["view"] == client.get(
            path, headers=headers).get_json(), name


def alike(one: list, other: list) -> bool:
    """Whether two viewers' messages tell them the same: the same events, and the same view
    (and legal moves) at every version both were sent one. Which versions a message was sent
    at depends on when the worker's writer woke, not on the game."""
    def events(messages: list) -> list:
        return [e for _, data in messages for e in data["events"]]

    def rest(messages: list) -> dict:
        return {v: {k: x for k, x in data.items() if k != "events"} for v, data in messages}

    both = rest(one).keys() & rest(other).keys()
    return (events(one) == events(other) and one[-1][0] == other[-1][0]
            and all(rest(one)[v] == rest(other)[v] for v in both))


@pytest.mark.parametrize("key", [k for k in available_games() if k != "vampiring"])
def test_hidden_cards_never_stream(client, key):
    twins = twin_games(client, key)
    streams = [open_streams(client, game) for game in twins]
    rng = random.Random(1)
    for _ in range(3):
        common_moves(client, *twins, rng, 2)
        seen = [caught_up(client, game, s) for game, s in zip(twins, streams, strict=True)]
        for game, s in zip(twins, streams, strict=True):
            check_same_as_log_and_view(client, game, s)
        # Check the viewer and a spectator cannot tell the twins apart on their streams ...
        for name in (VIEWER, "spectator"):
            assert alike(seen[0][name], seen[1][name]), f"{name} can tell the games apart"
    # ... while the streams of those who hold the swapped cards (and the host's) differ.
    assert not alike(seen[0]["host"], seen[1]["host"])
    assert not alike(seen[0]["Ben"], seen[1]["Ben"]) or not alike(seen[0]["Cy"], seen[1]["Cy"])
    assert len(seen[0]["spectator"]) >= 3, "too few messages compared"


def test_pending_moves_never_stream(client):
    twins = [client.post("/games", json={"game": "vampiring", "players": PLAYERS, "seed": 5}
                         ).get_json() for _ in range(2)]
    streams = [open_streams(client, game) for game in twins]
    # Ben submits a different secret move in each game; Cy the same.
    for game, move in zip(twins, ({"metamorphosis": "a", "direction": "cw"},
                                  {"metamorphosis": "b", "direction": "ccw"}), strict=True):
        for player, body in (("Ben", move), ("Cy", {"metamorphosis": "a", "direction": "ccw"})):
            answer = client.post(f"/games/{game['game_id']}/commands", headers=host(game),
                                 json={"type": "move", "player": player, **body})
            assert answer.status_code == 200
    seen = [caught_up(client, game, s) for game, s in zip(twins, streams, strict=True)]
    for game, s in zip(twins, streams, strict=True):
        check_same_as_log_and_view(client, game, s)
    for name in (VIEWER, "Cy", "spectator"):
        assert alike(seen[0][name], seen[1][name]), f"{name} sees Ben's pending move"
    assert not alike(seen[0]["Ben"], seen[1]["Ben"]) and not alike(seen[0]["host"], seen[1]["host"])
