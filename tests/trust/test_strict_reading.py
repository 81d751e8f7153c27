"""Strict reading (issue 22): a key twice in one JSON object makes a document invalid and any API
body a 400, since readers disagree on which of the two counts."""

from __future__ import annotations

import json
import random

import pytest

from cli import main as gruft
from domain import game_class
from domain.core.chain import DuplicateKey, strict_loads
from service.audit.signing import SigningKey
from tests.kit import played_document


@pytest.fixture
def signed(tmp_path):
    """A finished game's signed document, and the file of the key that signed it."""
    key = SigningKey.load_or_create(tmp_path)
    game = game_class("voodoo-prince").start(["Ann", "Ben", "Cy"], seed=11, options={"rounds": 1},
                                             salt="5a" * 32)
    pem = tmp_path / "key.pem"
    pem.write_text(key.public_pem, "ascii")
    return played_document(game, random.Random(11), key), pem


def with_forged_final(doc: dict) -> str:
    """The document's text with a second `final` placed first, naming another winner: a reader
    that keeps the first key sees it, Python's json keeps the last (the signed one)."""
    loser = next(p for p in doc["players"] if p not in doc["final"]["winners"])
    forged = json.dumps({"scores": doc["final"]["scores"], "winners": [loser]})
    text = json.dumps(doc)
    assert text.startswith("{")
    return '{"final": ' + forged + ", " + text[1:]


def test_a_second_final_placed_first_makes_the_document_invalid(signed, tmp_path, capsys):
    doc, pem = signed
    path = tmp_path / "forged.json"
    path.write_text(with_forged_final(doc), "utf-8")
    # Check the forgery is what the issue says: the lenient reader sees the signed document.
    assert json.loads(path.read_text()) == doc
    # Fail to verify it: a duplicate key anywhere makes it invalid (exit 1), in words and JSON.
    assert gruft(["verify", str(path), "--key", str(pem)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: 1 problem") and "[duplicate_key]" in out and "'final'" in out
    assert gruft(["verify", str(path), "--key", str(pem), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["valid"] is False and verdict["problems"][0]["code"] == "duplicate_key"
    # Fail to write a dispute report on it either.
    assert gruft(["report", str(path), "--step", "1", "--key", str(pem)]) == 1
    # Check the document as signed still verifies.
    path.write_text(json.dumps(doc), "utf-8")
    assert gruft(["verify", str(path), "--key", str(pem)]) == 0


def test_a_duplicate_key_deep_inside_is_found_too():
    assert strict_loads('{"a": [{"b": 1, "c": {"d": 1}}]}') == {"a": [{"b": 1, "c": {"d": 1}}]}
    with pytest.raises(DuplicateKey, match="'d'"):
        strict_loads('{"a": [{"b": 1, "c": {"d": 1, "d": 2}}]}')
    # Keys equal only after unescaping are the same key.
    with pytest.raises(DuplicateKey, match="the key 'final' appears twice"):
        strict_loads('{"final": 1, "fin\\u0061l": 2}')


def test_the_api_answers_400_for_any_body_with_a_duplicate_key(client, signed):
    doc, _ = signed
    headers = {"Content-Type": "application/json"}
    # Fail to verify or import the forged document: 400 bad_request, nothing stored.
    for path in ("/replays/verify", "/games/import"):
        answer = client.post(path, data=with_forged_final(doc), headers=headers)
        assert answer.status_code == 400, (path, answer.get_json())
        assert answer.get_json()["error"]["code"] == "bad_request"
        assert "twice" in answer.get_json()["error"]["message"]
    assert client.get("/games").get_json()["games"] == []
    # Fail to create a game with a key twice.
    body = '{"game": "vampir", "players": ["Ann", "Ben", "Cy"], "players": ["Ann", "Cy", "Dee"]}'
    answer = client.post("/games", data=body, headers=headers)
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "bad_request"
    assert client.get("/games").get_json()["games"] == []
    # Fail to send a command with a key twice; the game is unchanged.
    created = client.post("/games", json={"game": "vampir", "players": ["Ann", "Ben", "Cy"]}).get_json()
    game_id, host = created["game_id"], {"Authorization": f"Bearer {created['host_token']}"}
    before = client.get(f"/games/{game_id}").get_json()
    move = client.get(f"/games/{game_id}/legal-moves?player={before['to_act'][0]}",
                      headers=host).get_json()["moves"][0]
    text = json.dumps(move)[:-1] + ', "type": ' + json.dumps(move["type"]) + "}"
    answer = client.post(f"/games/{game_id}/commands", data=text,
                         headers={**headers, **host})
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "bad_request"
    assert client.get(f"/games/{game_id}").get_json() == before
    # Check the same command, each key once, is taken.
    answer = client.post(f"/games/{game_id}/commands", json={**move, "player": before["to_act"][0]},
                         headers=host)
    assert answer.status_code == 200
