"""`gruft archive`, `gruft restore` and `gruft backup`, and the drill: serve, play under load, back
up, restore into a fresh store — every game verifies and the read models give the same figures."""

from __future__ import annotations

import json
import os
import random
import subprocess
import threading
from pathlib import Path
from typing import Any

from api import create_app
from domain import available_games
from domain.core import HOST
from replays.archive import document_of, game_ids
from replays.document import verify
from service.audit.signing import check_signature
from tests.kit import GRUFT, SHORT_OPTIONS, call, seats, served_gruft, wait_until

CLIENTS = 3
GAMES_PER_KIND = 2


def gruft(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`gruft <argv>` run to its end (no terminal: no progress lines)."""
    return subprocess.run([str(GRUFT), *argv], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)


def play(port: int, games: list[dict[str, Any]], seed: int, moved: list[int],
         stop: threading.Event) -> None:
    """A client: random legal commands (the host acting for the seat to act) until its games
    are over or `stop` is set; counts each accepted command in `moved`."""
    rng = random.Random(seed)
    live = list(games)
    while live and not stop.is_set():
        game = rng.choice(live)
        gid, host = game["game_id"], game["host_token"]
        status, view = call(port, "GET", f"/games/{gid}")
        if view["status"] != "in_progress":
            live.remove(game)
            continue
        player = rng.choice(view["to_act"])
        status, legal = call(port, "GET", f"/games/{gid}/legal-moves?player={player}", token=host)
        if not legal["moves"]:
            continue
        status, _ = call(port, "POST", f"/games/{gid}/commands",
                         {**rng.choice(legal["moves"]), "player": player}, token=host)
        if status == 200:
            moved.append(1)


def any_finished(port: int, games: list[dict[str, Any]]) -> bool:
    """Whether one of `games` is finished (the leaderboards count finished games only)."""
    return any(call(port, "GET", f"/games/{g['game_id']}")[1]["status"] == "finished"
               for g in games)


def figures(db: Path, data: Path) -> dict[str, Any]:
    """The read models of a SQLite store, built afresh from its log: leaderboards and every
    player's statistics; and every game's export, verified against the store's key."""
    return store_figures({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db),
                          "READMODELS_SQLITE_DBNAME": str(db.with_suffix(".rebuilt.views.sqlite")),
                          "GRUFT_DATA_DIR": str(data)})


def store_figures(env: dict[str, str]) -> dict[str, Any]:
    """`figures` of the store `env` names."""
    app = create_app({"TESTING": True, "GRUFT_ENV": {**env, "GRUFT_BOTS": "external"}})
    try:
        client, store = app.test_client(), app.extensions["gruft"].games
        boards = {k: client.get(f"/leaderboard?game={k}").get_json() for k in available_games()}
        names = sorted({p["player"] for b in boards.values() for p in b["players"]})
        stats = {n: client.get(f"/players/{n}/stats").get_json() for n in names}
        key = app.extensions["gruft"].signing_key
        verdicts = {}
        with app.app_context():
            for gid in game_ids(store):
                document = document_of(store, key, app.extensions["gruft"].game_log, gid)
                verdict = verify(document, trusted_keys=[key.public_pem],
                                 check_signature=check_signature)
                verdicts[str(gid)] = (verdict.valid, document["status"], verdict.problems)
        return {"leaderboards": boards, "stats": stats, "games": verdicts}
    finally:
        app.extensions["gruft"].close()


def test_the_drill_backup_under_load_then_restore_into_a_fresh_store(sqlite_env, tmp_path):
    data = Path(sqlite_env["GRUFT_DATA_DIR"])
    with served_gruft(sqlite_env, tmp_path / "serve.log", workers=2) as port:
        made = []
        for key in available_games():
            for _ in range(GAMES_PER_KIND):
                status, created = call(port, "POST", "/games", {
                    "game": key, "players": seats(key), "options": SHORT_OPTIONS[key]})
                assert status == 201, created
                made.append(created)
        moved: list[int] = []
        stop = threading.Event()
        clients = [threading.Thread(target=play, args=(port, made[i::CLIENTS], i, moved, stop))
                   for i in range(CLIENTS)]
        for client in clients:
            client.start()
        try:
            # Check a backup taken while the clients play is a store as it stood at one moment,
            # one in which a game is finished, so the leaderboards compared below are not empty.
            wait_until(lambda: len(moved) >= 60 and any_finished(port, made),
                       "the clients to have played 60 commands and finished a game", every=0.1)
            backup = tmp_path / "backup.sqlite"
            done = gruft("backup", str(backup), env=sqlite_env)
            assert done.returncode == 0, done.stderr
            assert len(moved) > 60 or all(not c.is_alive() for c in clients)
        finally:
            stop.set()
            for client in clients:
                client.join()
    # Archive the backup, and restore the archive into a fresh store with the same keys.
    archive = tmp_path / "archive.jsonl"
    done = gruft("archive", str(archive), "--db", str(backup), env={"GRUFT_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr  # no progress lines without a terminal
    lines = archive.read_text("utf-8").splitlines()
    assert len(lines) == len(made)
    fresh = tmp_path / "fresh.sqlite"
    tokens = tmp_path / "tokens.jsonl"
    done = gruft("restore", str(archive), "--db", str(fresh), "--tokens", str(tokens),
                 env={"GRUFT_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    assert f"{len(made)} restored, 0 already there, 0 refused" in done.stderr
    assert {json.loads(t)["game_id"] for t in tokens.read_text().splitlines()} == {
        m["game_id"] for m in made}
    # Check every game of the backup and of the restored store verifies, the restored ones
    # under their own ids, and the read models rebuilt from each give the same figures.
    backed, restored = figures(backup, data), figures(fresh, data)
    assert set(backed["games"]) == set(restored["games"]) == {m["game_id"] for m in made}
    assert all(valid for valid, _, _ in backed["games"].values()), backed["games"]
    assert restored["games"] == backed["games"]
    assert restored["leaderboards"] == backed["leaderboards"]
    assert restored["stats"] == backed["stats"]
    assert any(b["players"] for b in backed["leaderboards"].values())
    # Check a second restore skips every game already there and stores nothing.
    done = gruft("restore", str(archive), "--db", str(fresh), env={"GRUFT_DATA_DIR": str(data)})
    assert done.returncode == 0 and f"0 restored, {len(made)} already there" in done.stderr


def test_restore_refuses_a_forged_line_and_goes_on(sqlite_env, tmp_path):
    from service import Games
    from tests.kit import play_out

    games = Games(env=sqlite_env)
    try:
        for i, key in enumerate(("vampir", "vampiring")):
            new = games.create_game(key, seats(key), seed=i, options=SHORT_OPTIONS[key])
            play_out(games, new.game_id, random.Random(i))
    finally:
        games.close()
    env = {"GRUFT_DATA_DIR": sqlite_env["GRUFT_DATA_DIR"]}
    archive = tmp_path / "archive.jsonl"
    for status, expected in (("in_progress", 0), ("finished", 2)):
        done = gruft("archive", str(archive), "--db", sqlite_env["SQLITE_DBNAME"],
                     "--status", status, env=env)
        assert done.returncode == 0 and len(archive.read_text().splitlines()) == expected
    first, second = archive.read_text("utf-8").splitlines()
    forged = json.loads(first)
    forged["final"]["scores"] = {p: 99 for p in forged["final"]["scores"]}
    archive.write_text("\n".join([json.dumps(forged), "not json", second]) + "\n", "utf-8")
    fresh = tmp_path / "fresh.sqlite"
    # Fail to restore the forged line and the broken one; the good one is restored.
    done = gruft("restore", str(archive), "--db", str(fresh), env=env)
    assert done.returncode == 1
    assert "1 restored, 0 already there, 2 refused" in done.stderr
    assert "line 1: game " in done.stderr and "signature" in done.stderr
    assert "line 2: not a JSON document" in done.stderr


def test_progress_is_shown_on_a_terminal_only(sqlite_env, tmp_path):
    import pty

    from service import Games

    games = Games(env=sqlite_env)
    try:
        games.create_game("vampir", seats("vampir"), seed=1, options=SHORT_OPTIONS["vampir"])
    finally:
        games.close()
    env = {**os.environ, "GRUFT_DATA_DIR": sqlite_env["GRUFT_DATA_DIR"]}
    argv = [str(GRUFT), "archive", str(tmp_path / "a.jsonl"), "--db", sqlite_env["SQLITE_DBNAME"]]
    # Check stderr on a terminal shows the progress, rewritten in place...
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(argv, env=env, stderr=follower, stdout=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL, timeout=120)
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal is closed: everything was read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0
    assert b"\rgruft archive: 1 of 1 games read" in shown
    # ...and never in a file or a pipe.
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "of 1 games read" not in done.stderr


def test_the_drill_on_postgresql_pg_dump_under_load_then_pg_restore(postgres_env, tmp_path):
    # docs/deployment.md, "Backups, archives and restores": pg_dump while gruft serves, then
    # pg_restore into an empty database.
    schema, data = postgres_env["POSTGRES_SCHEMA"], Path(postgres_env["GRUFT_DATA_DIR"])
    connect = ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]
    dump, restored_db = tmp_path / "gruft.dump", f"gruft_restore_{schema}"
    with served_gruft(postgres_env, tmp_path / "serve.log", workers=2) as port:
        made = []
        for key in available_games():
            status, created = call(port, "POST", "/games", {
                "game": key, "players": seats(key), "options": SHORT_OPTIONS[key]})
            assert status == 201, created
            made.append(created)
        moved: list[int] = []
        stop = threading.Event()
        clients = [threading.Thread(target=play, args=(port, made[i::2], i, moved, stop))
                   for i in range(2)]
        for client in clients:
            client.start()
        try:
            wait_until(lambda: len(moved) >= 40, "the clients to have played 40 commands")
            done = subprocess.run(["pg_dump", *connect, "--format=custom", f"--file={dump}",
                                   f"--schema={schema}", "test"], capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, done.stderr
        finally:
            stop.set()
            for client in clients:
                client.join()
    subprocess.run(["createdb", *connect, restored_db], check=True, timeout=60)
    try:
        done = subprocess.run(["pg_restore", *connect, "--no-owner", f"--dbname={restored_db}",
                               str(dump)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        # Check every game of the restored database verifies, and an archive of it restored
        # into a fresh SQLite store gives the same games and the same read models' figures.
        restored_env = {**postgres_env, "POSTGRES_DBNAME": restored_db}
        restored = store_figures(restored_env)
        assert set(restored["games"]) == {m["game_id"] for m in made}
        assert all(valid for valid, _, _ in restored["games"].values()), restored["games"]
        archive = tmp_path / "archive.jsonl"
        done = gruft("archive", str(archive), env=restored_env)
        assert done.returncode == 0, done.stderr
        fresh = tmp_path / "fresh.sqlite"
        done = gruft("restore", str(archive), "--db", str(fresh), env={"GRUFT_DATA_DIR": str(data)})
        assert done.returncode == 0, done.stderr
        again = figures(fresh, data)
        assert again["games"] == restored["games"]
        assert again["leaderboards"] == restored["leaderboards"]
        assert again["stats"] == restored["stats"]
    finally:
        subprocess.run(["dropdb", *connect, "--force", restored_db], timeout=60)


def test_a_restored_game_keeps_its_id_annotations_and_bot_seats(sqlite_env, tmp_path):
    import io

    from replays.archive import archive, restore
    from service import Games
    from service.audit.gamelog import GameLog
    from service.audit.signing import SigningKey
    from service.settings import data_dir

    games = Games(env=sqlite_env)
    key = SigningKey.load_or_create(data_dir(games.storage))
    players = seats("vampiring")
    try:
        new = games.create_game("vampiring", players, seed=2, options=SHORT_OPTIONS["vampiring"],
                                bots={players[1]: "random"})
        games.arbiter.annotate(new.game_id, HOST, 0, "before anything", "note")
        out = io.StringIO()
        assert archive(games, key, GameLog(games, key), out) == 1
    finally:
        games.close()
    fresh = Games(env={**sqlite_env, "SQLITE_DBNAME": str(tmp_path / "fresh.sqlite")})
    try:
        counts, refused = restore(fresh, key, out.getvalue().splitlines())
        assert counts == {"restored": 1, "skipped": 0, "refused": 0} and refused == []
        # Check the game is back under its own id, with its note and its bot seat.
        assert fresh.game(new.game_id).players == players
        assert fresh.access.bot_seats(new.game_id) == {players[1]: "random"}
        assert [a["text"] for a in fresh.arbiter.annotation_records(fresh.game(new.game_id))] == [
            "before anything"]
    finally:
        fresh.close()


def test_restore_applies_imports_rule_for_a_retired_key(sqlite_env, tmp_path):
    """Issue 32, item 5: a made-up game signed with a leaked retired key, dated after the
    rotation, was refused by verify and import but restored, served, re-exported as verified
    under the current key, and led the leaderboard."""
    import shutil

    from replays.document import unsigned
    from service import Games
    from service.audit.signing import SigningKey
    from tests.kit import play_out

    data = Path(sqlite_env["GRUFT_DATA_DIR"])
    env = {"GRUFT_DATA_DIR": str(data)}
    db = sqlite_env["SQLITE_DBNAME"]

    def stored(seed: int, finished: bool) -> str:
        games = Games(env=sqlite_env)
        try:
            new = games.create_game("vampiring", seats("vampiring"), seed=seed,
                                    options=SHORT_OPTIONS["vampiring"])
            if finished:
                play_out(games, new.game_id, random.Random(seed))
            return str(new.game_id)
        finally:
            games.close()

    def archived(path: Path) -> dict[str, dict]:
        assert gruft("archive", str(path), "--db", db, env=env).returncode == 0
        return {json.loads(line)["game_id"]: json.loads(line) for line in path.read_text().splitlines()}

    logged, playing = stored(1, True), stored(2, False)
    before = archived(tmp_path / "before.jsonl")  # signed by the key about to retire
    shutil.copy(data / "signing-key.pem", tmp_path / "signing-key.pem")  # leaked later
    leaked = SigningKey.load_or_create(tmp_path)
    assert gruft("key", "--rotate", env=env).returncode == 0
    # The probe's forgery: a game played after the rotation, re-signed with the leaked key.
    made_up = stored(3, True)
    forged = archived(tmp_path / "after.jsonl")[made_up]
    forged.pop("log", None)
    forged["signature"] = {"alg": "ed25519", "key": leaked.public_pem,
                           "value": leaked.sign(unsigned(forged))}
    lines = [before[logged], before[playing], forged]
    (tmp_path / "restore.jsonl").write_text("\n".join(json.dumps(d) for d in lines) + "\n")
    fresh = tmp_path / "fresh.sqlite"
    done = gruft("restore", str(tmp_path / "restore.jsonl"), "--db", str(fresh), env=env)
    # Check only the game its own log proof shows over before the rotation is restored; the
    # game in play then and the made-up one are refused as retired_key (a retired key vouches
    # for nothing new), nothing stored of them.
    assert done.returncode == 1, done.stderr
    assert "1 restored, 0 already there, 2 refused" in done.stderr
    assert "line 2: " in done.stderr and "line 3: " in done.stderr
    assert done.stderr.count("retired") >= 2
    restored = Games(env={**sqlite_env, "SQLITE_DBNAME": str(fresh)})
    try:
        assert [str(g) for g in game_ids(restored)] == [logged]
        # Check the restored game keeps the key it came with as its origin's signer: its export
        # is never presented as the current key's own game.
        origin = restored.arbiter.origin(restored.repository.game(logged))
        assert origin == {"game_id": logged, "key_id": leaked.key_id}
    finally:
        restored.close()
