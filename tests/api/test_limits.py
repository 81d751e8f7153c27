"""Body bounds (issue 16, item 3): the largest export the options allow verifies and imports;
bodies past the bound still get 413, and every other route keeps its small bound."""

from __future__ import annotations

import json
import random

import pytest

from api.inputs import MAX_BODY_BYTES, MAX_DOCUMENT_BYTES
from domain import game_class
from tests.api.test_contract import assert_error
from tests.kit import played_document

# The longest names the rule allows, in characters that take the most bytes as Flask writes
# JSON (astral-plane characters: a 12-byte surrogate-pair escape each).
LONGEST_NAMES = [chr(0x1D400 + 26 * i) * 40 for i in range(12)]


def largest_document(app) -> dict:
    """A 12-player, 20-phase Vampire Queen game played out with random legal moves, exported
    as the server exports it: the options' largest game (issue 16 found 1.33 MB ones)."""
    cls = game_class("vampire-queen")
    assert cls.MAX_PLAYERS == 12 and cls.OPTIONS["phases"].high == 20
    game = cls.start(LONGEST_NAMES, seed="s" * 200, options={"phases": 20})
    return played_document(game, random.Random(7), app.extensions["gruft"].signing_key)


@pytest.fixture(scope="module")
def largest(tmp_path_factory):
    from api import create_app

    folder = tmp_path_factory.mktemp("largest")
    app = create_app({"TESTING": True, "GRUFT_ENV": {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(folder / "g.sqlite"),
        "GRUFT_DATA_DIR": str(folder / "data")}})
    document = largest_document(app)
    yield app, document, app.json.dumps(document).encode()
    app.extensions["gruft"].close()


def test_the_largest_export_verifies_and_imports(largest):
    app, document, body = largest
    client = app.test_client()
    assert 3 << 20 < len(body) <= MAX_DOCUMENT_BYTES, len(body)
    assert len(body) > MAX_BODY_BYTES  # the bound of every other route: 413 there before
    # Check the largest document verifies...
    answer = client.post("/replays/verify", data=body, content_type="application/json")
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["valid"] is True
    # ...imports, and its own export verifies again.
    answer = client.post("/games/import", data=body, content_type="application/json")
    assert answer.status_code == 201, answer.get_json()
    exported = client.get(f"/games/{answer.get_json()['game_id']}/export")
    assert len(exported.get_data()) > MAX_BODY_BYTES
    again = client.post("/replays/verify", data=exported.get_data(), content_type="application/json")
    assert again.get_json()["valid"] is True


def test_bodies_past_the_bound_are_413_and_store_nothing(largest):
    app, document, body = largest
    client = app.test_client()
    before = client.get("/games").get_json()["games"]
    padded = json.dumps({**document, "padding": "x" * MAX_DOCUMENT_BYTES})
    for path in ("/replays/verify", "/games/import"):
        # Fail to send a document past the documents' bound: 413.
        assert_error(client.post(path, data=padded, content_type="application/json"), 413,
                     "payload_too_large")
    # Fail to send a body past the small bound anywhere else, even the largest document.
    for path in ("/games", "/games/00000000-0000-0000-0000-000000000000/commands"):
        assert_error(client.post(path, data=body, content_type="application/json"), 413,
                     "payload_too_large")
    assert client.get("/games").get_json()["games"] == before
