"""`gruft log check` against a served gruft: a kept checkpoint, the log growing, and an operator
who rewrites a logged game caught; `gruft verify` naming a retired key offline."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess

from domain.core import canonical
from service import Games
from service.audit.merkle import leaf_hash
from service.audit.signing import SigningKey
from tests.kit import GRUFT, call, served_gruft, wait_until
from tests.service.storage.kit import advance, new_game


def store_finished_games(env: dict[str, str], seeds: range) -> list[str]:
    games = Games(env=env)
    ended = []
    for seed in seeds:
        game_id = new_game(games, "vampir", seed=seed)
        advance(games, game_id, random.Random(seed), 5000)
        ended.append(str(game_id))
    games.close()
    return ended


def gruft(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(GRUFT), *argv], capture_output=True, text=True, timeout=120)


def logged(port: int, size: int) -> bool:
    return call(port, "GET", "/log/checkpoint")[1]["size"] == size


def test_a_monitor_sees_the_log_grow_and_catches_a_rewritten_game(sqlite_env, tmp_path):
    # A store that predates the log: its two games over are logged when the server starts.
    store_finished_games(sqlite_env, range(1, 3))
    kept = tmp_path / "kept.json"
    with served_gruft(sqlite_env, tmp_path / "serve.log") as port:
        wait_until(lambda: logged(port, 2), "the games over to be logged")
        kept.write_text(json.dumps(call(port, "GET", "/log/checkpoint")[1]))
        server = f"http://127.0.0.1:{port}"
        # Check an unchanged log is consistent with itself.
        same = gruft("log", "check", str(kept), "--server", server)
        assert same.returncode == 0, same.stdout + same.stderr
        assert "from 2 games to 2" in same.stdout
    store_finished_games(sqlite_env, range(3, 4))
    with served_gruft(sqlite_env, tmp_path / "serve.log") as port:
        wait_until(lambda: logged(port, 3), "the third game to be logged")
        server = f"http://127.0.0.1:{port}"
        grown = gruft("log", "check", str(kept), "--server", server)
        assert grown.returncode == 0, grown.stdout + grown.stderr
        assert "only grew, from 2 games to 3" in grown.stdout

    # The operator rewrites the first game (its last event now hashes otherwise) and, to make
    # its export carry a proof again, its leaf; then serves on with the same key.
    with sqlite3.connect(sqlite_env["SQLITE_DBNAME"]) as db:
        game_id, version = db.execute(
            "SELECT game_id, version FROM gruft_game_log WHERE idx = 0").fetchone()
        leaf = {"game_id": game_id, "version": version, "hash": "0" * 64}
        db.execute("UPDATE gruft_game_log SET hash = ?, leaf_hash = ? WHERE idx = 0",
                   ("0" * 64, leaf_hash(canonical(leaf).encode()).hex()))
    with served_gruft(sqlite_env, tmp_path / "serve.log") as port:
        caught = gruft("log", "check", str(kept), "--server", f"http://127.0.0.1:{port}")
        # Check the monitor says so, with both signed checkpoints as its evidence.
        assert caught.returncode == 1, caught.stdout + caught.stderr
        assert caught.stdout.startswith("CAUGHT: the log of 2 games you kept is not a prefix")
        assert "kept:" in caught.stdout and "current:" in caught.stdout
        # Fail to check against nothing there, or a file that is no checkpoint: exit 2.
        (tmp_path / "nothing.json").write_text("[]")
        assert gruft("log", "check", str(tmp_path / "nothing.json"),
                     "--server", f"http://127.0.0.1:{port}").returncode == 2
    gone = gruft("log", "check", str(kept), "--server", f"http://127.0.0.1:{port}")
    assert gone.returncode == 2 and "cannot check" in gone.stderr


def test_update_keeps_the_newer_checkpoint(sqlite_env, tmp_path):
    store_finished_games(sqlite_env, range(1, 2))
    kept = tmp_path / "kept.json"
    with served_gruft(sqlite_env, tmp_path / "serve.log") as port:
        wait_until(lambda: logged(port, 1), "the game to be logged")
        checkpoint = call(port, "GET", "/log/checkpoint")[1]
        kept.write_text(json.dumps({**checkpoint, "size": 0, "root": checkpoint["root"]}))
        # Check a checkpoint whose signature does not match is the server's fault shown: 1.
        forged = gruft("log", "check", str(kept), "--server", f"http://127.0.0.1:{port}")
        assert forged.returncode == 1 and "signature does not match" in forged.stdout
        # Fail a checkpoint naming a key twice (issue 32, item 10): read as documents are, it
        # cannot be checked (2), whichever `size` another reader would have taken.
        kept.write_text(json.dumps(checkpoint)[:-1] + f', "size": {checkpoint["size"]}}}')
        twice = gruft("log", "check", str(kept), "--server", f"http://127.0.0.1:{port}")
        assert twice.returncode == 2, twice.stdout + twice.stderr
        assert "'size' appears twice" in twice.stderr
        kept.write_text(json.dumps(checkpoint))
        result = gruft("log", "check", str(kept), "--server", f"http://127.0.0.1:{port}",
                       "--update")
        assert result.returncode == 0, result.stdout + result.stderr
        assert json.loads(kept.read_text())["size"] == 1


def test_gruft_verify_names_a_retired_key(sqlite_env, tmp_path, make_app):
    from replays.document import unsigned
    from service.settings import data_dir, storage_env
    from tests.api.test_game_log import finished_game

    app = make_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    client = app.test_client()
    game = finished_game(client)
    logged_doc = tmp_path / "logged.json"
    logged_doc.write_text(json.dumps(client.get(f"/games/{game['game_id']}/export").get_json()))
    unlogged = client.get(f"/games/{game['game_id']}/export").get_json()
    unlogged.pop("log")
    # The same document without its log part, signed by the same (soon retired) key.
    unlogged["signature"]["value"] = app.extensions["gruft"].signing_key.sign(unsigned(unlogged))
    (tmp_path / "unlogged.json").write_text(json.dumps(unlogged))

    SigningKey.rotate(data_dir(storage_env(sqlite_env)))
    rotated = make_app({"TESTING": True, "GRUFT_ENV": sqlite_env}).test_client()
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps(rotated.get("/signing-keys").get_json()))
    # Check offline: a retired key, the game proven in the log before it was retired: valid,
    # and the key named retired.
    ok = gruft("verify", str(logged_doc), "--key", str(keys))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "RETIRED key" in ok.stdout
    # Fail a document of the retired key with no proof that its game is in the log.
    bad = gruft("verify", str(tmp_path / "unlogged.json"), "--key", str(keys))
    assert bad.returncode == 1 and "[retired_key]" in bad.stdout, bad.stdout
