"""GET /metrics: Prometheus metrics (issue 23, item 9), as operators expect.

What each process counts (service/operator_metrics.py: commands and refusals by ruling, streams and long
polls open, runners, the follower's position) is summed over gunicorn's workers by
prometheus_client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR, set by `gruft serve`); what
the store holds (the log's head, the read models' position) is read by the worker answering.
The lags follow from both. Nothing here is secret: counts by game kind and ruling, no game id,
name or token.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from api.errors import GruftBlueprint
from api.games import games
from api.reads import read_models

blp = GruftBlueprint("metrics", __name__, description="Prometheus metrics")
TEXT = {"description": "Prometheus' text format", "content": {
    "text/plain": {"schema": {"type": "string"}}}}


@blp.route("/metrics")
@blp.doc(responses={200: TEXT})
def metrics():
    """Prometheus metrics of the whole server (every worker's counts summed)."""
    families = list(process_metrics())
    families.extend(store_metrics(families))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Fixed(families))
    return Response(generate_latest(registry), 200,
                    {"Content-Type": "text/plain; version=0.0.4; charset=utf-8",
                     "Cache-Control": "no-store"})


def process_metrics() -> Iterator[Metric]:
    """What the processes counted: every worker's, merged, under gunicorn; else this one's."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        registry = CollectorRegistry()
        Workers(registry, folder)
        return iter(registry.collect())
    return iter(REGISTRY.collect())


class Workers(multiprocess.MultiProcessCollector):
    """prometheus_client's merge of the workers' files, less the files still empty.

    A worker creates its file and only then sizes it, so a scrape in between read 0 bytes and
    failed whole (struct.error: a 500 for every worker's counts); a worker killed in that moment
    would leave its empty file for good. An empty file has counted nothing, so it is skipped
    (prometheus/client_python#1199, open in 0.26).
    """

    def __init__(self, registry: CollectorRegistry, folder: str) -> None:
        super().__init__(registry, path=folder)
        self.folder = folder

    def collect(self) -> Iterable[Metric]:
        return self.merge([file for file in glob.glob(os.path.join(self.folder, "*.db"))
                           if written(file)], accumulate=True)


def written(file: str) -> bool:
    """Whether a worker's file has been sized (a live gauge's file may go as it is looked at)."""
    try:
        return os.path.getsize(file) > 0
    except FileNotFoundError:
        return False


def store_metrics(counted: Iterable[Metric]) -> Iterator[Metric]:
    """The log's head and the lags behind it; `gruft_store_up` 0 when the store is away."""
    up = GaugeMetricFamily("gruft_store_up", "Whether the game store answered this scrape")
    try:
        head = games().recorder.max_notification_id() or 0
        views = read_models().position()
    except Exception:  # an outage: the process's own counts are still worth reading
        up.add_metric([], 0)
        yield up
        return
    up.add_metric([], 1)
    yield up
    yield gauge("gruft_log_head", "The newest notification in the log", head)
    yield gauge("gruft_read_models_lag_notifications",
                "Notifications stored that the read models (game list, statistics) do not "
                "include yet", max(0, head - views))
    samples = {s.name: s.value for family in counted for s in family.samples}
    if "gruft_follower_position" in samples:
        yield gauge("gruft_follower_lag_notifications",
                    "Notifications stored that the follower furthest behind has not handed on",
                    max(0, head - samples["gruft_follower_position"]))
    caught_up = samples.get("gruft_follower_caught_up_timestamp_seconds")
    if caught_up:
        yield gauge("gruft_follower_lag_seconds", "Since the follower furthest behind last "
                    "had handed on everything", max(0.0, time.time() - caught_up))


def gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, documentation)
    family.add_metric([], value)
    return family


class Fixed:
    """A collector answering the metric families it was given."""

    def __init__(self, families: list[Any]) -> None:
        self._families = families

    def collect(self) -> Iterator[Any]:
        return iter(self._families)
