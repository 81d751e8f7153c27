"""A projection runner that kills itself (SIGKILL) inside the transaction of its n-th game event.

Run by test_crash.py as `python -m tests.service.readmodels.crashing_runner N` with the storage in
the environment. The n-th event's view statements have run, its tracking record has not, and
nothing of its batch is committed: the runner dies exactly between an event and the view's
update. Batches are kept small here so that earlier batches are committed before it dies.
"""

from __future__ import annotations

import os
import signal
import sys

from service.readmodels import run
from service.readmodels.views import ReadModelView

crash_at = int(sys.argv[1])
applied = 0
original = ReadModelView.apply_in


def apply_in_then_die(self, c, update, *batch):  # noqa: ANN001, ANN002, ANN201 - a test double
    """Run the event's statements; at the n-th, report it and die before the commit."""
    global applied
    original(self, c, update, *batch)
    applied += 1
    if applied == crash_at:
        print(f"dying at {update.position} {update.game_id} {update.version}", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


ReadModelView.apply_in = apply_in_then_die
run({**os.environ, "READMODELS_BATCH": "40"}, once=True, lock_wait=30)
print("not killed", flush=True)
