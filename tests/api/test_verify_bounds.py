"""What verifying a document may take (issue 23, item 1): about ten times its size in memory, a
bounded number at once per worker (503 past it) and per address (429), off the request threads.

The probe: twelve concurrent 8 MiB bodies of `[{},{},…]` took two workers from 0.35 to 4.9 GB."""

from __future__ import annotations

import http.client
import json
import random
import threading
import tracemalloc
import uuid
from contextlib import nullcontext, suppress
from pathlib import Path

import pytest

from api.inputs import MAX_DOCUMENT_BYTES, BodyError, parse
from api.verdicts import verify_body
from domain import game_class
from tests.api.test_contract import assert_error
from tests.kit import call, played_document, served_gruft

MIB = 1 << 20
RATIO = 10  # the goal: at most about ten times the document's size
ALLOWANCE = 256 << 10  # a small body's fixed costs (api.inputs.COST_ALLOWANCE)


def dense(item: bytes, size: int) -> bytes:
    """A JSON list of `item`s, about `size` bytes long."""
    return b"[" + b",".join([item] * (size // (len(item) + 1))) + b"]"


# The probe's body and its relatives: as many small values as the bytes allow. Those that would
# cost more than the bound once read are refused unread; the others are read within it.
REFUSED = [b"{}", b"[]", b"1.5", b'"ab"', b'{"a":1}', b"[[[]]]", b'""']
READ = [b"12345", b"true", b'"a string of some length"']


def peak_of(work) -> int:
    """The most memory `work()` held at once (tracemalloc's peak), in bytes."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def document_of(app, players: int = 12, phases: int = 20) -> dict:
    """A long Vampire Queen game played out and exported with the app's key."""
    game = game_class("vampire-queen").start([f"P{i}" for i in range(players)], seed="s",
                                             options={"phases": phases})
    return played_document(game, random.Random(3), app.extensions["gruft"].signing_key)


@pytest.mark.parametrize("item", REFUSED + READ)
def test_reading_a_body_costs_at_most_ten_times_its_size(item):
    body = dense(item, MIB)

    def read() -> None:
        # Fail to read a body whose values would cost more than ten times its size; read the
        # others within that.
        refused = pytest.raises(BodyError, match="more JSON values than its size allows")
        with refused if item in REFUSED else nullcontext():
            parse(body)

    assert peak_of(read) <= RATIO * len(body) + ALLOWANCE


def test_an_export_verifies_within_ten_times_its_size(app):
    document = document_of(app)
    body = json.dumps(document).encode()
    ring = app.extensions["gruft"].signing_key.ring
    # Check the verdict, and what it took.
    verdicts = []
    peak = peak_of(lambda: verdicts.append(verify_body(body, ring)))
    assert [kind for kind, _ in verdicts] == ["ok"] and verdicts[0][1].verdict["valid"], verdicts
    assert peak <= RATIO * len(body), (peak, len(body))


def test_the_probes_body_is_refused_unread(client):
    body = dense(b"{}", MAX_DOCUMENT_BYTES - 16)
    for path in ("/replays/verify", "/games/import"):
        # Fail to verify or import 8 MiB of `[{},{},…]`: 400, before parsing it.
        error = assert_error(client.post(path, data=body, content_type="application/json"),
                             400, "bad_request")
        assert "values" in error["message"], error
    # Check nothing was stored.
    assert client.get("/games").get_json()["games"] == []


def test_past_the_workers_bound_a_503_and_past_the_addresss_a_429(app, client):
    body = json.dumps(document_of(app, players=3, phases=2)).encode()
    gate = app.extensions["gruft"].verifier.gate
    for path in ("/replays/verify", "/games/import"):
        with gate.slot("127.0.0.1"):
            # Fail to verify a second document at once from the same address: 429.
            answer = client.post(path, data=body, content_type="application/json")
            assert_error(answer, 429, "rate_limited")
            assert answer.headers["Retry-After"] == "1"
        others = [gate.slot(f"10.0.0.{i}") for i in range(gate.capacity)]
        for slot in others:
            slot.__enter__()
        try:
            # Fail to verify while the worker holds all it takes: 503.
            answer = client.post(path, data=body, content_type="application/json")
            assert_error(answer, 503, "unavailable")
            assert answer.headers["Retry-After"] == "1"
        finally:
            for slot in others:
                slot.__exit__(None, None, None)
        # Check it is answered once a place is free.
        assert client.post(path, data=body, content_type="application/json").status_code in (
            200, 201)
    assert gate.held == 0


def rerun_threads(monkeypatch) -> list[str]:
    """The threads of this process that re-run a document through the rules (the cost of a
    verification, replays.document._rerun), as it happens: a spy, the rules run as ever."""
    import replays.document

    threads: list[str] = []
    rerun = replays.document._rerun

    def spied(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return rerun(*args, **kwargs)

    monkeypatch.setattr(replays.document, "_rerun", spied)
    return threads


def test_an_import_is_verified_once_in_the_pool_never_on_the_request_thread(app, client,
                                                                           monkeypatch):
    document = document_of(app, players=3, phases=2)
    threads = rerun_threads(monkeypatch)
    answer = client.post("/games/import", json=document)
    # Check the import stored the game re-run in the verifying process: its copy tells the
    # same game (the same events and result) under a new id...
    assert answer.status_code == 201, answer.get_json()
    copy = client.get(f"/games/{answer.get_json()['game_id']}/export").get_json()
    assert copy["game_id"] != document["game_id"] and copy["final"] == document["final"]
    assert [e["type"] for e in copy["events"]] == [e["type"] for e in document["events"]]
    # ... and no thread of the worker re-ran the rules (they ran once, in the pool).
    assert threads == [], threads
    assert app.extensions["gruft"].verifier.processes == 1


@pytest.mark.app_config(GRUFT_VERIFY_PROCESSES=0)
def test_without_a_pool_an_import_is_verified_once(app, client, monkeypatch):
    document = document_of(app, players=3, phases=2)
    threads = rerun_threads(monkeypatch)
    # Check a valid document is re-run once, stored; a forged one once, refused.
    assert client.post("/games/import", json=document).status_code == 201
    assert len(threads) == 1, threads
    forged = {**document, "final": {**document["final"], "winners": []}}
    assert_error(client.post("/games/import", json=forged), 422, "invalid_replay")
    assert len(threads) == 2, threads


def marked_rss(mark: str) -> tuple[int, int]:
    """The resident memory of the processes whose environment carries `mark`, in bytes: the
    server's (gunicorn's master and workers) in all, and the largest verifying process's.

    A worker's child that is neither is one between its fork and its exec (a verifying process
    being spawned): it shares the worker's memory, which the kernel counts again in its RSS."""
    marked: dict[int, tuple[int, int, bool]] = {}  # pid: (parent, rss, spawned)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark.encode() not in (entry / "environ").read_bytes():
                continue
            status = dict(line.split(":", 1) for line in (entry / "status").read_text()
                          .splitlines())
            spawned = b"multiprocessing" in (entry / "cmdline").read_bytes()
        except OSError:  # gone, or not ours
            continue
        marked[int(entry.name)] = (int(status["PPid"]), int(status["VmRSS"].split()[0]) * 1024,
                                   spawned)
    masters = {pid for pid, (parent, _, _) in marked.items() if parent not in marked}
    server = sum(rss for pid, (parent, rss, spawned) in marked.items()
                 if pid in masters or (parent in masters and not spawned))
    verifying = max((rss for _, rss, spawned in marked.values() if spawned), default=0)
    return server, verifying


def post(port: int, path: str, body: bytes) -> tuple[int, str | None]:
    """POST a raw body on a connection of its own: (status, Retry-After)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        # Refused before the body was read (429, 503): the answer is there to read all the same.
        with suppress(BrokenPipeError, ConnectionResetError):
            conn.request("POST", path, body, {"Content-Type": "application/json",
                                              "Connection": "close"})
        answer = conn.getresponse()
        answer.read()
        return answer.status, answer.getheader("Retry-After")
    finally:
        conn.close()


def test_a_served_flood_of_verifications_leaves_memory_and_bystanders_alone(app, sqlite_env,
                                                                           tmp_path):
    # Every process of the server (workers, verifying processes) inherits this mark.
    value = uuid.uuid4().hex
    legit = json.dumps(document_of(app)).encode()
    hostile = dense(b"{}", MAX_DOCUMENT_BYTES - 16)
    env = {**sqlite_env, "GRUFT_TEST_MARK": value}
    with served_gruft(env, tmp_path / "serve.log", workers=2) as port:
        status, created = call(port, "POST", "/games", {"game": "vampir", "players": ["A", "B", "C"]})
        assert status == 201, created
        before = marked_rss(value)[0]
        answers: list[tuple[int, str | None]] = []
        peak = [before, 0]

        def attack() -> None:
            for body in (hostile, legit, hostile, legit):
                answers.append(post(port, "/replays/verify", body))
                peak[:] = map(max, peak, marked_rss(value))

        attackers = [threading.Thread(target=attack) for _ in range(12)]
        for thread in attackers:
            thread.start()
        bystander: list[int] = []
        while any(thread.is_alive() for thread in attackers):
            # Check a bystander is answered all along.
            bystander.append(call(port, "GET", f"/games/{created['game_id']}")[0])
        for thread in attackers:
            thread.join()
    assert set(bystander) == {200}, bystander
    # Check every attacker was answered: verified, refused unread, or told when to come back.
    assert {status for status, _ in answers} <= {200, 400, 429, 503}, answers
    assert all(retry == "1" for status, retry in answers if status in (429, 503)), answers
    assert any(status == 200 for status, _ in answers), answers
    # Check the workers grew by far less than the probe's 4.5 GB, and a verifying process
    # holds little more than its interpreter and ten times the largest document.
    print(f"workers grew by {(peak[0] - before) / MIB:.0f} MiB; a verifying process held at "
          f"most {peak[1] / MIB:.0f} MiB for a {len(legit) / MIB:.1f} MiB document")
    assert peak[0] - before < 100 * MIB, (before, peak[0])
    assert peak[1] < 100 * MIB + RATIO * len(legit), peak
