"""The replay document's JSON Schema (replays/schema/document.json, docs/format.md): every
document gruft made validates, and the verifier's shape errors are the schema's."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema_rs
import pytest

from domain import available_games
from replays.document import SCHEMA_PATH, verify

TESTS = Path(__file__).parents[1]
DOCUMENTS = sorted([*TESTS.glob("fixtures/v*/documents/*.json"),
                    *TESTS.glob("replays/golden/*.json")])
SCHEMA = json.loads(SCHEMA_PATH.read_text("utf-8"))


def test_the_schema_is_a_valid_2020_12_schema_naming_every_game():
    jsonschema_rs.Draft202012Validator(SCHEMA)  # raises on a schema that is not one
    assert jsonschema_rs.meta.is_valid(SCHEMA)
    assert SCHEMA["properties"]["game"]["enum"] == available_games()


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_fixture_and_golden_document_validates(path):
    # Check the documents of every release, and the golden ones, follow the schema.
    assert jsonschema_rs.validator_for(SCHEMA).is_valid(json.loads(path.read_text("utf-8")))


def golden() -> dict:
    return json.loads((TESTS / "replays" / "golden" / "vampiring.json").read_text("utf-8"))


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.pop("final"), '"final" is a required property'),
    (lambda d: d.update(format_version=4), "format_version: 4 is not one of"),
    (lambda d: d.update(format_version=2), "\"salt\" is a required property"),
    (lambda d: d.update(seed_commitment=7), "seed_commitment: 7 is not of type"),
    (lambda d: d["events"][3].update(shape=1), "events/3/shape: 1 is less than the minimum"),
    (lambda d: d["events"][0].update(data=[]), "events/0/data: [] is not of type"),
    (lambda d: d["signature"].update(alg="rsa"), "signature/alg"),
    (lambda d: d.update(events=[]), "events: [] has less than 1 item"),
])
def test_the_verifiers_shape_errors_come_from_the_schema(edit, words):
    doc = copy.deepcopy(golden())
    edit(doc)
    # Fail to verify a document the schema rejects: one problem, `malformed`, in its words.
    error = next(iter(jsonschema_rs.validator_for(SCHEMA).iter_errors(doc)))
    problems = verify(doc).problems
    assert [p["code"] for p in problems] == ["malformed"]
    assert error.message in problems[0]["message"]
    assert words in problems[0]["message"].replace("at ", "", 1), problems[0]["message"]


def test_check_jsonschema_accepts_what_the_server_exports(app, client, tmp_path):
    # Check the `check-jsonschema` command (an outside reader of the schema, with its format
    # checks) accepts, against replays/schema/document.json, the documents the server exports
    # now: every game played to its end with an annotation, one exported by its host in play,
    # and the fixture and golden ones (issue 31).
    import random
    import subprocess
    import sys

    from tests.kit import SHORT_OPTIONS, play_out, seats

    rng = random.Random(31)
    exported = []
    for key in available_games():
        created = client.post("/games", json={"game": key, "players": seats(key),
                                              "options": SHORT_OPTIONS[key]}).get_json()
        host = {"Authorization": f"Bearer {created['host_token']}"}
        if key == "vampiring":  # one exported in play, by its host
            exported.append(client.get(f"/games/{created['game_id']}/export", headers=host))
        assert client.post(f"/games/{created['game_id']}/annotations", headers=host,
                           json={"version": 1, "text": "Schön, 🎲"}).status_code == 201
        play_out(app.extensions["gruft"].games, created["game_id"], rng)
        exported.append(client.get(f"/games/{created['game_id']}/export"))
    files = []
    for number, answer in enumerate(exported):
        assert answer.status_code == 200, answer.get_json()
        files.append(tmp_path / f"{number}.json")
        files[-1].write_bytes(answer.data)
    assert {json.loads(f.read_bytes())["status"] for f in files} == {"in_progress", "finished"}
    command = Path(sys.executable).with_name("check-jsonschema")
    done = subprocess.run([str(command), "--schemafile", str(SCHEMA_PATH),
                           *map(str, files), *map(str, DOCUMENTS)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "ok -- validation done" in done.stdout, (
        done.stdout + done.stderr)
    # Fail a document the schema rejects: the command is no rubber stamp.
    broken = json.loads(files[0].read_bytes())
    del broken["final"]
    files[0].write_text(json.dumps(broken))
    done = subprocess.run([str(command), "--schemafile", str(SCHEMA_PATH), str(files[0])],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "'final' is a required property" in done.stdout, (
        done.stdout + done.stderr)
