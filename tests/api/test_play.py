"""The play page's server side, without a browser: the page, the invitations, the previews."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest

from api import create_app
from domain import available_games, game_class


@pytest.fixture
def client(sqlite_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    yield app.test_client()
    app.extensions["gruft"].close()


def create(client, key: str = "vampiring", players=("Ann", "Bob")) -> dict:
    answer = client.post("/games", json={"game": key, "players": list(players), "seed": 3,
                                         "options": dict(game_class(key).SHORT_OPTIONS)})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def page_data(html: bytes) -> dict:
    found = re.search(rb'<script type="application/json" id="play-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- the page -------------------------------------------------------------------------------

def test_the_page_knows_the_seat_of_its_token_and_carries_no_secret(client):
    game = create(client)
    url = f"/games/{game['game_id']}/play"
    ann = game["player_tokens"]["Ann"]
    # Check a spectator, a player, the host and a bad link each get the page, with their seat
    seats = {
        None: None,
        ann: {"role": "player", "you": "Ann"},
        game["host_token"]: {"role": "host", "you": None},  # a host playing no seat
        "forged": {"role": "invalid"},
    }
    for token, seat in seats.items():
        answer = client.get(url if token is None else f"{url}?token={token}")
        assert answer.status_code == 200 and answer.mimetype == "text/html"
        data = page_data(answer.data)
        assert data["seat"] == seat and data["status"] == "in_progress"
        # Check the page never carries a token back, nor the seed
        assert game["host_token"].encode() not in answer.data and ann.encode() not in answer.data
        assert "seed" not in data
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
    assert client.get("/games/00000000-0000-0000-0000-000000000000/play").status_code == 404


def test_the_game_list_offers_every_game_with_its_options_and_the_bots(client):
    html = client.get("/").data
    found = re.search(rb'<script type="application/json" id="new-game-data">(.*?)</script>', html, re.S)
    offered = json.loads(found.group(1))
    assert set(offered["games"]) == set(available_games())
    for key, g in offered["games"].items():
        cls = game_class(key)
        assert (g["min_players"], g["max_players"]) == (cls.MIN_PLAYERS, cls.MAX_PLAYERS)
        assert set(g["options"]) == set(cls.OPTIONS) and g["short_options"] == cls.SHORT_OPTIONS
    assert offered["bots"] == ["heuristic", "random"]
    assert offered["create_url"] == "/games"


# -- the invitations --------------------------------------------------------------------------

def test_the_host_gets_each_invitation_link_with_its_qr_code_in_seat_order(client):
    game = create(client, "vampir", ("Ann", "Bob", "Cid"))
    tokens = game["player_tokens"]
    answer = client.post(f"/games/{game['game_id']}/invitations", headers=bearer(game["host_token"]),
                         json={"tokens": [tokens["Cid"], tokens["Ann"]]})
    assert answer.status_code == 200
    invitations = answer.get_json()["invitations"]
    assert [i["player"] for i in invitations] == ["Ann", "Cid"]
    for invitation in invitations:
        assert invitation["url"] == (f"http://localhost/games/{game['game_id']}/play"
                                     f"?token={tokens[invitation['player']]}")
        assert invitation["qr"].startswith("data:image/svg+xml")
        assert "<svg" in unquote(invitation["qr"])
        # Check the link opens that seat
        seat = page_data(client.get(invitation["url"].replace("http://localhost", "")).data)["seat"]
        assert seat == {"role": "player", "you": invitation["player"]}


def test_only_the_host_lists_invitations_and_only_from_this_games_player_tokens(client):
    game = create(client)
    other = create(client)
    url = f"/games/{game['game_id']}/invitations"
    ann = game["player_tokens"]["Ann"]
    host = bearer(game["host_token"])
    cases = [
        ({}, {"tokens": [ann]}, 403),  # a spectator
        (bearer(ann), {"tokens": [ann]}, 403),  # a player
        (host, {"tokens": [game["host_token"]]}, 401),  # the host's own token is no invitation
        (host, {"tokens": [other["player_tokens"]["Ann"]]}, 401),  # another game's player
        (host, {"tokens": ["forged"]}, 401),
        (host, {"tokens": [ann], "extra": 1}, 400),
    ]
    for headers, body, status in cases:
        answer = client.post(url, headers=headers, json=body)
        assert answer.status_code == status, (body, answer.get_json())
        assert set(answer.get_json()) == {"error"}
    # Check no token at all answers the host's own link alone.
    answer = client.post(url, headers=host, json={"tokens": []}).get_json()
    assert answer["invitations"] == []
    assert answer["host"]["url"].endswith(f"/play?token={game['host_token']}")


# -- VampiRing's previews ---------------------------------------------------------------------

def test_vr5_vampiring_legal_moves_carry_where_each_move_would_land(client):
    game = create(client)
    answer = client.get(f"/games/{game['game_id']}/legal-moves",
                        headers=bearer(game["player_tokens"]["Ann"])).get_json()
    assert len(answer["previews"]) == len(answer["moves"]) == 4
    ring = client.get(f"/games/{game['game_id']}").get_json()["state"]
    home = ring["homes"]["Ann"]
    for move, preview in zip(answer["moves"], answer["previews"], strict=True):
        assert set(move) == {"type", "metamorphosis", "direction"}  # the command stays as it is
        assert set(preview["vampires"]) == {"1", "2", "3"}
        for vampire in preview["vampires"].values():
            assert vampire["path"][0] == home and vampire["path"][-1] == vampire["position"]
    # Check a move sent as the page sends it (the command alone) is taken
    sent = client.post(f"/games/{game['game_id']}/commands",
                       headers=bearer(game["player_tokens"]["Ann"]), json=answer["moves"][0])
    assert sent.status_code == 200
    # Check a seat that is not to act gets no moves and no previews
    again = client.get(f"/games/{game['game_id']}/legal-moves",
                       headers=bearer(game["player_tokens"]["Ann"])).get_json()
    assert again == {"player": "Ann", "moves": []}


@pytest.mark.parametrize("key", [k for k in available_games() if k != "vampiring"])
def test_other_games_legal_moves_have_no_previews(client, key):
    cls = game_class(key)
    game = create(client, key, ["Ann", "Bob", "Cid", "Dee"][: cls.MIN_PLAYERS])
    first = client.get(f"/games/{game['game_id']}").get_json()["to_act"][0]
    answer = client.get(f"/games/{game['game_id']}/legal-moves",
                        headers=bearer(game["player_tokens"][first])).get_json()
    assert answer["moves"] and "previews" not in answer
