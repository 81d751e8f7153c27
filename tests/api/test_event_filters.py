"""GET /games/{id}/events?player=&type=: the log's filters, their paging, and no side channel.

The player filter keeps the events a player made or is named in, judged on each event as the
caller may see it: the versions a filter answers must be exactly those the caller could pick out
of their own redacted log, so they tell nothing the redacted log hides (VR-4's secret moves,
hands, piles).
"""

from __future__ import annotations

import random

import pytest

from domain import available_games, game_class
from domain.core.eventfilter import concerns

PLAYERS = ["Ann", "Ben", "Cy"]


def host(game: dict) -> dict:
    return {"Authorization": f"Bearer {game['host_token']}"}


def seat(game: dict, name: str) -> dict:
    return {"Authorization": f"Bearer {game['player_tokens'][name]}"}


def played(client, key: str, moves: int, seed: int = 7, players=PLAYERS) -> dict:
    """A game with `moves` random legal commands made (or fewer, if it ends first)."""
    game = client.post("/games", json={"game": key, "players": players, "seed": seed}).get_json()
    gid, rng = game["game_id"], random.Random(seed)
    for _ in range(moves):
        view = client.get(f"/games/{gid}").get_json()
        if view["status"] != "in_progress":
            break
        actor = view["to_act"][0]
        legal = client.get(f"/games/{gid}/legal-moves?player={actor}",
                           headers=host(game)).get_json()["moves"]
        answer = client.post(f"/games/{gid}/commands", headers=host(game),
                             json={**rng.choice(legal), "player": actor})
        assert answer.status_code == 200
    return game


def log(client, game: dict, headers: dict, query: str = "", limit: int = 1000) -> list[dict]:
    """Every page of the (filtered) log, following next_after."""
    out, after = [], 0
    while True:
        answer = client.get(f"/games/{game['game_id']}/events?after={after}&limit={limit}{query}",
                            headers=headers)
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        out += body["events"]
        if body["next_after"] is None:
            return out
        assert body["events"], "a page with a next page is never empty"
        after = body["next_after"]


@pytest.mark.parametrize("key", available_games())
def test_filters_keep_versions_and_match_the_viewers_own_log(client, key):
    game = played(client, key, 40)
    for who, headers in (("host", host(game)), ("spectator", {}), ("Ann", seat(game, "Ann"))):
        whole = log(client, game, headers)
        assert [e["version"] for e in whole] == list(range(1, len(whole) + 1))
        for player in PLAYERS:
            mine = log(client, game, headers, f"&player={player}")
            # The same records, versions as stored, exactly those the viewer's own log names
            assert mine == [e for e in whole if concerns(e, player)], (who, player)
        types = sorted({e["type"] for e in whole})[:2]
        typed = log(client, game, headers, "&type=" + ",".join(types))
        assert typed == [e for e in whole if e["type"] in types]
        assert typed and len(typed) < len(whole)
        both = log(client, game, headers, f"&player=Ben&type={types[0]},{types[-1]}")
        assert both == [e for e in whole if e["type"] in types and concerns(e, "Ben")]


def test_paging_through_matches(client):
    game = played(client, "voodoo-prince", 60)
    every = log(client, game, host(game), "&type=CardPlayed")
    assert len(every) > 7
    for limit in (1, 2, 3, 7):
        assert log(client, game, host(game), "&type=CardPlayed", limit=limit) == every
    # A page holds at most `limit` matches; next_after is the last one's version
    gid = game["game_id"]
    first = client.get(f"/games/{gid}/events?type=CardPlayed&limit=3", headers=host(game)).get_json()
    assert [e["version"] for e in first["events"]] == [e["version"] for e in every[:3]]
    assert first["next_after"] == every[2]["version"]
    # After the last match there is no next page, even though later events exist
    last = every[-1]["version"]
    tail = client.get(f"/games/{gid}/events?type=CardPlayed&after={every[-2]['version']}&limit=1",
                      headers=host(game)).get_json()
    assert [e["version"] for e in tail["events"]] == [last] and tail["next_after"] is None
    # A filter matching nothing answers an empty page, not an error
    none = client.get(f"/games/{gid}/events?type=GameEnded", headers=host(game)).get_json()
    assert none == {"events": [], "next_after": None}


def test_bad_filters_are_refused(client):
    game = played(client, "vampire-queen", 3)
    gid = game["game_id"]
    answer = client.get(f"/games/{gid}/events?type=Played,CardPlayed")
    assert answer.status_code == 400
    message = answer.get_json()["error"]["message"]
    assert "'CardPlayed'" in message
    for known in game_class("vampire-queen").event_types():
        assert known in message  # the refusal lists the game's event types
    assert client.get(f"/games/{gid}/events?player=Zed").status_code == 400
    assert client.get(f"/games/{gid}/events?type=,").status_code == 400
    assert client.get(f"/games/{gid}/events?player=").status_code == 400


def submit(client, game: dict, player: str, metamorphosis: str, direction: str) -> int:
    answer = client.post(f"/games/{game['game_id']}/commands", headers=host(game),
                         json={"type": "move", "player": player,
                               "metamorphosis": metamorphosis, "direction": direction})
    assert answer.status_code == 200
    return answer.get_json()["version"]


def test_player_filter_is_no_side_channel_for_secret_moves(client):
    # Players named like VR-4's move words: a secret move's hidden fields name them.
    players = ["a", "cw", "Cy"]
    twins = [client.post("/games", json={"game": "vampiring", "players": players, "seed": 5}
                         ).get_json() for _ in range(2)]
    moves = [submit(client, twin, "Cy", m, d)
             for twin, (m, d) in zip(twins, (("a", "cw"), ("b", "ccw")), strict=True)]
    assert moves[0] == moves[1]
    secret = moves[0]
    for name in ("a", "cw", "ccw", "b"):
        if name not in players:
            continue
        for headers_of in (lambda g: {}, lambda g: seat(g, "a"), lambda g: seat(g, "cw")):
            seen = [[e["version"] for e in log(client, g, headers_of(g), f"&player={name}")]
                    for g in twins]
            # Both games look the same through the filter: it does not tell Cy's move
            assert seen[0] == seen[1]
            assert secret not in seen[0]
    # The host sees the move, so the filter finds it named in game one only
    assert secret in [e["version"] for e in log(client, twins[0], host(twins[0]), "&player=a")]
    assert secret in [e["version"] for e in log(client, twins[0], host(twins[0]), "&player=cw")]
    assert secret not in [e["version"] for e in log(client, twins[1], host(twins[1]), "&player=a")]
    # Cy sees their own move and finds it under both names
    assert secret in [e["version"] for e in log(client, twins[0], seat(twins[0], "Cy"), "&player=a")]



def test_a_filtered_long_poll_waits_for_a_match_only(client):
    game = played(client, "voodoo-prince", 2)
    gid = game["game_id"]
    # Nothing matches yet: the poll answers empty when its time is up, and does not fail
    answer = client.get(f"/games/{gid}/events?type=GameEnded&wait=0.3")
    assert answer.status_code == 200
    assert answer.get_json() == {"events": [], "next_after": None}
    # A match already stored answers at once, with its version as stored
    first = client.get(f"/games/{gid}/events?type=CardPlayed&wait=5").get_json()
    assert [e["type"] for e in first["events"]] == ["CardPlayed", "CardPlayed"]
    # A bad filter is refused before any waiting
    assert client.get(f"/games/{gid}/events?type=Nope&wait=5").status_code == 400
