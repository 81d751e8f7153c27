"""No endpoint shows a viewer what they may not see before the game ends.

For every game: two games that differ only in what a viewer may not see (another player's hidden
cards, the order of the draw pile, another player's pending move) must look identical to that
viewer — and to a spectator — through every endpoint, while the host sees the difference.
"""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest

from domain import available_games, game_class
from tests.api.sse import ClientStream
from tests.kit import SHORT_OPTIONS, play_over_rest

PLAYERS = ["Ann", "Ben", "Cy"]
VIEWER = "Ann"


def dealt(key: str, seed: int, options: dict) -> tuple[type, dict]:
    """The data of the first deal event of a seeded game."""
    cls = game_class(key)
    game = cls.start(PLAYERS, seed=seed, options=options)
    events = game.collect_events()
    return cls, next(e.__dict__ for e in events[1:])


def swap_between(hands: dict, a: str, b: str) -> None:
    """Swap one card of a's hand with a different card of b's."""
    for i, card in enumerate(hands[a]):
        for j, other in enumerate(hands[b]):
            if card != other:
                hands[a][i], hands[b][j] = other, card
                return
    raise AssertionError("no two different cards to swap")


def twin_deals(key: str) -> tuple[dict, dict, dict]:
    """(options, deal A, deal B): the deals differ only in cards hidden from VIEWER."""
    if key == "vampire-queen":
        options = {"phases": 1}
        _, data = dealt(key, 3, options)
        hands = {p: [c for c in h if not c.startswith("S")] for p, h in data["hands"].items()}
        other = json.loads(json.dumps(hands))
        swap_between(other, "Ben", "Cy")
        return options, {"phases": [{"hands": hands}]}, {"phases": [{"hands": other}]}
    if key == "voodoo-prince":
        options = {"rounds": 1}
        _, data = dealt(key, 3, options)
        other = json.loads(json.dumps(data["hands"]))
        swap_between(other, "Ben", "Cy")
        return (options, {"rounds": [{"trump": data["trump"], "hands": data["hands"]}]},
                {"rounds": [{"trump": data["trump"], "hands": other}]})
    if key == "vampir":
        options = {"rounds": 1}
        _, data = dealt(key, 3, options)
        hands, pile = data["hands"], list(data["draw_pile"])
        other = json.loads(json.dumps(hands))
        swap_between(other, "Ben", "Cy")
        deep = len(pile) - 1  # far down the pile: nobody draws it in this test
        k = next(i for i in range(deep - 1, 0, -1) if pile[i] != pile[deep])
        pile_b = list(pile)
        pile_b[k], pile_b[deep] = pile_b[deep], pile_b[k]
        return (options, {"rounds": [{"hands": hands, "draw_pile": pile}]},
                {"rounds": [{"hands": other, "draw_pile": pile_b}]})
    raise KeyError(key)


def scrub(value, game_id: str, commitment: str = "<commitment>"):
    """An answer without what naturally differs between two games (ids, times, hashes, and the
    seed commitment, which each game's own salt makes different)."""
    text = json.dumps(value, sort_keys=True).replace(game_id, "<game>")
    text = text.replace(commitment, "<commitment>")
    text = text.replace(commitment[:12], "<commitment>")  # as the words name it (narration)
    text = re.sub(r'"(timestamp|created_at)": "[^"]*"', r'"\1": "<time>"', text)
    return json.loads(text)


def seen_by(client, game: dict, headers: dict, player: str | None) -> dict:
    """Everything one viewer can read about a game, through every endpoint."""
    gid = game["game_id"]
    commitment = client.get(f"/games/{gid}").get_json()["seed_commitment"]
    paths = [f"/games/{gid}", f"/games/{gid}/events?limit=1000", f"/games/{gid}/export",
             f"/games/{gid}/replay/0", f"/games/{gid}/replay/1", f"/games/{gid}/viewer",
             f"/games/{gid}/narration"]
    if player:
        paths += [f"/games/{gid}/view", f"/games/{gid}/legal-moves"]
    out = {}
    for path in paths:
        answer = client.get(path, headers=headers)
        body = answer.get_json(silent=True)
        out[path.replace(gid, "<game>")] = (
            answer.status_code, scrub(body, gid, commitment) if body is not None else None)
    listed = client.get("/games?limit=200").get_json()["games"]
    out["list"] = [scrub(g, gid, commitment) for g in listed if g["game_id"] == gid]
    return out


def viewers(game: dict) -> dict[str, tuple[dict, str | None]]:
    return {"spectator": ({}, None),
            VIEWER: ({"Authorization": f"Bearer {game['player_tokens'][VIEWER]}"}, VIEWER)}


def host(game: dict) -> dict:
    return {"Authorization": f"Bearer {game['host_token']}"}


def twin_games(client, key: str) -> list[dict]:
    """Two games of `key` created over the API from `twin_deals`: what creation answers."""
    options, deal_a, deal_b = twin_deals(key)
    return [client.post("/games", json={"game": key, "players": PLAYERS, "seed": 99,
                                        "options": options, "deal": deal}).get_json()
            for deal in (deal_a, deal_b)]


def common_moves(client, a: dict, b: dict, rng: random.Random, steps: int) -> None:
    """Play the same moves in both games while they are legal in both.

    VIEWER acts too: their hand is the same in both games, and the twins must stay alike to
    them after every kind of play, theirs included.
    """
    for _ in range(steps):
        view = client.get(f"/games/{a['game_id']}").get_json()
        if view["status"] == "finished":
            return
        actor = view["to_act"][0]
        legal = [client.get(f"/games/{g['game_id']}/legal-moves?player={actor}",
                            headers=host(g)).get_json()["moves"] for g in (a, b)]
        shared = [m for m in legal[0] if m in legal[1]]
        if not shared:
            return
        move = rng.choice(shared)
        for g in (a, b):
            answer = client.post(f"/games/{g['game_id']}/commands", headers=host(g),
                                 json={**move, "player": actor})
            assert answer.status_code == 200


@pytest.mark.parametrize("key", [k for k in available_games() if k != "vampiring"])
def test_hidden_cards_never_show(client, key):
    a, b = twin_games(client, key)
    dealt = client.get(f"/games/{a['game_id']}").get_json()["version"]
    rng = random.Random(1)
    for round_ in range(4):
        for name, (headers_a, player) in viewers(a).items():
            headers_b = viewers(b)[name][0]
            assert seen_by(client, a, headers_a, player) == seen_by(client, b, headers_b, player), (
                f"{name} can tell the games apart at step {round_}")
        common_moves(client, a, b, rng, 2)
    # Check the twins were compared after play too, not only as dealt
    played = client.get(f"/games/{a['game_id']}").get_json()["version"] - dealt
    assert played >= 4, f"only {played} events of play compared"
    # Check the test can tell: the host does see the difference.
    assert seen_by(client, a, host(a), "Ben") != seen_by(client, b, host(b), "Ben") or \
        seen_by(client, a, host(a), "Cy") != seen_by(client, b, host(b), "Cy")


def test_pending_moves_never_show(client):
    games = [client.post("/games", json={"game": "vampiring", "players": PLAYERS, "seed": 5}
                         ).get_json() for _ in range(2)]
    # Ben submits a different secret move in each game; Cy the same.
    for game, move in zip(games, ({"metamorphosis": "a", "direction": "cw"},
                                  {"metamorphosis": "b", "direction": "ccw"}), strict=True):
        for player, body in (("Ben", move), ("Cy", {"metamorphosis": "a", "direction": "ccw"})):
            answer = client.post(f"/games/{game['game_id']}/commands", headers=host(game),
                                 json={"type": "move", "player": player, **body})
            assert answer.status_code == 200
    a, b = games
    for name, (headers_a, player) in viewers(a).items():
        headers_b = viewers(b)[name][0]
        assert seen_by(client, a, headers_a, player) == seen_by(client, b, headers_b, player), name
    # Check Ben himself sees his own move, which differs between the games.
    ben = {g["game_id"]: {"Authorization": f"Bearer {g['player_tokens']['Ben']}"} for g in games}
    assert seen_by(client, a, ben[a["game_id"]], "Ben") != seen_by(client, b, ben[b["game_id"]], "Ben")


# -- the seed's salt (format 2 of the replay document, docs/api.md) ---------------------------

def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def keys_in(value) -> set[str]:
    """Every object key anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_in(v)}
    return set()


def every_answer(client, gid: str, headers: dict, token: str | None) -> dict[str, tuple]:
    """(status, raw text, JSON or None) of every endpoint one viewer can read about a game."""
    query = f"?token={token}" if token else ""
    paths = [f"/games/{gid}", f"/games/{gid}/view", f"/games/{gid}/legal-moves",
             f"/games/{gid}/events?limit=1000", f"/games/{gid}/replay/0",
             f"/games/{gid}/replay/1", f"/games/{gid}/export", f"/games/{gid}/viewer{query}",
             f"/games/{gid}/play{query}",
             f"/games/{gid}/events?player=Ann&type=Created", "/games?limit=200", "/"]
    out = {}
    for path in paths:
        answer = client.get(path, headers=headers)
        out[path] = (answer.status_code, answer.get_data(as_text=True),
                     answer.get_json(silent=True))
    stream = ClientStream(client, f"/games/{gid}/stream{query}")
    first = stream.next()
    stream.close()
    out["stream"] = (stream.status, json.dumps(first.data), first.data)
    return out


@pytest.mark.parametrize("key", available_games())
def test_the_salt_is_as_secret_as_the_seed_until_the_end(client, key):
    game = client.post("/games", json={"game": key, "players": PLAYERS, "seed": 42,
                                       "options": SHORT_OPTIONS[key]}).get_json()
    gid = game["game_id"]
    exported = client.get(f"/games/{gid}/export", headers=host(game)).get_json()
    salt = exported["salt"]
    assert re.fullmatch(r"[0-9a-f]{64}", salt)
    # The nonces of the events that hold secrets (format 3, issue 32): kept like the salt.
    nonces = [e["nonce"] for e in exported["events"] if "nonce" in e]
    assert nonces
    # Check the commitment is salted: seed 42 is not found by trying small whole numbers.
    commitment = game["view"]["seed_commitment"]
    assert commitment == sha256(f"{salt}:42") != sha256("42")
    assert all(sha256(str(n)) != commitment for n in range(100_000))
    # Fail to see the salt or the seed as a spectator or from any seat, through any endpoint.
    seen_by_whom = [("spectator", {}, None)] + [
        (name, {"Authorization": f"Bearer {token}"}, token)
        for name, token in game["player_tokens"].items()]
    for who, headers, token in seen_by_whom:
        for path, (status, text, body) in every_answer(client, gid, headers, token).items():
            assert salt not in text, f"{who} sees the salt through {path} ({status})"
            assert not {"salt", "seed", "nonce"} & keys_in(body), f"{who}: {path} ({status})"
            assert not any(n in text for n in nonces), f"{who} sees a nonce through {path}"
    # Check once the game is over everybody sees both, and the export verifies with them.
    play_over_rest(client, game, random.Random(2))
    view = client.get(f"/games/{gid}").get_json()
    assert (view["seed"], view["salt"]) == (42, salt)
    document = client.get(f"/games/{gid}/export").get_json()
    assert (document["format_version"], document["salt"], document["seed"]) == (3, salt, 42)
    assert [e["nonce"] for e in document["events"] if "nonce" in e][:len(nonces)] == nonces
    assert client.post("/replays/verify", json=document).get_json()["valid"] is True
    # Fail to pass off another salt: the seed no longer matches the commitment.
    document["salt"] = "0" * 64
    verdict = client.post("/replays/verify", json=document).get_json()
    assert verdict["valid"] is False
    assert "seed_mismatch" in {p["code"] for p in verdict["problems"]}


# -- the organiser playing a seat (host_seat, docs/api.md) -------------------------------------

def organiser_twins(client, key: str) -> list[dict]:
    """Twin games whose host token plays VIEWER's seat (host_seat)."""
    if key == "vampiring":
        return [client.post("/games", json={"game": key, "players": PLAYERS, "seed": 5,
                                            "host_seat": VIEWER}).get_json() for _ in range(2)]
    options, deal_a, deal_b = twin_deals(key)
    return [client.post("/games", json={"game": key, "players": PLAYERS, "seed": 99,
                                        "options": options, "deal": deal,
                                        "host_seat": VIEWER}).get_json()
            for deal in (deal_a, deal_b)]


def seen_by_stream(client, game: dict, token: str) -> dict:
    """The first message of a stream from the start, as that token's viewer reads it."""
    gid = game["game_id"]
    commitment = client.get(f"/games/{gid}").get_json()["seed_commitment"]
    stream = ClientStream(client, f"/games/{gid}/stream?after=0&token={token}")
    first = stream.next()
    stream.close()
    data = {k: v for k, v in first.data.items() if k != "receipt"}  # its own signed hash
    return scrub(data, gid, commitment)


@pytest.mark.parametrize("key", available_games())
def test_the_organiser_playing_a_seat_sees_no_other_seats_secrets(client, key):
    a, b = organiser_twins(client, key)
    rng = random.Random(2)
    if key == "vampiring":  # Ben's secret move differs between the twins; Cy's is the same
        for game, move in zip((a, b), ({"metamorphosis": "a", "direction": "cw"},
                                       {"metamorphosis": "b", "direction": "ccw"}), strict=True):
            for player, body in (("Ben", move), ("Cy", {"metamorphosis": "a",
                                                        "direction": "ccw"})):
                answer = client.post(f"/games/{game['game_id']}/commands", json={
                    "type": "move", **body}, headers={
                    "Authorization": f"Bearer {game['player_tokens'][player]}"})
                assert answer.status_code == 200
    for step in range(3):
        # Check the host token sees exactly what Ann sees, and the twins alike, everywhere.
        for name, game in (("a", a), ("b", b)):
            organiser = seen_by(client, game, host(game), VIEWER)
            ann = seen_by(client, game, {"Authorization":
                                         f"Bearer {game['player_tokens'][VIEWER]}"}, VIEWER)
            assert organiser == ann, f"the organiser sees more than {VIEWER} in {name}"
        assert seen_by(client, a, host(a), VIEWER) == seen_by(client, b, host(b), VIEWER), (
            f"the organiser can tell the games apart at step {step}")
        assert seen_by_stream(client, a, a["host_token"]) == seen_by_stream(
            client, b, b["host_token"]), f"the organiser's stream tells them apart at {step}"
        if key == "vampiring":
            return
        common_seat_moves(client, a, b, rng, 2)


def common_seat_moves(client, a: dict, b: dict, rng: random.Random, steps: int) -> None:
    """The same moves in both games, each sent with the seat's own token."""
    for _ in range(steps):
        view = client.get(f"/games/{a['game_id']}").get_json()
        if view["status"] == "finished":
            return
        actor = view["to_act"][0]
        tokens = [{"Authorization": f"Bearer {g['player_tokens'][actor]}"} for g in (a, b)]
        legal = [client.get(f"/games/{g['game_id']}/legal-moves", headers=t).get_json()["moves"]
                 for g, t in zip((a, b), tokens, strict=True)]
        shared = [m for m in legal[0] if m in legal[1]]
        if not shared:
            return
        move = rng.choice(shared)
        for g, t in zip((a, b), tokens, strict=True):
            answer = client.post(f"/games/{g['game_id']}/commands", headers=t, json=move)
            assert answer.status_code == 200
