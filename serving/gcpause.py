"""Short garbage-collection pauses in a served worker.

A full collection (generation 2) walks every tracked object of the process and holds the GIL
meanwhile: with 1,000 open streams and the games' caches, one took 160-210 ms, freezing every
stream and command of the worker (measured with gc.callbacks; it was the streams' p99,
docs/performance.md). After each full collection its survivors are frozen (gc.freeze), so the
next one walks only what came since. Frozen objects are never collected, so a cycle among them
that later becomes garbage would stay: every GRUFT_GC_UNFREEZE seconds (default 600) they are
unfrozen, and the next full collection looks at everything once more.
"""

from __future__ import annotations

import gc
import time
from typing import Any

UNFREEZE_SECONDS = 600.0


def install(unfreeze_every: float = UNFREEZE_SECONDS) -> None:
    """Freeze what the worker holds now, and the survivors of every full collection."""
    since = [time.monotonic()]

    def after_full(phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        now = time.monotonic()
        if now - since[0] >= unfreeze_every:
            since[0] = now
            gc.unfreeze()  # the next full collection walks everything, cycles among them too
        else:
            gc.freeze()

    gc.callbacks.append(after_full)
    gc.freeze()  # the modules, the app and its caches as built: they live as long as the worker
