"""No log line holds a token (issue 23, item 6). The probe: gunicorn's error log printed a whole
request line, `?token=` included, when the line held a control character."""

from __future__ import annotations

import socket

from serving.error_log import redact
from tests.kit import call, served_gruft, wait_until

SECRET = "Zq7SECRETtokenVALUE"
# Requests gunicorn cannot parse, each carrying the secret where a client might put it.
MALFORMED = [
    f"GET /games/x/play?token={SECRET}\x01x HTTP/1.1\r\nHost: a\r\n\r\n",
    f"GET /games/x/play?token={SECRET}\x7f HTTP/1.1\r\nHost: a\r\n\r\n",
    f"GET /games/x/play?token={SECRET} HTTP/1.1\x01\r\nHost: a\r\n\r\n",
    f"GET /games/x/play?token={SECRET} HTTP/1.1\r\nHost: a\r\nBad\x01Header: {SECRET}\r\n\r\n",
    f"GET /x?a=1&token={SECRET}\x00 HTTP/1.1\r\nAuthorization: Bearer {SECRET}\r\n\r\n",
    f"GET /games/x/play?invite={SECRET}\x7f HTTP/1.1\r\nHost: a\r\n\r\n",  # a code
]


def test_redact_leaves_no_token():
    for text in [f"'GET /p?token={SECRET} HTTP/1.1'", f"token={SECRET}", f"Bearer {SECRET}",
                 f"/games/1/stream?after=3&token={SECRET}", f"invite={SECRET}",
                 f'{{"code": "x", "code=": 1}} code={SECRET}']:
        assert SECRET not in redact(text), redact(text)


def test_no_line_of_a_served_log_holds_a_token(sqlite_env, tmp_path):
    log = tmp_path / "serve.log"
    with served_gruft(sqlite_env, log) as port:
        for line in MALFORMED:
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(line.encode("latin-1"))
                sock.recv(4096)  # gunicorn's 400
        # And well-formed requests carrying it, in the query string and the header.
        call(port, "GET", f"/games/00000000-0000-0000-0000-000000000000/play?token={SECRET}")
        call(port, "GET", "/games", token=SECRET)
        # Check gunicorn logged the bad requests, and no line holds the secret.
        wait_until(lambda: log.read_text().count("Invalid request") >= 3, "gunicorn's warnings")
        assert SECRET not in log.read_text()
