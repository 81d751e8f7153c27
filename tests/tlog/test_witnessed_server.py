"""The server witnessed (issue 35, items 4 and 5): each new checkpoint submitted to the witnesses
of GRUFT_WITNESSES off the request path, GET /log/tlog/checkpoint serving the newest one cosigned
by enough, exports carrying it, auditors counting the log proof only under it, the split view
caught, and a witness down or refusing blocking nothing."""

from __future__ import annotations

import http.client
import json
import subprocess
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from api import create_app
from cli import main
from service.audit.tlog import (
    ED25519,
    checkpoint_text,
    parse_checkpoint,
    parse_note,
    parse_vkey,
    raw_public,
    verified_by,
    vkey,
)
from service.audit.witness import witness_vkey
from service.settings import Settings, SettingsError
from tests.api.test_game_log import finished_game
from tests.kit import wait_until
from tests.replays.test_log_check import store_finished_games
from tests.tlog.conftest import serving


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def command(capsys):
    """`gruft <argv>` run in this process (the command line's own parser and code): quicker
    than a process a call on a machine this busy."""
    def run(*argv: str) -> Ran:
        capsys.readouterr()
        code = main(list(argv))
        out = capsys.readouterr()
        return Ran(code, out.out, out.err)
    return run


def server_vkey(env: dict[str, str]) -> str:
    """The log's verifier key, from a first start of the server on this store."""
    app = create_app({"TESTING": True, "GRUFT_ENV": env})
    try:
        return app.test_client().get("/signing-keys").get_json()["keys"][-1]["vkey"]
    finally:
        app.extensions["gruft"].close()


def cosigned_size(client) -> int:
    answer = client.get("/log/tlog/checkpoint")
    if answer.status_code != 200:
        return -1
    return parse_checkpoint(parse_note(answer.get_data(as_text=True))[0]).size


def test_the_log_is_witnessed_and_auditors_count_only_a_cosigned_proof(sqlite_env, tmp_path,
                                                                        witness, capsys,
                                                                        gocheck):
    gruft = command(capsys)
    store_finished_games(sqlite_env, range(1, 2))  # a game over before the witness is named
    log_vkey = server_vkey(sqlite_env)
    state = tmp_path / "witness"
    w_vkey = witness_vkey(state)
    with witness([log_vkey], state) as url:
        env = {**sqlite_env, "GRUFT_WITNESSES": f"{url}={w_vkey}"}
        app = create_app({"TESTING": True, "GRUFT_ENV": env})
        try:
            client = app.test_client()
            wait_until(lambda: cosigned_size(client) == 1, "the first checkpoint cosigned")
            played = finished_game(client, "vampir", seed=3)
            wait_until(lambda: cosigned_size(client) == 2, "the second checkpoint cosigned")
            # Check the note carries the log's signature and the witness's cosignature.
            note = client.get("/log/tlog/checkpoint").get_data(as_text=True)
            text, signatures = parse_note(note)
            good, bad = verified_by(text, signatures, [parse_vkey(log_vkey), parse_vkey(w_vkey)])
            assert len(good) == 2 and not bad
            # Check the export carries the cosigned checkpoint with its proof, and the JSON
            # log part as before; the server verifies it.
            document = client.get(f"/games/{played['game_id']}/export").get_json()
            assert document["log_witnessed"]["checkpoint"] == note
            assert document["log_witnessed"]["index"] == document["log"]["index"] == 1
            assert client.post("/replays/verify", json=document).get_json()["valid"]
            # Check /readyz and /metrics say the witness is not behind.
            ready = client.get("/readyz").get_json()
            assert ready["status"] == "ready"
            assert [(w["cosigned"], w["behind"], w["error"]) for w in ready["witnesses"]] == [
                (2, 0, None)]
            name = w_vkey.split("+")[0]
            metrics = client.get("/metrics").get_data(as_text=True)
            assert f'gruft_witness_behind_games{{witness="{name}"}} 0.0' in metrics
            assert "gruft_log_witnessed_size 2.0" in metrics

            # An auditor: the proof counts under the witness it trusts...
            doc, keys = tmp_path / "doc.json", tmp_path / "keys.json"
            doc.write_text(json.dumps(document))
            keys.write_text(json.dumps(client.get("/signing-keys").get_json()))
            trusted = gruft("verify", str(doc), "--key", str(keys), "--witness", w_vkey)
            assert trusted.returncode == 0, trusted.stdout + trusted.stderr
            # ...not when it wants a second witness that did not cosign (all by default),
            other = witness_vkey(tmp_path / "other-witness")
            both = gruft("verify", str(doc), "--key", str(keys), "--witness", w_vkey,
                         "--witness", other, "--json")
            assert both.returncode == 1
            problems = json.loads(both.stdout)["problems"]
            assert [p["code"] for p in problems] == ["log_unwitnessed"]
            assert "cosigned by 1 of the witnesses given, 2 needed" in problems[0]["message"]
            one = gruft("verify", str(doc), "--key", str(keys), "--witness", w_vkey,
                        "--witness", other, "--witnesses-needed", "1")
            assert one.returncode == 0, one.stdout + one.stderr
            # ...nor for a document without a cosigned checkpoint.
            del document["log_witnessed"]
            doc.write_text(json.dumps(document))
            bare = gruft("verify", str(doc), "--key", str(keys), "--witness", w_vkey)
            assert bare.returncode == 1 and "log_witnessed" in bare.stdout

            # The split view: the operator signs another checkpoint of the same size, another
            # root; the witness refuses it (409) and holds the one it cosigned.
            key = app.extensions["gruft"].signing_key
            origin = parse_checkpoint(text).origin
            forged = key.sign_note(checkpoint_text(origin, 2, b"\x07" * 32), origin)
            status, answer = post(url, f"old 2\n\n{forged}")
            assert status == 409 and "split view" in answer
            assert json.loads((state / "state.json").read_text())["logs"][origin]["size"] == 2

            # A monitor keeps the note and checks the log only grew.
            kept = tmp_path / "kept.note"
            kept.write_text(note)
            with serving(app) as base:
                # Go's note reads the cosigned note too (the cosignature a line it ignores).
                checked = subprocess.run([str(gocheck), base + "/log/tlog", log_vkey],
                                         capture_output=True, text=True, timeout=120)
                assert checked.returncode == 0, checked.stderr
                assert json.loads(checked.stdout)["size"] == 2
                same = gruft("log", "check", str(kept), "--server", base)
                assert same.returncode == 0, same.stdout + same.stderr
                assert "from 2 games to 2" in same.stdout
                kept.write_text(forged)  # a note of another history, signed by the log's key
                caught = gruft("log", "check", str(kept), "--server", base)
                assert caught.returncode == 1, caught.stdout + caught.stderr
                assert "CAUGHT" in caught.stdout
        finally:
            app.extensions["gruft"].close()


def post(url: str, body: str) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("POST", "/add-checkpoint", body.encode())
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def test_a_witness_down_or_refusing_blocks_nothing(sqlite_env, tmp_path, witness):
    # A witness that follows another log (404) and one that is not there at all.
    stranger = witness_vkey(tmp_path / "stranger")
    absent = witness_vkey(tmp_path / "absent")
    with witness([stranger_log_vkey()], tmp_path / "stranger") as url:
        env = {**sqlite_env, "GRUFT_WITNESSES": f"{url}={stranger} http://127.0.0.1:9={absent}"}
        app = create_app({"TESTING": True, "GRUFT_ENV": env})
        try:
            client = app.test_client()
            played = finished_game(client, "vampir", seed=4)  # play goes on
            document = client.get(f"/games/{played['game_id']}/export").get_json()
            assert "log" in document and "log_witnessed" not in document
            answer = client.get("/log/tlog/checkpoint")
            assert answer.status_code == 503 and answer.headers["Retry-After"]

            def both_failed() -> bool:
                witnesses = client.get("/readyz").get_json().get("witnesses", [])
                return len(witnesses) == 2 and all(w["error"] for w in witnesses)

            wait_until(both_failed, "both witnesses to have failed once")
            ready = client.get("/readyz")
            assert ready.status_code == 200
            witnesses = ready.get_json()["witnesses"]
            assert [w["behind"] for w in witnesses] == [1, 1]
            assert "404" in witnesses[0]["error"]
            assert 'gruft_witness_failing{witness="' in client.get("/metrics").get_data(
                as_text=True)
        finally:
            app.extensions["gruft"].close()


def stranger_log_vkey() -> str:
    """The vkey of a log that is not the server's."""
    return vkey("another.example/log", ED25519, raw_public(Ed25519PrivateKey.generate()))


def test_the_witnesses_setting_takes_url_vkey_pairs_of_witness_keys():
    witness_key = vkey("w.example/1", 0x04, raw_public(Ed25519PrivateKey.generate()))
    read = Settings.read({"GRUFT_WITNESSES": f" https://w.example/1/={witness_key}  ",
                          "GRUFT_WITNESSES_NEEDED": "1"})
    assert read.witnesses == (("https://w.example/1", witness_key),)
    assert Settings.read({}).witnesses == ()
    for bad in (f"ftp://w.example={witness_key}", "https://w.example=not-a-vkey",
                f"https://w.example={stranger_log_vkey()}",  # a log's key (0x01), not a witness's
                witness_key):
        with pytest.raises(SettingsError, match="GRUFT_WITNESSES="):
            Settings.read({"GRUFT_WITNESSES": bad})
