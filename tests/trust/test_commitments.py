"""No secret computable from anything public (issue 32 item 3, docs/format.md "Commitment nonces").

The probe's attack: a chain link is SHA-256 over an event whose secret part has little entropy,
so from two public hashes around it (a seat's own receipt, a fork's `parent.hash`, the seed
commitment) and the event as the log shows it, a seat enumerates the secret (Ben found Ann's
pending VampiRing move in 4 tries, Cy Ann's two Vampir cards in 51). Here every game is played
over REST, each seat with its own token, and each seat attacks with everything public before the
end: the views, the log as a spectator and as itself, its receipts and a fork's `parent.hash`.
Its candidate for every hidden field is the true value (read afterwards from the host's export):
a guess at least as good as any enumeration, so when even that gives another hash, no
enumeration of the candidate space finds the secret. The control computes the same links with
the true nonces and reaches the public hashes: only the secret nonce stands in the way. The
probe's VampiRing attack is also tried literally, every move Ann could have sent in turn.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from domain import available_games, game_class
from domain.core import event_hash
from domain.core.visibility import holds_secrets
from replays.document import unsigned, verify
from service.audit.signing import check_signature
from tests.kit import SHORT_OPTIONS, seats

# Each game long enough to deal again after a move: a deal between two public hashes.
OPTIONS = {**SHORT_OPTIONS, "vampire-queen": {"phases": 2}, "voodoo-prince": {"rounds": 2}}
SECRET_SETUP = ("seed", "salt")  # 256-bit draws of their own: an attacker's guess is a wrong one


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def log_as(client, gid: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    """The whole log as the holder of `headers` (none: a spectator) sees it."""
    events: list[dict[str, Any]] = []
    while True:
        page = client.get(f"/games/{gid}/events?after={len(events)}&limit=1000",
                          headers=headers).get_json()
        if not page["events"]:
            return events
        events += page["events"]


def next_move(client, created: dict, rng: random.Random) -> tuple[str, dict] | None:
    view = client.get(f"/games/{created['game_id']}").get_json()
    if view["status"] != "in_progress":
        return None
    seat = rng.choice(view["to_act"])
    headers = bearer(created["player_tokens"][seat])
    legal = client.get(f"/games/{created['game_id']}/legal-moves", headers=headers).get_json()
    return seat, rng.choice(legal["moves"])


def play(client, created: dict, rng: random.Random, commands: int | None = None,
         answers: list[dict] | None = None) -> tuple[int, dict[str, list[dict]]]:
    """Commands (all, or `commands` of them), each with its seat's own token: how many were
    sent, and each seat's receipts (`answers`: where to keep the whole answers)."""
    receipts: dict[str, list[dict]] = {}
    sent = 0
    while commands is None or sent < commands:
        chosen = next_move(client, created, rng)
        if chosen is None:
            break
        seat, move = chosen
        answer = client.post(f"/games/{created['game_id']}/commands", json=move,
                             headers=bearer(created["player_tokens"][seat]))
        assert answer.status_code == 200, answer.get_json()
        if answers is not None:
            answers.append(answer.get_json())
        receipts.setdefault(seat, []).append(answer.get_json()["receipt"])
        sent += 1
    return sent, receipts


def new_game(client, key: str, seed: int) -> dict:
    answer = client.post("/games", json={"game": key, "players": seats(key), "seed": seed,
                                         "options": OPTIONS[key]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def guessed(seen: dict, truth: dict, setup: bool = False) -> dict:
    """The attacker's best candidate for an event's data: what it sees, every hidden field filled
    with its true value (the seed and salt excepted, unless `setup`: 256 random bits each,
    never guessed)."""
    data = dict(seen)
    for field, value in truth.items():
        if field not in seen:
            data[field] = "0" * 64 if field in SECRET_SETUP and not setup else value
        elif isinstance(value, dict) and isinstance(seen[field], dict):
            data[field] = {**value, **seen[field]}  # a per-player field: the others' entries
    return data


def link_from(prev: str, seen: list[dict], truth: list[dict], nonces: bool) -> str:
    """The chain from `prev` over the events `seen` (as the attacker sees them) with the guessed
    data; `nonces`: with the true nonces, seed and salt (the control) or with none of them (all
    an attacker has)."""
    for shown, record in zip(seen, truth, strict=True):
        assert shown["version"] == record["version"] and shown["type"] == record["type"]
        prev = event_hash(prev, shown["version"], shown["type"], shown["timestamp"],
                          guessed(shown["data"], record["data"], setup=nonces), shown.get("by"),
                          shown.get("shape", 1), record.get("nonce") if nonces else None)
    return prev


def attack(known: dict[int, str], seen: list[dict], truth: list[dict]) -> dict[str, int]:
    """Every interval between two hashes the attacker holds whose events hide a secret from it:
    brute-forced (with the best candidate) and, as a control, linked with the true nonces."""
    found = {"hidden": 0, "recovered": 0}
    versions = sorted(known)
    for start, end in zip(versions, versions[1:], strict=False):
        part = slice(start, end)
        if all(s["data"] == r["data"] for s, r in zip(seen[part], truth[part], strict=True)):
            continue  # nothing hidden from the attacker between them
        found["hidden"] += 1
        # The control: with the nonces the guess is the truth, so the reconstruction is right.
        assert link_from(known[start], seen[part], truth[part], nonces=True) == known[end]
        if link_from(known[start], seen[part], truth[part], nonces=False) == known[end]:
            found["recovered"] += 1
    return found


@pytest.mark.parametrize("key", available_games())
def test_no_seat_recovers_another_s_secret_from_public_hashes_before_the_end(client, key):
    seed = 5
    # How many commands the game takes with these moves: the same seed and moves, the same game.
    total, _ = play(client, new_game(client, key, seed), random.Random(seed))
    created = new_game(client, key, seed)
    gid, host = created["game_id"], bearer(created["host_token"])
    answers: list[dict] = []  # each command's answer: its events as its seat sees them
    _, receipts = play(client, created, random.Random(seed), total - 1, answers)
    view = client.get(f"/games/{gid}").get_json()
    assert view["status"] == "in_progress"
    players = view["players"]
    # Everything public before the end: the log and views as each seat and as a spectator...
    logs = {seat: log_as(client, gid, bearer(created["player_tokens"][seat])) for seat in players}
    logs[None] = log_as(client, gid, {})
    views = [client.get(f"/games/{gid}", headers=bearer(created["player_tokens"][seat])).get_json()
             for seat in players] + [view]
    # ... and a fork's parent.hash (the fork stops the game, which stays sealed with it).
    fork = client.post(f"/games/{gid}/fork", json={"at": view["version"]}, headers=host)
    assert fork.status_code == 201, fork.get_json()
    parent = fork.get_json()["view"]["parent"]
    truth = client.get(f"/games/{gid}/export", headers=host).get_json()
    assert truth["format_version"] == 3
    nonces = {e["nonce"] for e in truth["events"] if "nonce" in e}
    assert nonces and all(holds_secrets(game_class(key).SECRET_FIELDS, e["type"])
                          == ("nonce" in e) for e in truth["events"])
    public = json.dumps([logs, views, answers, fork.get_json()["view"]])
    assert not any(nonce in public for nonce in nonces), "a nonce is shown before the end"
    records = truth["events"][:parent["version"]]
    assert [e["version"] for e in logs[None]] == [e["version"] for e in records]
    hidden = recovered = 0
    for seat in [*players, None]:
        known = {0: view["seed_commitment"], parent["version"]: parent["hash"]}
        known.update({r["version"]: r["hash"] for r in receipts.get(seat, [])})
        found = attack(known, logs[seat], records)
        hidden, recovered = hidden + found["hidden"], recovered + found["recovered"]
    assert hidden > 0, "the game hid nothing between two public hashes: the test proves nothing"
    assert recovered == 0, f"{recovered} of {hidden} secret stretches recovered from public hashes"


@pytest.fixture
def finished(client, app) -> tuple[dict, Any]:
    created = new_game(client, "vampir", 3)
    play(client, created, random.Random(3))
    doc = client.get(f"/games/{created['game_id']}/export").get_json()
    return doc, app.extensions["gruft"].signing_key


def check(doc: dict, signer) -> Any:
    return verify(doc, trusted_keys=[signer.public_pem], check_signature=check_signature)


def rechained(doc: dict, signer) -> dict:
    """What an operator who rewrites a game can always make: the chain and signature again."""
    prev = doc["seed_commitment"]
    for record in doc["events"]:
        record["prev_hash"] = prev
        record["hash"] = prev = event_hash(prev, record["version"], record["type"],
                                           record["timestamp"], record["data"], record.get("by"),
                                           record.get("shape", 1), record.get("nonce"))
    doc.pop("log", None)
    doc.pop("log_witnessed", None)
    doc["signature"]["value"] = signer.sign(unsigned(doc))
    return doc


def test_the_export_after_the_end_reveals_the_nonces_and_verifies_in_format_3(finished):
    doc, signer = finished
    assert doc["status"] == "finished" and doc["format_version"] == 3
    secret = [e for e in doc["events"] if holds_secrets(game_class("vampir").SECRET_FIELDS,
                                                        e["type"])]
    assert secret and all(len(e["nonce"]) == 64 for e in secret)
    assert len({e["nonce"] for e in secret}) == len(secret)  # one draw per event
    verdict = check(doc, signer)
    assert verdict.valid, verdict.problems


def test_a_changed_nonce_breaks_its_link(finished):
    doc, signer = finished
    target = next(e for e in doc["events"] if "nonce" in e and e["version"] > 1)
    target["nonce"] = "0" * 64
    verdict = check(doc, signer)
    assert ("chain_broken", target["version"]) in {(p["code"], p["version"])
                                                   for p in verdict.problems}


def test_a_nonce_dropped_or_added_is_named_even_re_chained_and_re_signed(finished):
    doc, signer = finished
    # Fail with a secret event's nonce dropped: its secret is no longer committed.
    dropped = copy.deepcopy(doc)
    target = next(e for e in dropped["events"] if "nonce" in e and e["version"] > 1)
    del target["nonce"]
    verdict = check(rechained(dropped, signer), signer)
    assert [(p["code"], p["version"]) for p in verdict.problems] == [
        ("nonce_missing", target["version"])]
    assert f"{target['type']} holds a secret" in verdict.problems[0]["message"]
    # Fail with a nonce on an event that holds no secret.
    added = copy.deepcopy(doc)
    public = next(e for e in added["events"] if "nonce" not in e)
    public["nonce"] = "1" * 64
    verdict = check(rechained(added, signer), signer)
    assert [(p["code"], p["version"]) for p in verdict.problems] == [
        ("nonce_unexpected", public["version"])]
    # Fail with nonces in a document that says it is of format 2.
    older = copy.deepcopy(doc)
    older["format_version"] = 2
    verdict = check(rechained(older, signer), signer)
    assert [(p["code"], p["version"]) for p in verdict.problems] == [("nonce_unexpected", 1)]
    assert "format 2 document never has" in verdict.problems[0]["message"]
    # Fail with a malformed nonce: the schema names it.
    bad = copy.deepcopy(doc)
    next(e for e in bad["events"] if "nonce" in e)["nonce"] = "XYZ"
    verdict = check(bad, signer)
    assert [p["code"] for p in verdict.problems] == ["malformed"]
    assert "nonce" in verdict.problems[0]["message"]


def test_the_probe_s_vampiring_attack_enumerates_every_move_and_finds_nothing(client):
    # The probe's own attack, candidate by candidate: Ben moved (his receipt), Ann's move is
    # pending, the host forks there (its parent.hash); Ben tries each move Ann could have sent.
    cls = game_class("vampiring")
    created = new_game(client, "vampiring", 11)
    gid, host = created["game_id"], bearer(created["host_token"])
    tokens = {seat: bearer(token) for seat, token in created["player_tokens"].items()}
    assert {"Ann", "Ben"} <= set(client.get(f"/games/{gid}").get_json()["to_act"])
    receipt = None
    for seat in ("Ben", "Ann"):
        legal = client.get(f"/games/{gid}/legal-moves", headers=tokens[seat]).get_json()["moves"]
        answer = client.post(f"/games/{gid}/commands", json=legal[-1], headers=tokens[seat])
        assert answer.status_code == 200, answer.get_json()
        receipt = answer.get_json()["receipt"] if seat == "Ben" else receipt
    view = client.get(f"/games/{gid}").get_json()
    assert view["status"] == "in_progress"
    seen = log_as(client, gid, tokens["Ben"])[receipt["version"]:]
    fork = client.post(f"/games/{gid}/fork", json={"at": view["version"]}, headers=host)
    parent = fork.get_json()["view"]["parent"]
    assert [(e["type"], e["data"]) for e in seen] == [("MoveSubmitted", {"player": "Ann"})]
    stored = client.get(f"/games/{gid}/export", headers=host).get_json()["events"]
    truth = stored[receipt["version"]:parent["version"]]  # the fork stopped the game after it
    params = cls.COMMANDS["move"].params
    candidates = [{"metamorphosis": m, "direction": d} for m in params["metamorphosis"].choices
                  for d in params["direction"].choices]
    assert {k: truth[0]["data"][k] for k in ("metamorphosis", "direction")} in candidates

    def tried(move: dict, nonce: str | None) -> str:
        shown = seen[0]
        return event_hash(receipt["hash"], shown["version"], shown["type"], shown["timestamp"],
                          {**shown["data"], **move}, shown.get("by"), shown.get("shape", 1),
                          nonce)

    # Fail to find Ann's move by trying every one she could send: no candidate gives the hash.
    assert [m for m in candidates if tried(m, None) == parent["hash"]] == []
    # The control: with the nonce (the export's, after the end) exactly her move gives it.
    assert [m for m in candidates if tried(m, truth[0]["nonce"]) == parent["hash"]] == [
        {k: truth[0]["data"][k] for k in ("metamorphosis", "direction")}]


def test_a_fork_carries_the_table_not_its_parent_s_format():
    # `nonced` says how the game is recorded (forks.py's RECORD_FIELDS), not what the rules
    # read: a fork's Forked table leaves it out, and the fork is nonced by its own creation.
    cls = game_class("vampiring")
    parent = cls.start(seats("vampiring"), seed=5, salt="ab" * 32,
                       options=SHORT_OPTIONS["vampiring"])
    assert parent.nonced and "nonced" not in parent.table_state()
    link = {"game_id": str(parent.id), "version": parent.version, "hash": parent.chain_hash}
    fork = cls.fork(parent, link, seed=6, salt="cd" * 32)
    forked = next(e for e in fork.collect_events() if type(e).__name__ == "Forked")
    assert "nonced" not in forked.table and fork.nonced
    assert forked.__dict__["nonce"] != parent.collect_events()[0].__dict__["nonce"]
