"""Who did what (issue 22 item 2): every event says who stored it — the seat with its own token,
the host for a seat, the server's bot, or the server — in the log, the stream, the replay and the
document, where the chain hashes it and the signature covers it."""

from __future__ import annotations

import copy
import random

import pytest

from domain import game_class
from domain.core import event_hash
from replays.document import unsigned, verify
from service.audit.signing import check_signature
from tests.api.sse import ClientStream, events_of


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def signer(app):
    return app.extensions["gruft"].signing_key


@pytest.fixture
def played(client):
    """A Voodoo Prince game: Ann moves with her own token, the host moves for Ben, then the
    host aborts it. Answers the creation and the moves' versions: {player: [versions]}."""
    created = client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Ben"],
                                          "seed": 5, "options": {"rounds": 1}}).get_json()
    gid, host = created["game_id"], bearer(created["host_token"])
    ann = bearer(created["player_tokens"]["Ann"])
    moved: dict[str, list[int]] = {"Ann": [], "Ben": []}
    for _ in range(6):
        view = client.get(f"/games/{gid}").get_json()
        player = view["to_act"][0]
        headers = ann if player == "Ann" else host
        query = "" if player == "Ann" else "?player=Ben"
        move = client.get(f"/games/{gid}/legal-moves{query}", headers=headers).get_json()["moves"][0]
        body = move if player == "Ann" else {**move, "player": "Ben"}
        answer = client.post(f"/games/{gid}/commands", json=body, headers=headers).get_json()
        moved[player].append(view["version"] + 1)
        assert answer["events"][0]["by"] == ("seat" if player == "Ann" else "host")
        assert {e["by"] for e in answer["events"][1:]} <= {"server"}
    assert client.post(f"/games/{gid}/abort", json={"reason": "rain"},
                       headers=host).status_code == 200
    return created, moved


def expected_by(record: dict, moved: dict[str, list[int]]) -> str:
    if record["version"] in moved["Ann"]:
        return "seat"
    if record["version"] in moved["Ben"]:
        return "host"
    return "host" if record["type"] == "GameAborted" else "server"


def test_every_event_says_who_stored_it_everywhere_it_is_shown(client, played, signer):
    created, moved = played
    gid = created["game_id"]
    # Check the log, as anybody reads it.
    log = client.get(f"/games/{gid}/events?limit=1000").get_json()["events"]
    assert [e["by"] for e in log] == [expected_by(e, moved) for e in log]
    assert log[0]["by"] == "server" and log[-1]["by"] == "host"
    # Check the stream, from the start (the game is over: it ends after the backlog).
    stream = ClientStream(client, f"/games/{gid}/stream?after=0")
    assert [e["by"] for e in events_of(stream.until_end())] == [e["by"] for e in log]
    # Check each replay step's event and the document.
    for record in log:
        step = client.get(f"/games/{gid}/replay/{record['version']}").get_json()
        assert step["event"]["by"] == record["by"]
    doc = client.get(f"/games/{gid}/export").get_json()
    assert [e["by"] for e in doc["events"]] == [e["by"] for e in log]
    # Check the chain hashes `by` and the document verifies.
    for e in doc["events"]:
        assert e["hash"] == event_hash(e["prev_hash"], e["version"], e["type"], e["timestamp"],
                                       e["data"], e["by"], nonce=e.get("nonce"))
    verdict = verify(doc, [signer.public_pem], check_signature)
    assert verdict.valid, verdict.problems


def forged(doc: dict, signer, version: int, by: str | None) -> dict:
    """The document with event `version`'s `by` changed (None: taken out), every hash
    recomputed and signed again with the server's key: a forger who holds it."""
    doc = copy.deepcopy(doc)
    # The game log's proof (present once the log's appender has logged the game) covers the
    # last hash, which the forger cannot re-sign into the log: left out, as a forger would.
    doc.pop("log", None)
    if by is None:
        doc["events"][version - 1].pop("by")
    else:
        doc["events"][version - 1]["by"] = by
    prev = doc["seed_commitment"]
    for record in doc["events"]:
        record["prev_hash"] = prev
        record["hash"] = prev = event_hash(prev, record["version"], record["type"],
                                           record["timestamp"], record["data"], record.get("by"),
                                           nonce=record.get("nonce"))
    doc.pop("log", None)  # its inclusion proof names the old last hash (the log's test forges it)
    doc["signature"]["value"] = signer.sign(unsigned(doc))
    return doc


def test_a_changed_by_breaks_the_chain_and_a_rechained_one_is_named(client, played, signer):
    created, moved = played
    doc = client.get(f"/games/{created['game_id']}/export").get_json()
    ann_move, ben_move = moved["Ann"][0], moved["Ben"][0]
    # Fail to change who moved without the chain showing it.
    edited = copy.deepcopy(doc)
    edited["events"][ann_move - 1]["by"] = "host"
    problems = verify(edited, [signer.public_pem], check_signature).problems
    assert problems[-1]["code"] == "chain_broken" and problems[-1]["version"] == ann_move
    # Check a seat's move and the host's are both a command's sender: re-chained, it verifies.
    verdict = verify(forged(doc, signer, ann_move, "host"), [signer.public_pem], check_signature)
    assert verdict.valid, verdict.problems
    # Fail to pass off a move as a bot's where no bot plays, a follow-up as a seat's, a move as
    # the server's, or an event without `by` after events with one.
    for version, by, code in ((ben_move, "bot", "by_mismatch"), (ben_move, "server", "by_mismatch"),
                              (2, "seat", "by_mismatch"), (ben_move, None, "by_mismatch"),
                              (len(doc["events"]), "seat", "by_mismatch"),
                              (ann_move, "arbiter", "chain_broken")):
        verdict = verify(forged(doc, signer, version, by), [signer.public_pem], check_signature)
        assert not verdict.valid
        assert (verdict.problems[0]["code"], verdict.problems[0]["version"]) == (code, version), \
            (version, by, verdict.problems)


def test_a_bot_seat_is_recorded_in_the_creation_and_its_moves_are_the_bots(tmp_path):
    # The rules alone: a bot seat's move sent as the bot's, a person's as the seat's.
    cls = game_class("vampir")
    game = cls.start(["Ann", "Ben", "Cy"], seed=3, salt="5a" * 32, bots={"Cy": "random"})
    assert game.bot_may_play("Cy") and not game.bot_may_play("Ann")
    rng = random.Random(3)
    while not game.finished:
        player = game.to_act[0]
        game.execute(player, rng.choice(game.legal_moves(player)),
                     by="bot" if player == "Cy" else "seat")
    events = game.collect_events()
    assert events[0].bots == {"Cy": "random"}
    commands = [e for e in events if type(e).__name__ in cls.COMMAND_EVENTS]
    assert {e.by for e in commands if e.player == "Cy"} == {"bot"}
    assert {e.by for e in commands if e.player != "Cy"} == {"seat"}
    # Fail to move as the bot for a seat no bot plays.
    game = cls.start(["Ann", "Ben", "Cy"], seed=3, salt="5a" * 32, bots={"Cy": "random"})
    player = game.to_act[0]
    if player != "Cy":
        with pytest.raises(Exception, match="bot"):
            game.execute(player, game.legal_moves(player)[0], by="bot")
