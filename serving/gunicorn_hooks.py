"""gunicorn's hooks for `gruft serve` (`--config python:serving.gunicorn_hooks`).

Prometheus' multiprocess mode (GET /metrics, api/metrics.py) keeps each worker's values in files
under PROMETHEUS_MULTIPROC_DIR: a worker that exits (a restart, a crash) is marked dead so its
gauges of open streams and running runners stop counting (its counters keep counting, as they
should), and a folder `gruft serve` made for itself is removed when the server stops.
"""

from __future__ import annotations

import os
import shutil

OWNED = "GRUFT_METRICS_DIR_OWNED"  # set by `gruft serve` when it made the folder itself


def child_exit(server, worker) -> None:
    """A worker exited: its live gauges no longer count."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, folder)


def on_exit(server) -> None:
    """The server stops: a metrics folder it made for itself goes with it."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder and os.environ.get(OWNED) == folder:
        shutil.rmtree(folder, ignore_errors=True)
