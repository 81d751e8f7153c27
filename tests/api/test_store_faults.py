"""A store that cannot be written (issue 23, item 5): start-up stops with one line saying what,
where and what to do; a running server that loses write access says so in its errors and at
/readyz, and serves again once it is mended, nothing lost.

The probe: on a read-only folder every write was answered "busy, try again" for ever; on a full
disk the cause was buried in 175 lines of tracebacks. A read-only folder and a full disk are
made for real: a read-only bind mount and a small tmpfs (as root), or file modes (as anyone
else, read-only only)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from api import create_app
from tests.kit import GRUFT, call, served_gruft, wait_until

ROOT = os.geteuid() == 0


def mounts_work(tmp_path: Path) -> bool:
    """Whether this process may mount (root in a system that lets it)."""
    if not ROOT:
        return False
    probe = tmp_path / "mount-probe"
    probe.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                          capture_output=True)
    if done.returncode == 0:
        subprocess.run(["umount", str(probe)], check=True)
    return done.returncode == 0


@pytest.fixture
def mounts(tmp_path) -> None:
    if not mounts_work(tmp_path):
        pytest.skip("needs root with mount (a tmpfs of limited size)")


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` read-only for this user while inside."""
    if ROOT:  # modes do not stop root: a read-only bind mount of the folder on itself
        subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True)
            yield
        finally:
            subprocess.run(["umount", "-l", str(folder)], check=True)
        return
    paths = [folder, *folder.iterdir()]
    for path in paths:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        for path in paths:
            path.chmod(0o755 if path.is_dir() else 0o644)


@contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted on `folder` while inside."""
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                   check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Fill the disk `folder` is on; the filler file, to delete to mend it."""
    filler = folder / "filler"
    with filler.open("wb") as out, suppress(OSError):  # ENOSPC: full
        while True:
            out.write(b"\0" * 65536)
            out.flush()
    return filler


def serve_once(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """`gruft serve` on `env`, expected to stop before serving."""
    return subprocess.run([str(GRUFT), "serve", "--port", "0"], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


def store_env(folder: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "GAMES_DB": str(folder / "g.sqlite"),
            "GRUFT_DATA_DIR": str(folder / "data")}


def assert_one_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_serve_on_a_read_only_folder_stops_with_one_line(tmp_path, make_app):
    if ROOT and not mounts_work(tmp_path):
        pytest.skip("root, and no mount: a folder cannot be made read-only")
    folder = tmp_path / "store"
    folder.mkdir()
    env = store_env(folder)
    app = make_app({"TESTING": True, "GRUFT_ENV": env})  # an existing store and key
    assert app.test_client().post("/games", json={"game": "vampir",
                                                  "players": ["A", "B", "C"]}).status_code == 201
    app.extensions["gruft"].close()
    with read_only(folder):
        # Fail to serve: one line naming the folder and what to do, not a traceback.
        line = assert_one_line(serve_once(env, tmp_path), str(folder), "writable")
    assert "Traceback" not in line


def test_serve_on_a_full_disk_stops_with_one_line(mounts, tmp_path):
    with small_disk(tmp_path / "disk", "1m") as disk:
        env = store_env(disk)
        fill(disk)
        # Fail to serve: one line saying the disk is full, where, and what to do.
        assert_one_line(serve_once(env, tmp_path), str(disk), "No space left", "free space")


def test_a_server_that_loses_write_access_says_so_and_recovers(mounts, tmp_path):
    with small_disk(tmp_path / "disk", "16m") as disk, \
            served_gruft(store_env(disk), tmp_path / "serve.log") as port:
        status, created = call(port, "POST", "/games", {"game": "vampir",
                                                        "players": ["A", "B", "C"]})
        assert status == 201, created
        game, tokens = created["game_id"], created["player_tokens"]
        assert call(port, "GET", "/readyz") == (200, {"status": "ready"})
        filler = fill(disk)
        # Check readiness says the store takes no writes, and why.
        status, answer = call(port, "GET", "/readyz")
        assert status == 503 and "No space left" in answer["error"]["message"], answer
        accepted = [0]

        def refused_as_unwritable() -> bool:
            # Play on until a command meets the full disk (the log's file has a little room).
            view = call(port, "GET", f"/games/{game}")[1]
            player = view["to_act"][0]
            moves = call(port, "GET", f"/games/{game}/legal-moves", token=tokens[player])[1]
            status, answer = call(port, "POST", f"/games/{game}/commands",
                                  {**moves["moves"][0], "expected_version": view["version"]},
                                  token=tokens[player])
            if status == 200:
                accepted[0] = answer["version"]
                return False
            # Check it is refused as a store that cannot be written, not a busy one.
            assert status == 503 and answer["error"]["code"] == "unavailable", answer
            assert "cannot be written" in answer["error"]["message"], answer
            return True

        wait_until(refused_as_unwritable, "a command to meet the full disk")
        version = call(port, "GET", f"/games/{game}")[1]["version"]
        filler.unlink()
        # Check it serves again once mended, having lost no accepted command.
        wait_until(lambda: call(port, "GET", "/readyz")[0] == 200, "ready again")
        assert version >= accepted[0]
        view = call(port, "GET", f"/games/{game}")[1]
        player = view["to_act"][0]
        moves = call(port, "GET", f"/games/{game}/legal-moves", token=tokens[player])[1]
        status, answer = call(port, "POST", f"/games/{game}/commands",
                              {**moves["moves"][0], "expected_version": view["version"]},
                              token=tokens[player])
        assert status == 200, answer


def test_a_worker_booting_while_the_store_is_away_waits_for_it(monkeypatch, capsys):
    # A worker that failed to boot would stop gunicorn and every other worker with it: one
    # booting during an outage (or beside a busy SQLite writer) tries again until it can.
    from eventsourcing.persistence import OperationalError

    from serving import wsgi

    monkeypatch.setattr(wsgi, "BOOT_RETRY_SECONDS", 0)
    failures = [OperationalError("connection refused"), sqlite3.OperationalError("database is locked")]

    def build():
        if failures:
            raise failures.pop(0)
        return "the app"

    assert wsgi.build_waiting(build) == "the app"
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and "connection refused" in lines[0] and "locked" in lines[1]


def damage(path: Path, pages: int = 8) -> None:
    """Overwrite `pages` pages spread over an SQLite file with noise (the probe's attack)."""
    size = path.stat().st_size
    with path.open("r+b") as file:
        for k in range(pages):
            file.seek((2 + k * (size // 4096 - 2) // pages) * 4096)
            file.write(os.urandom(4096))


def stored_games(env: dict[str, str], count: int) -> list[str]:
    app = create_app({"TESTING": True, "GRUFT_ENV": env, "GRUFT_CREATE_LIMIT": "0"})
    client = app.test_client()
    ids = [client.post("/games", json={"game": "vampiring", "players": ["Ann", "Ben"],
                                       "seed": n}).get_json()["game_id"] for n in range(count)]
    app.extensions["gruft"].close()
    return ids


def test_serve_on_a_damaged_store_stops_with_one_line(tmp_path):
    """Issue 32, item 7: 8 pages overwritten, and /readyz said 200 while one read in six
    failed and writes went on into the malformed file."""
    env = store_env(tmp_path)
    stored_games({**env, "SQLITE_DBNAME": env["GAMES_DB"]}, 120)
    # Check an intact store serves (the check passes on a healthy file).
    from service.store.health import check_intact
    check_intact({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": env["GAMES_DB"]})
    damage(Path(env["GAMES_DB"]))
    # Fail to serve it: one line naming the file, the damage and what to do.
    line = assert_one_line(serve_once(env, tmp_path), "g.sqlite", "damaged", "backup")
    assert "Traceback" not in line


def test_a_worker_that_meets_a_damaged_page_answers_503_to_everything_after(tmp_path, caplog):
    db = tmp_path / "g.sqlite"
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db),
           "GRUFT_DATA_DIR": str(tmp_path / "data")}
    ids = stored_games(env, 120)
    damage(db)
    app = create_app({"TESTING": True, "PROPAGATE_EXCEPTIONS": False, "GRUFT_ENV": env,
                      "GRUFT_CREATE_LIMIT": "0"})
    client = app.test_client()
    try:
        # Read every game: the first read that meets a damaged page is a 503 saying so (no 500).
        statuses = [client.get(f"/games/{gid}").status_code for gid in ids]
        assert 500 not in statuses and 503 in statuses, statuses
        first = statuses.index(503)
        # Check every request after it is a 503 naming the damage: reads, writes, /readyz.
        assert set(statuses[first:]) == {503}
        for answer in (client.get(f"/games/{ids[0]}"), client.get("/games"),
                       client.post("/games", json={"game": "vampiring", "players": ["A", "B"]}),
                       client.get("/readyz")):
            assert answer.status_code == 503
            assert "damaged" in answer.get_json()["error"]["message"]
            assert answer.headers["Retry-After"]
        # Check the process still says it lives, and its log has one line for it.
        assert client.get("/livez").status_code == 200
        lines = [r for r in caplog.records if "damaged" in r.getMessage()]
        assert len(lines) == 1 and lines[0].levelname == "CRITICAL"
    finally:
        app.extensions["gruft"].close()


def test_a_store_signed_by_a_key_the_server_does_not_hold_stops_start_up(tmp_path):
    """Issue 32, item 7: on another data folder the server made a new key silently, then called
    its own earlier exports untrusted and every kept checkpoint CAUGHT."""
    from service.audit.gamelog import KeyMissing
    from service.audit.signing import SigningKey

    env = store_env(tmp_path)
    app_env = {**env, "SQLITE_DBNAME": env["GAMES_DB"]}
    stored_games(app_env, 1)
    first = SigningKey.load_or_create(Path(env["GRUFT_DATA_DIR"]))
    # Fail to serve the store from another data folder: one line naming the key and where it
    # was looked for, nothing made there silently that would count.
    moved = {**env, "GRUFT_DATA_DIR": str(tmp_path / "elsewhere")}
    line = assert_one_line(serve_once(moved, tmp_path), first.key_id, "elsewhere",
                           "gruft key --adopt")
    assert "Traceback" not in line
    with pytest.raises(KeyMissing, match=first.key_id):
        create_app({"TESTING": True, "GRUFT_ENV": {**app_env, **moved}})
    # Check a rotation is no loss: the retired key stays held, and the store is served.
    SigningKey.rotate(Path(env["GRUFT_DATA_DIR"]))
    create_app({"TESTING": True, "GRUFT_ENV": app_env}).extensions["gruft"].close()
    # Check the operator's explicit step adopts the other folder's key, saying what it drops;
    # the store is served from there after it, and the first folder's keys are the lost ones.
    adopted = subprocess.run([str(GRUFT), "key", "--adopt"], env={**os.environ, **moved},
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert adopted.returncode == 0, adopted.stderr
    assert f"no longer held, dropped: {first.key_id}" in adopted.stdout
    create_app({"TESTING": True, "GRUFT_ENV": {**app_env, **moved}}).extensions["gruft"].close()
    adopted_key = SigningKey.load_or_create(Path(moved["GRUFT_DATA_DIR"])).key_id
    with pytest.raises(KeyMissing, match=adopted_key):  # the first folder lacks the store's key
        create_app({"TESTING": True, "GRUFT_ENV": app_env})
