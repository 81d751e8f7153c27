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
