"""Hostile input against a real `gruft serve` (issue 16): gunicorn de-chunks bodies itself, so
the chunked-body bound is checked on a served process, as is a start-up that cannot work."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess

import pytest

from bench.servers import listening_socket
from tests.kit import GRUFT, served_gruft


def raw_request(port: int, head: str, chunks=(), timeout: float = 30) -> tuple[int, dict]:
    """Send a request (its body in chunks) and read the answer, even one sent before the body
    was all sent (a server refusing an oversized body answers and closes)."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    answer = b""
    try:
        conn.sendall(head.encode("latin-1"))
        for chunk in chunks:
            if select.select([conn], [], [], 0)[0]:
                break  # the server answered already
            try:
                conn.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < length(answer):
            data = conn.recv(65536)
            if not data:
                break
            answer += data
    except ConnectionResetError:
        pass
    finally:
        conn.close()
    head_text, _, body = answer.partition(b"\r\n\r\n")
    status = int(head_text.split()[1])
    return status, json.loads(body or b"null")


def length(answer: bytes) -> int:
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 30


def chunked_post(port: int, path: str, size: int) -> tuple[int, dict]:
    body = b'{"game": "' + b"x" * (size - 12) + b'"}'
    piece = 64 * 1024
    chunks = (b"%x\r\n%s\r\n" % (len(body[i:i + piece]), body[i:i + piece])
              for i in range(0, len(body), piece))
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    return raw_request(port, head, [*chunks, b"0\r\n\r\n"])


def test_a_chunked_body_over_the_bound_is_413_when_served(sqlite_env, tmp_path):
    from api.inputs import MAX_BODY_BYTES, MAX_DOCUMENT_BYTES

    with served_gruft(sqlite_env, tmp_path / "serve.log") as port:
        # Fail to send a 5 MiB body chunked (no Content-Length): 413, not "Invalid JSON body".
        status, body = chunked_post(port, "/games", 5 << 20)
        assert status == 413 and body["error"]["code"] == "payload_too_large", body
        status, body = chunked_post(port, "/replays/verify", MAX_DOCUMENT_BYTES + (1 << 20))
        assert status == 413 and body["error"]["code"] == "payload_too_large", body
        # Check a chunked body within the bound is read whole: a schema error, not a size one.
        status, body = chunked_post(port, "/games", MAX_BODY_BYTES // 2)
        assert status == 400 and "Must be one of" in body["error"]["message"], body
        status, body = raw_request(port, "GET /games HTTP/1.1\r\nHost: x\r\n"
                                   "Connection: close\r\n\r\n")
        assert status == 200 and body["games"] == []


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_persistence_module_is_a_clear_error_at_start(tmp_path, value):
    # PERSISTENCE_MODULE set but empty made eventsourcing pick its in-memory POPOFactory, on
    # which every worker failed to boot; it must fail at once, saying what is wrong.
    env = {**os.environ, "PERSISTENCE_MODULE": value, "GRUFT_DATA_DIR": str(tmp_path / "d")}
    sock = listening_socket()
    try:  # a server that hangs instead of stopping fails at the timeout
        done = subprocess.run([str(GRUFT), "serve", "--fd", str(sock.fileno()), "--workers", "1"],
                              env=env, capture_output=True, text=True, timeout=60,
                              pass_fds=(sock.fileno(),))
    finally:
        sock.close()
    assert done.returncode != 0
    assert "PERSISTENCE_MODULE" in done.stderr + done.stdout, done.stderr[-2000:]


def test_an_app_built_on_an_empty_persistence_module_says_why(tmp_path):
    # gunicorn run by hand (not through `gruft serve`): the worker's error names the setting.
    from api import create_app
    from service.settings import SettingsError

    with pytest.raises(SettingsError, match="PERSISTENCE_MODULE is set but empty"):
        create_app({"GRUFT_ENV": {"PERSISTENCE_MODULE": "", "GRUFT_DATA_DIR": str(tmp_path)}})
