"""Every server a test starts ends with the test (issue 30, item 5): stopped on the way out,
and ended by the kernel when the test's own process dies without running its `finally` (an
xdist worker that crashed left its gunicorn, master and two workers, serving after the whole
suite had ended)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

from tests.kit import wait_until

ROOT = Path(__file__).resolve().parents[2]
# A test process that starts a two-worker server and then waits, until it is killed.
STARTER = """\
import json, sys, threading
from pathlib import Path
from tests.kit import served_gruft
with served_gruft(json.loads(sys.argv[1]), Path(sys.argv[2]), workers=2):
    print("up", flush=True)
    threading.Event().wait()
"""


def children(pid: int) -> set[int]:
    """The living processes whose parent is `pid`."""
    found = set()
    for entry in Path("/proc").iterdir():
        with suppress(OSError, ValueError):
            if entry.name.isdigit():
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    found.add(int(entry.name))
    return found


def descendants(pid: int) -> set[int]:
    """The living processes below `pid`, at any depth."""
    below = children(pid)
    for child in list(below):
        below |= descendants(child)
    return below


def alive(pid: int) -> bool:
    with suppress(OSError):
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    return False


def test_a_server_ends_when_the_test_process_that_started_it_dies(sqlite_env, tmp_path):
    starter = subprocess.Popen([sys.executable, "-c", STARTER, json.dumps(sqlite_env),
                                str(tmp_path / "serve.log")], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    served: set[int] = set()
    try:
        assert starter.stdout.readline() == "up\n", (tmp_path / "serve.log").read_text()
        # gunicorn's master and its two workers (and what they run)
        wait_until(lambda: len(descendants(starter.pid)) >= 3, "the master and its workers")
        served = descendants(starter.pid)
    finally:
        starter.send_signal(signal.SIGKILL)  # no `finally` runs in it: as a crash
        starter.wait()
    try:
        # Check every process it served with ends without it.
        wait_until(lambda: not any(alive(pid) for pid in served), "the server to end")
    finally:
        for pid in served:  # a failed check leaves nothing serving either
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

