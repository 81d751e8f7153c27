"""Fixtures of the C2SP tests (issue 35): Go's checker built once a session, a served gruft app
on a real socket, and `gruft witness serve` as a process of its own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from tests.kit import start_gruft, stop, wait_until

GOCODE = Path("/usr/share/gocode")  # Debian's golang-golang-x-mod-dev lays x/mod out here
GO_SOURCE = Path(__file__).parent / "gocheck" / "main.go"


@pytest.fixture(scope="session")
def gocheck(tmp_path_factory) -> Path:
    """tests/tlog/gocheck built against Debian's golang.org/x/mod, offline, in GOPATH mode."""
    go = shutil.which("go")
    if go is None or not (GOCODE / "src/golang.org/x/mod/sumdb/tlog").is_dir():
        pytest.skip("Go or golang.org/x/mod is missing (apt-get install golang-go "
                    "golang-golang-x-mod-dev, or run scripts/test.sh)")
    out = tmp_path_factory.mktemp("gocheck") / "gocheck"
    env = {**os.environ, "GO111MODULE": "off", "GOFLAGS": "", "GOPROXY": "off",
           "GOPATH": f"{out.parent / 'gopath'}{os.pathsep}{GOCODE}"}
    built = subprocess.run([go, "build", "-o", str(out), str(GO_SOURCE)], env=env,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    return out


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """The app on a real socket of 127.0.0.1 (a thread of this process); its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        thread.join()


LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+)")


@contextmanager
def witness_process(state: Path, follow: list[str], log: Path) -> Iterator[str]:
    """`gruft witness serve --port 0` following these vkeys; its URL once it listens, stopped
    (SIGINT) on the way out."""
    argv = ["witness", "serve", "--state", str(state), "--port", "0"]
    for key in follow:
        argv += ["--follow", key]
    proc = start_gruft(argv, {}, log)
    try:
        def listening() -> bool:
            assert proc.poll() is None, log.read_text()
            return LISTENING.search(log.read_text()) is not None

        wait_until(listening, f"the witness to listen (its log: {log})")
        port = LISTENING.findall(log.read_text())[-1]
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.fixture
def witness(tmp_path) -> Callable[..., Any]:
    """witness(follow, state=...) -> a context manager of a witness process's URL."""
    started = []

    def start(follow: list[str], state: Path | None = None):
        started.append(1)
        return witness_process(state or tmp_path / "witness", follow,
                               tmp_path / f"witness-{len(started)}.log")
    return start
