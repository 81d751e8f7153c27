"""The arbiter's additions in the replay document: key_id, annotations and a fork's parent,
all signed, each checked by verification; `gruft verify FORK --parent PARENT`."""

from __future__ import annotations

import copy
import json
import random

import pytest

from cli import main
from domain import game_class
from domain.core import event_hash, record_hash
from replays.document import check_fork, unsigned, verify
from service.audit.signing import check_signature
from tests.kit import SHORT_OPTIONS, play_over_rest, seats


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def signer(app):
    return app.extensions["gruft"].signing_key


def finished(client, key: str, seed: int) -> dict:
    created = client.post("/games", json={"game": key, "players": seats(key), "seed": seed,
                                          "options": SHORT_OPTIONS[key]}).get_json()
    play_over_rest(client, created, random.Random(seed))
    return created


def resign(document: dict, signer) -> dict:
    """A forger with the server's key: the document signed again after an edit."""
    document["signature"]["value"] = signer.sign(unsigned(document))
    return document


def check(document: dict, signer):
    return verify(document, trusted_keys=[signer.public_pem], check_signature=check_signature)


@pytest.fixture
def annotated(client, signer):
    created = finished(client, "vampiring", 4)
    gid, host = created["game_id"], bearer(created["host_token"])
    for version, text in ((0, "setup checked"), (2, "first move"), (5, "a ruling")):
        assert client.post(f"/games/{gid}/annotations", headers=host,
                           json={"version": version, "text": text}).status_code == 201
    return client.get(f"/games/{gid}/export").get_json()


def test_the_export_carries_the_key_id_and_the_chained_annotations(annotated, signer, client):
    assert annotated["key_id"] == signer.key_id
    assert client.get("/signing-key").get_json()["key_id"] == signer.key_id
    assert [a["text"] for a in annotated["annotations"]] == ["setup checked", "first move",
                                                             "a ruling"]
    verdict = check(annotated, signer)
    assert verdict.valid, verdict.problems
    assert verdict.as_json()["key_id"] == signer.key_id


@pytest.mark.parametrize("edit, named", [
    (lambda d: d["annotations"][1].update(text="no such move"), "annotation 2"),
    (lambda d: d["annotations"].pop(1), "annotation 2"),
    (lambda d: d["annotations"].reverse(), "annotation 1"),
])
def test_an_edited_dropped_or_reordered_annotation_is_named(annotated, signer, edit, named):
    forged = copy.deepcopy(annotated)
    edit(forged)
    resign(forged, signer)  # even signed again with the server's own key
    verdict = check(forged, signer)
    assert not verdict.valid
    (problem,) = [p for p in verdict.problems if p["code"] == "annotation_broken"]
    assert problem["message"].startswith(named)


def test_an_annotation_moved_to_another_step_is_caught_even_with_its_chain_recomputed(annotated,
                                                                                      signer):
    forged = copy.deepcopy(annotated)
    note = forged["annotations"][1]
    note["version"] = 3  # the step it claims, but event_hash still names step 2's event
    note["hash"] = record_hash(note["prev_hash"], note)
    third = forged["annotations"][2]
    third["prev_hash"] = note["hash"]
    third["hash"] = record_hash(third["prev_hash"], third)
    verdict = check(resign(forged, signer), signer)
    assert [p["code"] for p in verdict.problems] == ["annotation_broken"]
    assert "names another event than step 3" in verdict.problems[0]["message"]


def test_a_dropped_last_annotation_breaks_the_signature(annotated, signer):
    forged = copy.deepcopy(annotated)
    forged["annotations"].pop()
    verdict = check(forged, signer)
    assert [p["code"] for p in verdict.problems] == ["signature_invalid"]


def test_a_wrong_key_id_is_named(annotated, signer):
    forged = resign({**copy.deepcopy(annotated), "key_id": "0" * 64}, signer)
    assert [p["code"] for p in check(forged, signer).problems] == ["key_id_mismatch"]


# -- forks ----------------------------------------------------------------------------------

@pytest.fixture
def family(client):
    """A finished parent, a fork of it played to its end, and both documents."""
    created = finished(client, "voodoo-prince", 9)
    gid, host = created["game_id"], bearer(created["host_token"])
    log = client.get(f"/games/{gid}/events?limit=1000").get_json()["events"]
    moves = game_class("voodoo-prince").COMMAND_EVENTS
    at = max(e["version"] - 1 for e in log[: len(log) // 2] if e["type"] in moves)
    fork = client.post(f"/games/{gid}/fork", headers=host, json={"at": at}).get_json()
    play_over_rest(client, fork, random.Random(2))
    parent_doc = client.get(f"/games/{gid}/export").get_json()
    fork_doc = client.get(f"/games/{fork['game_id']}/export").get_json()
    return parent_doc, fork_doc, at


def test_a_fork_exports_its_parent_and_verifies_alone_and_against_it(family, signer):
    parent, fork, at = family
    assert fork["parent"] == {"game_id": parent["game_id"], "version": at,
                              "hash": parent["events"][at - 1]["hash"]}
    assert fork["events"][1]["type"] == "Forked"
    assert check(fork, signer).valid, check(fork, signer).problems
    verdict = check_fork(fork, parent, [signer.public_pem], check_signature)
    assert verdict.valid, verdict.problems


def test_a_fork_with_another_table_than_its_parents_is_caught_by_the_parent(family, signer):
    parent, fork, at = family
    forged = copy.deepcopy(fork)
    forked = forged["events"][1]
    table = forked["data"]["table"]
    # Swap two players' hands in the carried table, recompute the whole chain, sign again.
    first, second = list(table["hands"])[:2]
    table["hands"][first], table["hands"][second] = table["hands"][second], table["hands"][first]
    prev = forged["seed_commitment"]
    for record in forged["events"]:
        record["prev_hash"] = prev
        record["hash"] = prev = event_hash(prev, record["version"], record["type"],
                                           record["timestamp"], record["data"], record.get("by"),
                                           nonce=record.get("nonce"))
    resign(forged, signer)
    # Alone, the swapped hands may replay or not; against its parent the fork is proven false.
    verdict = check_fork(forged, parent, [signer.public_pem], check_signature)
    assert "fork_mismatch" in [p["code"] for p in verdict.problems]
    assert not verdict.valid


@pytest.mark.parametrize("players", [None, ["Ann", "Ann"], ["Ann"]])
def test_a_fork_seated_against_the_rules_is_named_not_a_crash(family, signer, players):
    # Game.forked checks the seats as Game.start does: a forged creation with no list, twin
    # names or too few players is a problem of the document, never an exception out of verify.
    _, fork, _ = family
    forged = copy.deepcopy(fork)
    forged["events"][0]["data"]["players"] = players
    forged["players"] = players
    prev = forged["seed_commitment"]
    for record in forged["events"]:
        record["prev_hash"] = prev
        record["hash"] = prev = event_hash(prev, record["version"], record["type"],
                                           record["timestamp"], record["data"], record.get("by"),
                                           nonce=record.get("nonce"))
    verdict = check(resign(forged, signer), signer)
    assert not verdict.valid and verdict.problems, verdict


def test_a_fork_checked_against_another_game_is_refused(family, client, signer):
    parent, fork, _ = family
    stranger = client.get(f"/games/{finished(client, 'voodoo-prince', 10)['game_id']}/export"
                          ).get_json()
    verdict = check_fork(fork, stranger, [signer.public_pem], check_signature)
    assert [p["code"] for p in verdict.problems] == ["parent_mismatch"]
    # And a game that is no fork has no parent to be checked against.
    assert "not_a_fork" in [p["code"] for p in check_fork(
        parent, parent, [signer.public_pem], check_signature).problems]


def test_gruft_verify_parent_proves_the_fork_and_prints_the_key_id(family, signer, tmp_path,
                                                                  capsys):
    parent, fork, at = family
    (tmp_path / "parent.json").write_text(json.dumps(parent))
    (tmp_path / "fork.json").write_text(json.dumps(fork))
    (tmp_path / "key.pem").write_text(signer.public_pem)
    args = [str(tmp_path / "fork.json"), "--key", str(tmp_path / "key.pem")]
    assert main(["verify", *args, "--parent", str(tmp_path / "parent.json")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("valid: voodoo-prince")
    assert f"a fork of {parent['game_id']} after its event {at}" in text
    assert f"key_id {signer.key_id}" in text
    assert main(["verify", *args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["key_id"] == signer.key_id
    # Fail to prove the fork against itself: it is not its own parent.
    assert main(["verify", *args, "--parent", str(tmp_path / "fork.json")]) == 1
    assert "[parent_mismatch]" in capsys.readouterr().out


def test_importing_a_fork_keeps_its_parent_link(family, client, signer):
    _, fork, _ = family
    imported = client.post("/games/import", json=fork)
    assert imported.status_code == 201, imported.get_json()
    assert imported.get_json()["view"]["parent"] == fork["parent"]


def test_importing_an_annotated_document_keeps_its_annotations_verifiable(annotated, client,
                                                                         signer):
    imported = client.post("/games/import", json=annotated)
    assert imported.status_code == 201, imported.get_json()
    new = imported.get_json()
    again = client.get(f"/games/{new['game_id']}/export").get_json()
    # Check the annotations came along whole, and the new export verifies with them.
    assert again["annotations"] == annotated["annotations"]
    assert check(again, signer).valid


def test_a_fork_and_an_aborted_game_step_through_like_any_game(family, client):
    from replays.stepper import rebuild_states

    parent, fork, at = family
    # Check every step of the fork rebuilds, the carried table at its second.
    states = rebuild_states(fork)
    assert len(states) == len(fork["events"])
    assert states[1] == rebuild_states(parent)[at - 1] | {"to_act": states[1]["to_act"]}
    created = client.post("/games", json={"game": "vampir", "players": seats("vampir"),
                                          "seed": 3}).get_json()
    client.post(f"/games/{created['game_id']}/abort", json={"reason": "a voided move"},
                headers=bearer(created["host_token"]))
    aborted = client.get(f"/games/{created['game_id']}/export").get_json()
    assert rebuild_states(aborted)[-1]["finished"]
