"""GET /metrics: Prometheus metrics (issue 23, item 9), as operators expect.

What each process counts (service/operator_metrics.py: commands and refusals by ruling, streams and long
polls open, runners, the follower's position) is summed over gunicorn's workers by
prometheus_client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR, set by `gruft serve`); what
the store holds (the log's head, the read models' position) is read by the worker answering.
The lags follow from both. Nothing here is secret: counts by game kind and ruling, no game id,
name or token.

Every HTTP request is counted here too (issue 31, item 8): `gruft_http_requests_total` and the
histogram `gruft_http_request_duration_seconds`, by method, route and status. The route is the
URL rule (`/games/<game_id>/commands`), never the path, so no game id becomes a label and the
series stay few; a request no route matched is `route="unmatched"`. The time is until the
answer's head leaves (a live stream's is its opening, not how long it stayed open).
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from api.errors import GruftBlueprint
from api.games import games
from api.reads import read_models
from api.worker import worker

blp = GruftBlueprint("metrics", __name__, description="Prometheus metrics")
REQUESTS = Counter("gruft_http_requests", "HTTP requests answered, by method, route (the URL "
                   "rule, not the path) and status", ["method", "route", "status"])
LATENCY = Histogram("gruft_http_request_duration_seconds", "Time to answer HTTP requests (until "
                    "the answer's head leaves), by method, route and status",
                    ["method", "route", "status"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))


def init_app(app: Flask) -> None:
    """Count every request the app answers, with its time."""

    @app.before_request
    def start_clock() -> None:
        g.gruft_metrics_started = time.perf_counter()

    @app.after_request
    def count(response: Response) -> Response:
        started = g.get("gruft_metrics_started")
        rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
        labels = (request.method, rule, str(response.status_code))
        REQUESTS.labels(*labels).inc()
        if started is not None:
            LATENCY.labels(*labels).observe(time.perf_counter() - started)
        return response

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
    yield from witness_metrics()
    samples = {s.name: s.value for family in counted for s in family.samples}
    if "gruft_follower_position" in samples:
        yield gauge("gruft_follower_lag_notifications",
                    "Notifications stored that the follower furthest behind has not handed on",
                    max(0, head - samples["gruft_follower_position"]))
    caught_up = samples.get("gruft_follower_caught_up_timestamp_seconds")
    if caught_up:
        yield gauge("gruft_follower_lag_seconds", "Since the follower furthest behind last "
                    "had handed on everything", max(0.0, time.time() - caught_up))


def witness_metrics() -> Iterator[Metric]:
    """How far behind the log each of its witnesses is (this worker's submissions)."""
    witnessing = worker().witnessing
    if not witnessing.witnesses:
        return
    behind = GaugeMetricFamily("gruft_witness_behind_games", "Games logged since the largest "
                               "log size the witness cosigned", labels=["witness"])
    cosigned = GaugeMetricFamily("gruft_witness_cosigned_size", "The largest log size the "
                                 "witness cosigned", labels=["witness"])
    failing = GaugeMetricFamily("gruft_witness_failing", "Whether the witness's last submission "
                                "failed", labels=["witness"])
    for witness in witnessing.status():
        behind.add_metric([witness["name"]], witness["behind"])
        cosigned.add_metric([witness["name"]], witness["cosigned"])
        failing.add_metric([witness["name"]], 1 if witness["error"] else 0)
    found = witnessing.cosigned()
    yield from (behind, cosigned, failing)
    yield gauge("gruft_log_witnessed_size", "The size of the newest checkpoint cosigned by "
                "GRUFT_WITNESSES_NEEDED witnesses (0: none)", found[0] if found else 0)


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
