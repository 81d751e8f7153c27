"""Player names over the API (issue 16, item 6): look-alike seats are refused at creation and
import; a name is seated trimmed and NFC-normalised; an old document with such names verifies."""

from __future__ import annotations

import random
import unicodedata

import pytest

from domain import game_class
from tests.api.test_contract import assert_error
from tests.kit import played_document

LOOK_ALIKES = [["Ann", "ann"], ["Zoë", unicodedata.normalize("NFD", "Zoë")], ["Ann", "An\u200bn"],
               ["Ann", "\u202eAnn"], ["Ann", "A\u0085nn"], ["Ann", "Ann\u2066"], ["Ann", " Ann "]]


@pytest.mark.parametrize("players", LOOK_ALIKES)
def test_look_alike_seats_are_refused(client, players):
    # Fail to seat names that look alike, or hide characters: 400, nothing stored.
    answer = client.post("/games", json={"game": "voodoo-prince", "players": players})
    assert_error(answer, 400, "bad_request")
    assert client.get("/games").get_json()["games"] == []


def test_names_are_seated_trimmed_and_normalised(client):
    nfd = unicodedata.normalize("NFD", "Zoë")
    answer = client.post("/games", json={"game": "voodoo-prince", "players": [" Ann", nfd]})
    assert answer.status_code == 201, answer.get_json()
    created = answer.get_json()
    assert created["view"]["players"] == ["Ann", "Zoë"]
    assert set(created["player_tokens"]) == {"Ann", "Zoë"}
    listed = client.get("/games?player=Zo%C3%AB").get_json()["games"]
    assert [g["game_id"] for g in listed] == [created["game_id"]]


def recorded_document(app, players: list[str]) -> dict:
    """A finished game seated under the old rule (format 1), exported by this server."""
    cls = game_class("voodoo-prince")
    game = cls.start(players, seed=3, options={"rounds": 1}, recorded=True)
    return played_document(game, random.Random(3), app.extensions["gruft"].signing_key)


def test_an_old_document_with_look_alike_seats_verifies_but_is_not_imported(app, client):
    document = recorded_document(app, ["Ann", "ann"])
    # Check it is what it says: the game as recorded, valid.
    verdict = client.post("/replays/verify", json=document).get_json()
    assert verdict["valid"] is True, verdict
    # Fail to import it: this server seats no look-alike names (400), nothing stored.
    error = assert_error(client.post("/games/import", json=document), 400, "bad_request")
    assert "name" in error["message"]
    assert client.get("/games").get_json()["games"] == []
    # Check an old document whose names follow the rule imports as before.
    fine = recorded_document(app, ["Ann", "Ben"])
    assert client.post("/games/import", json=fine).status_code == 201


def test_a_name_typed_in_another_unicode_form_finds_its_seat(client):
    # NFD and stray spaces, as some keyboards and forms send them: every lookup by name finds
    # the seat seated NFC ("Zoë"), as creation seats it.
    nfd = " " + unicodedata.normalize("NFD", "Zoë")
    created = client.post("/games", json={"game": "voodoo-prince", "players": ["Zoë", "Ann"],
                                          "seed": 4, "options": {"rounds": 1}}).get_json()
    gid, host = created["game_id"], {"Authorization": f"Bearer {created['host_token']}"}
    query = {"player": nfd}
    view = client.get(f"/games/{gid}/view", headers=host, query_string=query)
    assert view.status_code == 200 and view.get_json()["you"] == "Zoë"
    moves = client.get(f"/games/{gid}/legal-moves", headers=host, query_string=query)
    assert moves.status_code == 200 and moves.get_json()["player"] == "Zoë"
    events = client.get(f"/games/{gid}/events", query_string=query)
    assert events.status_code == 200
    listed = client.get("/games", query_string=query).get_json()["games"]
    assert [g["game_id"] for g in listed] == [gid]
    # A command the host makes for the seat, named the other way (Zoë, first seated, leads).
    assert created["view"]["to_act"] == ["Zoë"]
    move = moves.get_json()["moves"][0]
    answer = client.post(f"/games/{gid}/commands", headers=host, json={**move, "player": nfd})
    assert answer.status_code == 200, answer.get_json()
    stats = client.get("/players/" + nfd.strip() + "/stats").get_json()
    assert stats["player"] == "Zoë"
