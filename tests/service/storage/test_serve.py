"""`gruft serve --workers 2` end to end, on SQLite and on PostgreSQL.

A real gunicorn with two workers, each building its own Application after the fork: both
serve one signing key (created race-safely at start), and clients racing over HTTP get 200 or a
409 in the contract's error shape, with every version won once and the chain intact; a read
after a write sees it whichever worker answers.
"""

from __future__ import annotations

import http.client
import itertools
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization

from domain import available_games
from service.audit.signing import KEY_FILE, public_pem
from tests.kit import SHORT_OPTIONS, call, seats, served_gruft, wait_until
from tests.service.storage.kit import run_threads

CLIENTS = 4
EXTRA = 10  # versions the clients add to each game


@pytest.fixture
def server(storage_env, tmp_path) -> Iterator[dict[str, Any]]:
    """`gruft serve --workers 2` on the storage under test; its port, data dir and log."""
    access = tmp_path / "access.log"
    env = {**storage_env,
           # The worker's pid on every access line (path only, no query string), to see that
           # both workers answered; no control socket, which every gunicorn on the machine
           # would otherwise share at ~/.gunicorn/gunicorn.ctl; a kept-alive connection kept
           # while a test holds it (`pinned`), not gunicorn's default 2 s.
           "GUNICORN_CMD_ARGS": f"--no-control-socket --access-logfile {access} "
                                "--access-logformat 'pid=%(p)s \"%(m)s %(U)s\" %(s)s' "
                                "--keep-alive 600"}
    with served_gruft(env, tmp_path / "serve.log", workers=2) as port:
        yield {"port": port, "data_dir": Path(storage_env["GRUFT_DATA_DIR"]), "log": access}


def worker_pids(log: Path, request_line: str) -> set[str]:
    """The workers that answered requests whose line contains `request_line`."""
    return {m.group(1) for m in re.finditer(r"pid=<?(\d+)>? \"([^\"]*)\"", log.read_text())
            if request_line in m.group(2)}


def pinned(server: dict[str, Any], workers: int = 2) -> list[http.client.HTTPConnection]:
    """A kept-alive connection to each worker of the server: its requests all go to the worker
    that accepted it. Which worker accepts a new connection is the kernel's choice (both wake,
    the first to run takes it), so connections are opened until every worker holds one."""
    held: dict[str, http.client.HTTPConnection] = {}
    for probe in itertools.count():
        conn = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=30)
        conn.request("GET", f"/games/pin-{probe}")  # 404: its access line names the worker
        conn.getresponse().read()
        wait_until(lambda p=probe: worker_pids(server["log"], f"/games/pin-{p}"),
                   "the worker's access line")
        (pid,) = worker_pids(server["log"], f"/games/pin-{probe}")
        if pid in held or probe > 200:
            conn.close()
        else:
            held[pid] = conn
        if len(held) == workers or probe > 200:
            return list(held.values())
    raise AssertionError("not reached")


def command_on(conn: http.client.HTTPConnection, gid: str, body: dict[str, Any],
               token: str) -> tuple[int, Any]:
    """POST a command on a kept-alive connection."""
    conn.request("POST", f"/games/{gid}/commands", json.dumps(body),
                 {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    answer = conn.getresponse()
    return answer.status, json.loads(answer.read() or b"null")


def check_signing_key(server: dict[str, Any]) -> None:
    """Every answer of every worker carries the one key kept (0600) in the data dir."""
    keys = {call(server["port"], "GET", "/signing-key")[1]["key"] for _ in range(12)}
    path = server["data_dir"] / KEY_FILE
    private = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert keys == {public_pem(private.public_key())}
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in server["data_dir"].iterdir() if KEY_FILE in p.name] == [KEY_FILE]


def race(port: int, games: list[dict[str, Any]], seed: int,
         conn: http.client.HTTPConnection | None = None) -> list[dict[str, Any]]:
    """A client: random legal commands with expected_version until each game reaches its cap
    (sent on `conn`, one worker's, if given; else each on a connection of its own)."""
    import random

    rng, outcomes = random.Random(seed), []
    for created in games:
        gid, host = created["game_id"], created["host_token"]
        while True:
            status, view = call(port, "GET", f"/games/{gid}")
            assert status == 200, view
            if view["status"] == "finished" or view["version"] >= created["cap"]:
                break
            player = rng.choice(sorted(view["to_act"]))
            status, moves = call(port, "GET", f"/games/{gid}/legal-moves?player={player}",
                                 token=host)
            if status != 200 or not moves["moves"]:
                continue  # the game moved on between the two reads
            body = {**rng.choice(moves["moves"]), "player": player,
                    "expected_version": view["version"]}
            if conn is None:
                status, answer = call(port, "POST", f"/games/{gid}/commands", body, token=host)
            else:
                status, answer = command_on(conn, gid, body, host)
            outcomes.append({"game_id": gid, "status": status, "answer": answer})
            if status == 200:
                # Check a read right after the write sees it, whichever worker answers.
                seen = call(port, "GET", f"/games/{gid}")[1]["version"]
                assert seen >= answer["version"]
    return outcomes


def check_log_over_http(port: int, created: dict[str, Any], wins: list[dict[str, Any]]) -> None:
    """The stored log: versions without gaps, each won once as answered, the chain intact."""
    gid, host = created["game_id"], created["host_token"]
    status, doc = call(port, "GET", f"/games/{gid}/export", token=host)
    assert status == 200, doc
    events = doc["events"]
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    prev = doc["seed_commitment"]
    for event in events:
        assert event["prev_hash"] == prev
        prev = event["hash"]
    told = {}
    for win in wins:
        for event in win["answer"]["events"]:
            assert event["version"] not in told
            told[event["version"]] = event
    stored = [e for e in events if e["version"] > created["first"]]
    assert sorted(told) == [e["version"] for e in stored]
    for event in stored:
        assert {k: event[k] for k in ("version", "type", "timestamp", "by", "shape", "data")
                if k in event} == told[event["version"]]


def test_two_workers_share_the_store_and_the_signing_key(server):
    port = server["port"]
    # Check both workers, started together, serve the one key created in the data dir.
    check_signing_key(server)
    # Create one game of each kind, then let racing clients play them.
    games = []
    for n, key in enumerate(available_games()):
        status, created = call(port, "POST", "/games", {"game": key, "players": seats(key),
                                                         "seed": n, "options": SHORT_OPTIONS[key]})
        assert status == 201, created
        version = created["view"]["version"]
        games.append({**created, "first": version, "cap": version + EXTRA})
    outcomes: list[dict[str, Any]] = []
    lock = threading.Lock()
    # Each worker takes a command first, then two clients send theirs to one worker each, the
    # others anywhere: else the kernel may hand every connection to one worker (it did, now
    # and then, and the check below failed).
    workers = pinned(server)
    assert len(workers) == 2, "a worker accepted no connection of 200"
    for n, conn in enumerate(workers):
        version = call(port, "GET", f"/games/{games[n]['game_id']}")[1]["version"]
        outcomes.extend(race(port, [{**games[n], "cap": version + 1}], n, conn))

    def client(seed: int) -> None:
        got = race(port, games, seed, workers[seed] if seed < len(workers) else None)
        with lock:
            outcomes.extend(got)

    try:
        run_threads([lambda s=s: client(s) for s in range(CLIENTS)])
    finally:
        for conn in workers:
            conn.close()
    # Check every refusal was a 409 in the contract's shape, and nothing else went wrong.
    for outcome in outcomes:
        if outcome["status"] != 200:
            assert outcome["status"] == 409, outcome
            assert outcome["answer"]["error"]["code"] == "conflict"
    for created in games:
        wins = [o for o in outcomes if o["game_id"] == created["game_id"] and o["status"] == 200]
        assert wins
        check_log_over_http(port, created, wins)
    # Check both workers took commands (each with its own Application and cache).
    assert len(worker_pids(server["log"], "/commands")) == 2, server["log"].read_text()[-1000:]
