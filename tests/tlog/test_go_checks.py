"""The game log's C2SP checkpoint note, tiles and entry bundles checked by Go's own
transparency-log code (golang.org/x/mod/sumdb/note and sumdb/tlog, tests/tlog/gocheck), and
agreeing with the JSON endpoints that stay (issue 35, items 1, 2 and 6)."""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from api import create_app
from domain.core import canonical
from service.audit import tlog
from service.audit.gamelog import leaf_bytes, leaf_of
from service.audit.merkle import leaf_hash
from tests.kit import wait_until
from tests.replays.test_log_check import store_finished_games
from tests.tlog.conftest import serving


def add_leaves(game_log, count: int) -> list[dict]:
    """`count` more leaves written straight into the log's table (as its appender writes them):
    a log past one tile without playing 300 games."""
    position = game_log._position()
    leaves = [leaf_of(str(uuid.uuid4()), 7, f"{i:064x}") for i in range(count)]
    rows = [{**leaf, "leaf_hash": leaf_hash(leaf_bytes(leaf)).hex(), "position": position + 1 + i,
             "ended_at": datetime.now(UTC).isoformat()} for i, leaf in enumerate(leaves)]
    assert game_log._append(rows, position) == count
    return leaves


def go(gocheck, url: str, vkey: str, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(gocheck), url + "/log/tlog", vkey, *more], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def big_log(tmp_path_factory):
    """An app whose log holds 2 games played and then 598 more leaves: 2 full tiles and a
    partial one at level 0, a partial one at level 1 (one for the module: it only reads)."""
    root = tmp_path_factory.mktemp("big_log")
    sqlite_env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                  "SQLITE_DBNAME": str(root / "games.sqlite"), "GRUFT_DATA_DIR": str(root / "data")}
    played = store_finished_games(sqlite_env, range(1, 3))
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    client = app.test_client()
    wait_until(lambda: client.get("/log/checkpoint").get_json()["size"] == 2, "2 games logged")
    kept = client.get("/log/checkpoint").get_json()
    leaves = [client.get(f"/log/proof/{g}").get_json()["leaf"] for g in played]
    leaves += add_leaves(app.extensions["gruft"].game_log, 598)
    yield app, kept, leaves
    app.extensions["gruft"].close()


def test_go_s_tlog_reads_and_proves_the_whole_log_from_tiles(gocheck, big_log):
    app, kept, leaves = big_log
    client = app.test_client()
    vkey = client.get("/signing-keys").get_json()["keys"][-1]["vkey"]
    checkpoint = client.get("/log/checkpoint").get_json()
    with serving(app) as url:
        checked = go(gocheck, url, vkey, str(kept["size"]))
    assert checked.returncode == 0, checked.stderr
    found = json.loads(checked.stdout)
    # Check Go's reading agrees with the JSON checkpoint, and with the kept one of size 2
    # (proved a prefix by tlog.CheckTree), and every entry is the leaf gruft logged.
    assert (found["origin"], found["size"]) == (checkpoint["origin"], 600)
    assert base64.b64decode(found["root"]).hex() == checkpoint["root"]
    assert base64.b64decode(found["old_root"]).hex() == kept["root"]
    assert found["entries"] == [canonical(leaf) for leaf in leaves]


def test_go_s_note_refuses_the_checkpoint_under_another_key(gocheck, big_log):
    # Check the Go checker checks: the note is refused under another key of the log's name.
    app, _kept, _leaves = big_log
    vkey = app.test_client().get("/signing-keys").get_json()["keys"][-1]["vkey"]
    other = tlog.vkey(vkey.split("+")[0], tlog.ED25519,
                      tlog.raw_public(Ed25519PrivateKey.generate()))
    with serving(app) as url:
        refused = go(gocheck, url, other)
        assert refused.returncode == 1 and "note.Open" in refused.stderr
        assert go(gocheck, url, vkey).returncode == 0


def test_the_note_agrees_with_the_json_checkpoint_and_the_keys_have_vkeys(big_log):
    app, _kept, _leaves = big_log
    client = app.test_client()
    answer = client.get("/log/tlog/checkpoint")
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "text/plain; charset=utf-8"
    checkpoint = client.get("/log/checkpoint").get_json()
    text, _blank, signature = answer.get_data(as_text=True).rpartition("\n\n")
    assert text.split("\n") == [checkpoint["origin"], "600",
                                base64.b64encode(bytes.fromhex(checkpoint["root"])).decode()]
    [key] = client.get("/signing-keys").get_json()["keys"]
    name, key_id, public = key["vkey"].split("+", 2)
    assert name == checkpoint["origin"] and signature.startswith(f"\u2014 {name} ")
    assert base64.b64decode(signature.split(" ")[2])[:4].hex() == key_id
    assert base64.b64decode(public)[0] == 0x01
    # Check the JSON endpoints kept their shapes.
    assert set(checkpoint) == {"origin", "size", "root", "timestamp", "key_id", "signature"}
    assert set(key) == {"key_id", "key", "from", "until", "vkey"}


@pytest.mark.parametrize(("path", "status", "cache"), [
    ("/log/tlog/tile/0/000", 200, "immutable"), ("/log/tlog/tile/0/001", 200, "immutable"),
    ("/log/tlog/tile/0/002.p/88", 200, "max-age=10"), ("/log/tlog/tile/1/000.p/2", 200,
                                                       "max-age=10"),
    ("/log/tlog/tile/entries/001", 200, "immutable"),
    ("/log/tlog/tile/entries/002.p/88", 200, "max-age=10"),
    ("/log/tlog/tile/0/002", 404, None), ("/log/tlog/tile/0/002.p/89", 404, None),
    ("/log/tlog/tile/1/000", 404, None), ("/log/tlog/tile/entries/003.p/1", 404, None),
    ("/log/tlog/tile/0/x000/001", 404, None), ("/log/tlog/tile/0/1", 404, None),
    ("/log/tlog/tile/64/000.p/1", 404, None)])
def test_tiles_and_their_cache_headers(big_log, path, status, cache):
    answer = big_log[0].test_client().get(path)
    assert answer.status_code == status
    if status == 200:
        assert answer.headers["Content-Type"] == "application/octet-stream"
        assert cache in answer.headers["Cache-Control"]
        width = 88 if ".p/88" in path else 2 if ".p/2" in path else 256
        if "entries" not in path:
            assert len(answer.data) == 32 * width


def test_tiles_and_entries_on_every_store(storage_env, gocheck):
    # Check the tiles and the entry bundle are read from the log's table on SQLite and on
    # PostgreSQL alike, and Go's tlog proves them.
    [game_id] = store_finished_games(storage_env, range(5, 6))
    app = create_app({"TESTING": True, "GRUFT_ENV": storage_env})
    try:
        client = app.test_client()
        wait_until(lambda: client.get("/log/checkpoint").get_json()["size"] == 1, "logged")
        leaf = client.get(f"/log/proof/{game_id}").get_json()["leaf"]
        entries = client.get("/log/tlog/tile/entries/000.p/1").data
        assert entries == len(canonical(leaf)).to_bytes(2, "big") + canonical(leaf).encode()
        assert client.get("/log/tlog/tile/0/000.p/1").data == leaf_hash(leaf_bytes(leaf))
        vkey = client.get("/signing-keys").get_json()["keys"][-1]["vkey"]
        with serving(app) as url:
            checked = go(gocheck, url, vkey)
        assert checked.returncode == 0, checked.stderr
        assert json.loads(checked.stdout)["entries"] == [canonical(leaf)]
    finally:
        app.extensions["gruft"].close()
