"""The signing key ring: a rotated key still verifies what it signed; `gruft key` shows the id."""

from __future__ import annotations

import json
import random

from cli import main
from service.audit.signing import KEY_FILE, RETIRED_DIR, SigningKey, key_id
from tests.kit import SHORT_OPTIONS, play_over_rest, seats


def test_a_key_id_is_the_sha256_of_the_der_public_key(tmp_path):
    import hashlib

    from cryptography.hazmat.primitives import serialization

    key = SigningKey.load_or_create(tmp_path)
    der = serialization.load_pem_public_key(key.public_pem.encode()).public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert key.key_id == key_id(key.public_pem) == hashlib.sha256(der).hexdigest()


def test_rotation_keeps_the_old_public_key_on_the_ring(tmp_path):
    old = SigningKey.load_or_create(tmp_path)
    new = SigningKey.rotate(tmp_path)
    # Check a new key signs, and the retired one's public half alone is kept, still trusted.
    assert new.key_id != old.key_id
    assert new.ring == [new.public_pem, old.public_pem]
    assert (tmp_path / RETIRED_DIR / f"{old.key_id}.pem").read_text() == old.public_pem
    assert "PRIVATE" not in (tmp_path / RETIRED_DIR / f"{old.key_id}.pem").read_text()
    assert SigningKey.load_or_create(tmp_path).key_id == new.key_id  # kept across restarts


def test_documents_signed_before_a_rotation_still_verify_and_import(sqlite_env, tmp_path,
                                                                  make_app):
    app = make_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    client = app.test_client()
    key = "vampiring"
    created = client.post("/games", json={"game": key, "players": seats(key), "seed": 5,
                                          "options": SHORT_OPTIONS[key]}).get_json()
    play_over_rest(client, created, random.Random(5))
    document = client.get(f"/games/{created['game_id']}/export").get_json()

    # Check the rotated server (a new app, as after a restart) still trusts the old signature.
    from service.settings import data_dir, storage_env

    SigningKey.rotate(data_dir(storage_env(sqlite_env)))
    rotated = make_app({"TESTING": True, "GRUFT_ENV": sqlite_env}).test_client()
    assert rotated.get("/signing-key").get_json()["key"] != document["signature"]["key"]
    verdict = rotated.post("/replays/verify", json=document).get_json()
    assert verdict["valid"], verdict["problems"]

    # Fail to verify with a key that was never on the ring: the signature is not trusted (a
    # server of its own, on its own store: this store's key is not in that data folder).
    stranger = make_app({"TESTING": True, "GRUFT_ENV": {
        **sqlite_env, "SQLITE_DBNAME": str(tmp_path / "elsewhere.sqlite"),
        "GRUFT_DATA_DIR": str(tmp_path / "elsewhere")}}).test_client()
    assert not stranger.post("/replays/verify", json=document).get_json()["valid"]


def test_gruft_key_shows_and_rotates(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GRUFT_DATA_DIR", str(tmp_path))
    db = str(tmp_path / "games.sqlite")
    assert main(["key", "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["key_id"] == SigningKey.load_or_create(tmp_path).key_id
    assert shown["retired"] == []
    assert main(["key", "--db", db, "--rotate"]) == 0
    text = capsys.readouterr().out
    new = SigningKey.load_or_create(tmp_path)
    assert text.startswith(f"key_id {new.key_id} (new)")
    assert f"retired, still trusted: {shown['key_id']}" in text
    assert (tmp_path / KEY_FILE).exists()
