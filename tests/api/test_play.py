"""The play page's server side, without a browser: the page, the invitations, the previews."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest

from api import create_app
from domain import available_games, game_class


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


def test_an_unknown_game_s_play_page_is_a_page_for_a_browser(client):
    # Check a browser asking for an unknown game's play page reads an HTML 404 page, as the
    # viewer answers (docs/viewer.md), and a client asking for JSON the contract's error
    # (issue 31, item 5).
    url = "/games/00000000-0000-0000-0000-000000000000/play"
    page = client.get(url, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert (page.status_code, page.mimetype) == (404, "text/html")
    assert "<html" in page.text and "No such game" in page.text
    assert page.headers["Referrer-Policy"] == "no-referrer"
    answer = client.get(url, headers={"Accept": "application/json"})
    assert (answer.status_code, answer.mimetype) == (404, "application/json")
    assert answer.get_json()["error"]["code"] == "not_found"


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

def code_of(url: str) -> str:
    """The code an invitation link carries."""
    return unquote(re.fullmatch(r".*/play\?invite=([^&]+)", url).group(1))


def accept(client, game_id: str, code: str):
    return client.post(f"/games/{game_id}/invitations/accept", json={"code": code})


def test_the_host_gets_each_invitation_link_with_its_qr_code_in_seat_order(client):
    game = create(client, "vampir", ("Ann", "Bob", "Cid"))
    gid, tokens = game["game_id"], game["player_tokens"]
    answer = client.post(f"/games/{gid}/invitations", headers=bearer(game["host_token"]),
                         json={"tokens": [tokens["Cid"]], "players": ["Ann"]})
    assert answer.status_code == 200
    invitations = answer.get_json()["invitations"]
    assert [i["player"] for i in invitations] == ["Ann", "Cid"]
    for invitation in invitations:
        # Check a link carries a code, no token (issue 23, item 6)
        assert invitation["url"].startswith(f"http://localhost/games/{gid}/play?invite=")
        assert all(token not in invitation["url"] for token in [*tokens.values(),
                                                                 game["host_token"]])
        assert invitation["qr"].startswith("data:image/svg+xml")
        assert "<svg" in unquote(invitation["qr"])
        # Check its page, opened, shows no seat: the code is exchanged by the page's script
        assert page_data(client.get(invitation["url"].replace("http://localhost", "")).data)[
            "seat"] is None
        # Check the code is exchanged once for a credential of that seat
        accepted = accept(client, gid, code_of(invitation["url"]))
        assert accepted.status_code == 200, accepted.get_json()
        body = accepted.get_json()
        assert (body["role"], body["player"]) == ("player", invitation["player"])
        assert body["token"] not in tokens.values()
        view = client.get(f"/games/{gid}/view", headers=bearer(body["token"]))
        assert view.status_code == 200 and view.get_json()["you"] == invitation["player"]
        # Fail to exchange it again (the one a browser's history keeps opens nothing)
        again = accept(client, gid, code_of(invitation["url"]))
        assert again.status_code == 401 and again.get_json()["error"]["code"] == "unauthorized"
    # Check the creation's tokens still work (clients that keep them go on as before)
    assert client.get(f"/games/{gid}/view", headers=bearer(tokens["Ann"])).status_code == 200


def test_links_no_phone_can_open_are_flagged_as_loopback_ones_are(sqlite_env, monkeypatch):
    # Issue 33, item 3: the page opened at the unspecified address (what `gruft serve --host
    # 0.0.0.0` used to print), or a GRUFT_PUBLIC_URL naming an address the server is not at.
    monkeypatch.delenv("GRUFT_LISTENING", raising=False)
    monkeypatch.delenv("GRUFT_PUBLIC_URL", raising=False)
    plain = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    public = create_app({"TESTING": True, "GRUFT_ENV": {
        **sqlite_env, "GRUFT_PUBLIC_URL": "http://192.168.1.20:8000"}})
    try:
        def flags(app, base_url: str = "http://localhost") -> tuple[bool, bool]:
            client = app.test_client()
            game = create(client)
            answer = client.post(f"/games/{game['game_id']}/invitations", base_url=base_url,
                                 headers=bearer(game["host_token"]), json={"players": ["Ann"]})
            assert answer.status_code == 200, answer.get_json()
            body = answer.get_json()
            return body["loopback"], body["unreachable"]

        # Check the page opened at an unspecified address warns, as a loopback one does
        assert flags(plain, "http://0.0.0.0:8000") == (False, True)
        assert flags(plain, "http://[::]:8000") == (False, True)
        assert flags(plain, "http://127.0.0.1:8000") == (True, True)
        assert flags(plain, "http://192.168.1.20:8000") == (False, False)
        # Check a public URL at the server's port warns unless the server listens there
        for listening, warned in [("127.0.0.1 8000", True), ("192.168.1.30 8000", True),
                                  ("0.0.0.0 8000", False), ("192.168.1.20 8000", False),
                                  ("127.0.0.1 9000", False)]:  # another port: a proxy's
            monkeypatch.setenv("GRUFT_LISTENING", listening)
            assert flags(public) == (False, warned), listening
        # Check the page carries the warning its script shows
        client = plain.test_client()
        page = client.get(f"/games/{create(client)['game_id']}/play").get_data(as_text=True)
        assert 'id="unreachable-note"' in page
    finally:
        plain.extensions["gruft"].close()
        public.extensions["gruft"].close()


def test_the_host_issues_a_seats_invitation_again_and_the_old_one_dies(client):
    game = create(client)
    gid, host = game["game_id"], bearer(game["host_token"])
    url = f"/games/{gid}/invitations"
    first = client.post(url, headers=host, json={"players": ["Ann"]}).get_json()
    old_host_code = code_of(first["host"]["url"])
    taken = accept(client, gid, code_of(first["invitations"][0]["url"])).get_json()["token"]
    assert client.get(f"/games/{gid}/view", headers=bearer(taken)).status_code == 200
    # Check a new invitation for Ann kills the credential got with the old one
    second = client.post(url, headers=host, json={"players": ["Ann"], "host": False}).get_json()
    assert "host" not in second
    assert client.get(f"/games/{gid}/view", headers=bearer(taken)).status_code == 401
    # Check a code issued and replaced before use is dead, and the new one works
    third = client.post(url, headers=host, json={"players": ["Ann"]}).get_json()
    assert accept(client, gid, code_of(second["invitations"][0]["url"])).status_code == 401
    assert accept(client, gid, code_of(third["invitations"][0]["url"])).status_code == 200
    # Check the host's own link: the replaced one is dead, the new one gives the host's rights
    assert accept(client, gid, old_host_code).status_code == 401
    hosting = accept(client, gid, code_of(third["host"]["url"])).get_json()
    assert (hosting["role"], hosting["player"]) == ("host", None)
    assert client.post(url, headers=bearer(hosting["token"]), json={}).status_code == 200
    # Check the host token of the creation still works
    assert client.post(url, headers=host, json={"host": False}).status_code == 200


def test_only_the_host_issues_invitations_and_only_for_this_games_seats(client):
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
        (host, {"players": ["Zed"]}, 400),  # no such seat
        (host, {"tokens": [ann], "extra": 1}, 400),
    ]
    for headers, body, status in cases:
        answer = client.post(url, headers=headers, json=body)
        assert answer.status_code == status, (body, answer.get_json())
        assert set(answer.get_json()) == {"error"}
    # Check a code of another game, or none issued, is refused, and nothing changes
    issued = client.post(url, headers=host, json={"players": ["Ann"]}).get_json()
    code = code_of(issued["invitations"][0]["url"])
    assert accept(client, other["game_id"], code).status_code == 401
    assert accept(client, game["game_id"], "forged").status_code == 401
    assert accept(client, game["game_id"], code).status_code == 200
    # Check no seat at all answers the host's own link alone, with a code
    answer = client.post(url, headers=host, json={"tokens": []}).get_json()
    assert answer["invitations"] == []
    assert "?invite=" in answer["host"]["url"] and game["host_token"] not in answer["host"]["url"]


def test_the_host_opens_the_viewer_of_a_game_in_play_by_a_form_not_an_address(client):
    game = create(client)
    url = f"/games/{game['game_id']}/viewer"
    # Check the token posted as a form's field opens it (the host page's button)...
    answer = client.post(url, data={"token": game["host_token"]})
    assert answer.status_code == 200 and b"viewer-data" in answer.data
    # ... and nothing else: no token, a player's, a forged one
    assert client.post(url, data={"step": "1"}).status_code == 403
    assert client.post(url, data={"token": game["player_tokens"]["Ann"]}).status_code == 403
    assert client.post(url, data={"token": "forged"}).status_code == 401
    assert client.post(url, data={"token": ""}).status_code == 401
    # Check a body that is no form is refused, even with the host's header
    assert client.post(url, json={"token": game["host_token"]},
                       headers=bearer(game["host_token"])).status_code == 400
    # Check ?token= still works for clients that use it
    assert client.get(f"{url}?token={game['host_token']}").status_code == 200


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


# -- the links' host (issue 32, item 10) -------------------------------------------------------

def links_of(client, game: dict, host: str):
    """The invitation answer and the play page for a request naming `host` as its Host."""
    over = {"HTTP_HOST": host}
    invited = client.post(f"/games/{game['game_id']}/invitations", json={"players": ["Ann"]},
                          headers=bearer(game["host_token"]), environ_overrides=over)
    page = client.get(f"/games/{game['game_id']}/play", environ_overrides=over)
    return invited, page


def test_links_never_follow_a_host_not_trusted(sqlite_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env,
                      "GRUFT_TRUSTED_HOSTS": "games.example, .club.example, localhost"})
    client = app.test_client()
    try:
        game = create(client)
        # Fail a request naming another host: 400 before any link is made of it.
        for host in ("evil.example", "games.example.evil.example", "evil.example:8000"):
            invited, page = links_of(client, game, host)
            assert invited.status_code == 400, invited.get_json()
            assert invited.get_json()["error"]["code"] == "bad_request"
            assert page.status_code == 400 and b"//evil" not in invited.data + page.data
        # Check the hosts listed (a port beside them, a subdomain of a dotted one) make links.
        for host in ("games.example:8000", "a.club.example"):
            invited, page = links_of(client, game, host)
            assert invited.status_code == 200, invited.get_json()
            link = invited.get_json()["invitations"][0]["url"]
            assert link.startswith(f"http://{host}/games/{game['game_id']}/play?invite="), link
            assert page_data(page.data)["page_url"] == f"http://{host}/games/{game['game_id']}/play"
    finally:
        app.extensions["gruft"].close()


def test_a_malformed_host_makes_no_link(client):
    game = create(client)
    for host in ("bad host", "", "x/y"):
        invited, page = links_of(client, game, host)
        # Fail it (400) rather than answer a link to http:///games/…
        assert invited.status_code == 400, invited.get_json()
        assert "Host" in invited.get_json()["error"]["message"]
        assert page.status_code == 400 and b"http:///" not in invited.data + page.data


def test_the_public_url_makes_every_link_whatever_the_host(sqlite_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env,
                      "GRUFT_PUBLIC_URL": "https://play.example"})
    client = app.test_client()
    try:
        game = create(client)
        for host in ("evil.example", "bad host"):
            invited, page = links_of(client, game, host)
            assert invited.status_code == 200, invited.get_json()
            page_url = f"https://play.example/games/{game['game_id']}/play"
            assert invited.get_json()["invitations"][0]["url"].startswith(page_url + "?invite=")
            assert page_data(page.data)["page_url"] == page_url
    finally:
        app.extensions["gruft"].close()
