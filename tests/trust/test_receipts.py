"""Receipts (issue 22 item 4, docs/api.md "Receipts"): every accepted command answers with the
server's signed word on what it stored; a seat's stream carries its latest; `gruft verify
--receipt` holds a document to them and prints the two signed statements that disagree."""

from __future__ import annotations

import copy
import json
import random

from cli import main as gruft
from domain.core import event_hash
from replays.document import unsigned
from service.audit.receipts import FIELDS, signed_part
from service.audit.signing import check_signature
from tests.api.sse import ClientStream


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play(client, created: dict, moves: int, rng: random.Random) -> list[dict]:
    """`moves` commands, each sent with its seat's own token: the answers' receipts."""
    gid, receipts = created["game_id"], []
    for _ in range(moves):
        view = client.get(f"/games/{gid}").get_json()
        if view["status"] != "in_progress":
            break
        seat = view["to_act"][0]
        headers = bearer(created["player_tokens"][seat])
        legal = client.get(f"/games/{gid}/legal-moves", headers=headers).get_json()["moves"]
        answer = client.post(f"/games/{gid}/commands", json=rng.choice(legal), headers=headers)
        assert answer.status_code == 200
        receipts.append(answer.get_json()["receipt"])
    return receipts


def rechained(doc: dict, signer) -> dict:
    """The document with its chain computed again and signed again by the server's key: what an
    operator who rewrites a game can always make."""
    prev = doc["seed_commitment"]
    for record in doc["events"]:
        record["prev_hash"] = prev
        record["hash"] = prev = event_hash(prev, record["version"], record["type"],
                                           record["timestamp"], record["data"], record.get("by"),
                                           nonce=record.get("nonce"))
    doc.pop("log", None)
    doc["signature"]["value"] = signer.sign(unsigned(doc))
    return doc


def test_every_accepted_command_answers_with_a_signed_receipt(client, app):
    created = client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Ben"],
                                          "seed": 4, "options": {"rounds": 1}}).get_json()
    gid = created["game_id"]
    receipts = play(client, created, 6, random.Random(1))
    doc = client.get(f"/games/{gid}/export", headers=bearer(created["host_token"])).get_json()
    key = client.get("/signing-key").get_json()
    for receipt in receipts:
        # Check it names the last event its command stored, and the server's key signed it.
        assert set(receipt) == set(FIELDS) and receipt["game_id"] == gid
        assert receipt["key_id"] == key["key_id"]
        assert doc["events"][receipt["version"] - 1]["hash"] == receipt["hash"]
        assert check_signature(key["key"], signed_part(receipt), receipt["signature"])
    assert receipts[-1]["version"] == len(doc["events"])
    # Fail to get a receipt for a refused command: an error, nothing else.
    refused = client.post(f"/games/{gid}/commands", json={"type": "nope"},
                          headers=bearer(created["player_tokens"]["Ann"]))
    assert refused.status_code == 400 and "receipt" not in refused.get_json()


def test_a_seats_stream_carries_its_latest_receipt_and_nobody_elses(client):
    created = client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Ben"],
                                          "seed": 4, "options": {"rounds": 1}}).get_json()
    gid = created["game_id"]
    receipts = play(client, created, 3, random.Random(2))
    movers = {}
    for answer in client.get(f"/games/{gid}/events?limit=100").get_json()["events"]:
        if answer["by"] == "seat":
            movers[answer["data"]["player"]] = answer["version"]
    for seat, token in created["player_tokens"].items():
        stream = ClientStream(client, f"/games/{gid}/stream?token={token}")
        first = stream.next().data
        stream.close()
        mine = [r for r in receipts if r["version"] >= movers.get(seat, 10**9)]
        if seat in movers:
            # Check it is the receipt this seat's last command answered with.
            assert first["receipt"] == min(mine, key=lambda r: r["version"])
        else:
            assert "receipt" not in first
    spectator = ClientStream(client, f"/games/{gid}/stream")
    assert "receipt" not in spectator.next().data
    spectator.close()


def test_gruft_verify_holds_a_document_to_its_receipts(client, app, tmp_path, capsys):
    created = client.post("/games", json={"game": "vampir", "players": ["Ann", "Ben", "Cy"],
                                          "seed": 6, "options": {"rounds": 1}}).get_json()
    receipts = play(client, created, 8, random.Random(3))
    signer = app.extensions["gruft"].signing_key
    doc = client.get(f"/games/{created['game_id']}/export",
                     headers=bearer(created["host_token"])).get_json()
    pem = tmp_path / "key.pem"
    pem.write_text(signer.public_pem, "ascii")
    kept = tmp_path / "receipts.json"
    kept.write_text(json.dumps(receipts), "utf-8")

    def verify(document: dict, *flags: str) -> int:
        path = tmp_path / "doc.json"
        path.write_text(json.dumps(document), "utf-8")
        capsys.readouterr()
        return gruft(["verify", str(path), "--key", str(pem), "--receipt", str(kept), *flags])

    # Check the server's own document agrees with every receipt its players kept, and the
    # report says what each one checked (issue 33, item 5).
    assert verify(doc) == 0  # a game in play: no log part yet, signed all the same
    out = capsys.readouterr().out
    assert "INVALID" not in out
    for number, receipt in enumerate(receipts, start=1):
        assert f"receipt {number} for version {receipt['version']} matches" in out
    assert verify(doc, "--json") == 0
    assert json.loads(capsys.readouterr().out)["receipts_matched"] == [
        {"receipt": n, "version": r["version"]} for n, r in enumerate(receipts, start=1)]
    # Fail a rewritten game the server signed again: a move's time moved within the order,
    # the chain computed again. Nothing but the receipt can tell; it names the version and
    # prints both signed statements.
    moved = receipts[2]["version"]
    rewritten = copy.deepcopy(doc)
    rewritten["events"][moved - 1]["timestamp"] = rewritten["events"][moved - 2]["timestamp"]
    rechained(rewritten, signer)
    assert verify(rewritten) == 1
    out = capsys.readouterr().out
    assert "[receipt_mismatch]" in out and f"version {moved}" in out
    assert "TWO HISTORIES SIGNED" in out and receipts[2]["signature"] in out
    assert rewritten["signature"]["value"] in out
    assert verify(rewritten, "--json") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["conflicts"][0]["receipt"] == receipts[2]
    # Fail a document cut short before what the server acknowledged.
    short = copy.deepcopy(doc)
    short["events"] = short["events"][:receipts[-1]["version"] - 1]
    rechained(short, signer)
    assert verify(short) == 1
    assert "[receipt_beyond_document]" in capsys.readouterr().out
    # Fail a receipt not signed by the server: it proves nothing.
    forged = dict(receipts[0], hash="0" * 64)
    kept.write_text(json.dumps(forged), "utf-8")
    assert verify(doc) == 1
    assert "[receipt_invalid]" in capsys.readouterr().out


def test_gruft_verify_refuses_a_receipt_of_another_game_or_key(client, app, tmp_path, capsys):
    """Issue 33, item 5: given a receipt of another game, `gruft verify` printed "valid" and
    exited 0: an arbiter who picked the wrong file believed it was checked."""
    games = [client.post("/games", json={"game": "vampir", "players": ["Ann", "Ben", "Cy"],
                                         "seed": seed, "options": {"rounds": 1}}).get_json()
             for seed in (1, 2)]
    mine, others = (play(client, game, 3, random.Random(5)) for game in games)
    doc = client.get(f"/games/{games[0]['game_id']}/export",
                     headers=bearer(games[0]["host_token"])).get_json()
    pem = tmp_path / "key.pem"
    pem.write_text(app.extensions["gruft"].signing_key.public_pem, "ascii")
    (tmp_path / "doc.json").write_text(json.dumps(doc), "utf-8")

    def verify(receipts: list[dict], *flags: str) -> tuple[int, str]:
        (tmp_path / "r.json").write_text(json.dumps(receipts), "utf-8")
        capsys.readouterr()
        code = gruft(["verify", str(tmp_path / "doc.json"), "--key", str(pem),
                      "--receipt", str(tmp_path / "r.json"), *flags])
        return code, capsys.readouterr().out

    # Fail with a receipt of the other game: a problem of its own, naming that game.
    code, out = verify([others[0]])
    assert code == 1 and "[receipt_other_game]" in out and games[1]["game_id"] in out
    assert "matches" not in out
    # Fail with this game's receipt signed by another key: it proves nothing.
    from service.audit.receipts import signed_part
    from service.audit.signing import SigningKey

    stranger = SigningKey.load_or_create(tmp_path)
    forged = dict(mine[0], key_id=stranger.key_id)
    forged["signature"] = stranger.sign(signed_part(forged))
    code, out = verify([forged])
    assert code == 1 and "[receipt_invalid]" in out
    # Check the right game's receipts pass, each said to match.
    code, out = verify(mine)
    assert code == 0 and out.count("matches") == len(mine)
