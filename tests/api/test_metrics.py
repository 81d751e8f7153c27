"""Readiness and metrics (issue 23, item 9): GET /readyz also says when the log's follower is
stuck; GET /metrics serves Prometheus metrics summed over gunicorn's workers (prometheus_client's
multiprocess mode, its folder handled by `gruft serve`)."""

from __future__ import annotations

import http.client
import shutil
import subprocess
import threading
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from api import create_app
from tests.api.test_thread_holds import send, status_of
from tests.kit import call, outside_tool, served_gruft, wait_until


def scrape(port: int) -> dict[tuple[str, tuple], float]:
    """GET /metrics, parsed: (sample name, sorted labels) -> value."""
    status, text = raw(port, "/metrics")
    assert status == 200, text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def raw(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"Connection": "close"})
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def commands_by_process(folder: Path, tmp_path: Path) -> list[float]:
    """The commands each process counted: each file of counts read alone."""
    counted = []
    for file in sorted(folder.glob("counter_*.db")):
        alone = tmp_path / f"alone-{file.stem}"
        alone.mkdir(exist_ok=True)
        shutil.copy(file, alone / file.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        counted.append(sum(s.value for family in registry.collect() for s in family.samples
                           if s.name == "gruft_commands_total"))
    return counted


def value(metrics: dict, name: str, **labels: str) -> float:
    return metrics.get((name, tuple(sorted(labels.items()))), 0.0)


def new_game(port: int) -> tuple[str, dict[str, str]]:
    """A VampiRing game of two seats: its id and the seats' tokens."""
    status, created = call(port, "POST", "/games", {
        "game": "vampiring", "players": ["A", "B"], "options": {"max_turns": 20}})
    assert status == 201, created
    return created["game_id"], created["player_tokens"]


def play(port: int, game: str, tokens: dict[str, str], enough: Callable[[], bool]
         ) -> tuple[int, int, str, dict[str, str]]:
    """Accepted commands and some refused ones (the first seat of a turn moves again: VR-4)
    until `enough`, in new games when one is over (the kernel may hand one worker the
    connections of a whole game); answers (accepted, refused) and the game played last."""
    accepted = refused = 0
    while not enough():
        view = call(port, "GET", f"/games/{game}")[1]
        if not view["to_act"]:
            game, tokens = new_game(port)
            continue
        player = view["to_act"][0]
        move = call(port, "GET", f"/games/{game}/legal-moves", token=tokens[player])[1]
        path = f"/games/{game}/commands"
        status, answer = call(port, "POST", path, move["moves"][0], tokens[player])
        assert status == 200, answer
        accepted += 1
        if len(view["to_act"]) == 2:  # the other seat's move is still awaited
            status, answer = call(port, "POST", path, move["moves"][0], tokens[player])
            assert status == 422 and answer["error"]["rule"] == "VR-4", answer
            refused += 1
    return accepted, refused, game, tokens


def test_metrics_are_summed_over_two_workers(sqlite_env, tmp_path):
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_1.db").write_bytes(b"an earlier run's counts")  # must not count again
    env = {**sqlite_env, "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    with served_gruft(env, tmp_path / "serve.log", workers=2) as port, ExitStack() as held:
        game, tokens = new_game(port)
        assert not (folder / "counter_1.db").exists()
        # Commands over connections of their own, until each worker has counted some (the
        # kernel spreads connections over the workers).
        accepted, refused, game, tokens = play(port, game, tokens, lambda: sum(
            1 for n in commands_by_process(folder, tmp_path) if n) >= 2)
        assert refused > 0 and sum(commands_by_process(folder, tmp_path)) == accepted
        # A worker's file as it is between being made and being sized (a worker killed then
        # leaves it so): it counted nothing, and a scrape still sums the others.
        (folder / f"counter_{2**22 + 2}.db").write_bytes(b"")
        # Check every scrape, whichever worker answers it, sums what both counted.
        for _ in range(6):
            metrics = scrape(port)
            assert value(metrics, "gruft_commands_total", game="vampiring", by="seat") == accepted
            assert value(metrics, "gruft_refusals_total", game="vampiring",
                         code="not_your_turn", rule="VR-4") == refused
        # Check the HTTP requests are counted and timed by route (the URL rule, no game id) and
        # status, summed over both workers too (issue 31, item 8)
        commands = {"method": "POST", "route": "/games/<game_id>/commands"}
        assert value(metrics, "gruft_http_requests_total", **commands, status="200") == accepted
        assert value(metrics, "gruft_http_requests_total", **commands, status="422") == refused
        assert value(metrics, "gruft_http_request_duration_seconds_count", **commands,
                     status="200") == accepted
        assert value(metrics, "gruft_http_request_duration_seconds_bucket", **commands,
                     status="200", le="+Inf") == accepted
        assert not any(game in str(labels) for _, labels in metrics)
        # Check Prometheus' own linter accepts the page as scraped
        promtool = outside_tool("promtool", "prometheus")
        checked = subprocess.run([promtool, "check", "metrics"], input=raw(port, "/metrics")[1],
                                 capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        # Check the runners (one worker holds each lock) and the lags behind the log's head.

        def caught_up() -> bool:
            metrics = scrape(port)
            return (value(metrics, "gruft_runners_active", runner="readmodels") == 1
                    and value(metrics, "gruft_runners_active", runner="bots") == 1
                    and value(metrics, "gruft_runners_active", runner="clocks") == 1
                    and value(metrics, "gruft_log_head") > 0
                    and value(metrics, "gruft_read_models_lag_notifications") == 0
                    and ("gruft_follower_lag_notifications", ()) in metrics
                    and value(metrics, "gruft_follower_lag_notifications") == 0
                    and value(metrics, "gruft_store_up") == 1)

        wait_until(caught_up, "the runners counted and the read models and follower caught up")
        # Check open streams and long polls are counted while open, whichever worker holds them.
        version = call(port, "GET", f"/games/{game}")[1]["version"]
        streams = [held.enter_context(send(port, f"/games/{game}/stream")) for _ in range(3)]
        assert all(status_of(sock)[0] == 200 for sock in streams)
        polls = [held.enter_context(send(port, f"/games/{game}/events?after={version}&wait=30"))
                 for _ in range(2)]
        wait_until(lambda: (value(scrape(port), "gruft_streams_open") == 3
                            and value(scrape(port), "gruft_long_polls_open") == 2),
                   "3 streams and 2 long polls counted as open")
        for sock in streams + polls:
            sock.close()
        wait_until(lambda: (value(scrape(port), "gruft_streams_open") == 0
                            and value(scrape(port), "gruft_long_polls_open") == 0),
                   "closed streams and polls no longer counted")


def test_serve_makes_a_metrics_folder_of_its_own_and_removes_it(sqlite_env, tmp_path):
    env = {**sqlite_env, "TMPDIR": str(tmp_path)}
    dead = tmp_path / f"gruft-metrics-{2**22 + 1}-left"  # above any pid: a server long gone
    dead.mkdir()
    (dead / "counter_1.db").write_bytes(b"")
    with served_gruft(env, tmp_path / "serve.log", workers=2) as port:
        assert scrape(port)[("gruft_store_up", ())] == 1
        # Check the folder a killed server left is gone, and this one's is there
        assert not dead.exists()
        made = list(tmp_path.glob("gruft-metrics-*"))
        assert len(made) == 1 and list(made[0].glob("*.db"))
    assert not list(tmp_path.glob("gruft-metrics-*"))


class Blocking:
    """A subscriber whose receive does not return until released: a stuck follower."""

    def __init__(self) -> None:
        self.position = 0
        self.release = threading.Event()

    def receive(self, notifications) -> None:
        self.release.wait(60)
        self.position = notifications[-1].id


def test_readyz_says_when_the_follower_is_stuck(sqlite_env):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env, "GRUFT_FOLLOWER_STUCK": "0.5"})
    client = app.test_client()
    assert client.post("/games", json={"game": "vampiring", "players": ["A", "B"]}).status_code == 201
    assert client.get("/readyz").status_code == 200
    # Check a subscriber that never returns makes the follower stuck, and /readyz says so.
    blocking = Blocking()
    app.extensions["gruft"].games.follower.subscribe(blocking)
    wait_until(lambda: client.get("/readyz").status_code == 503, "/readyz to say stuck")
    answer = client.get("/readyz")
    assert "follower" in answer.get_json()["error"]["message"]
    assert answer.headers["Retry-After"]
    # Check it is ready again once the follower ends its rounds again.
    blocking.release.set()
    wait_until(lambda: client.get("/readyz").status_code == 200, "/readyz ready again")
    app.extensions["gruft"].close()


@pytest.mark.parametrize("setting", ["0", "-1", "soon"])
def test_a_bad_stuck_setting_stops_the_app_from_starting(sqlite_env, setting):
    with pytest.raises(ValueError, match="GRUFT_FOLLOWER_STUCK"):
        create_app({"TESTING": True, "GRUFT_ENV": sqlite_env, "GRUFT_FOLLOWER_STUCK": setting})


def clock_lateness(client) -> dict[str, float]:
    """The histogram of how late each ClockExpired was stored: how many, by what stored it."""
    text = client.get("/metrics").get_data(as_text=True)
    return {s.labels["by"]: s.value for family in text_string_to_metric_families(text)
            for s in family.samples if s.name == "gruft_clock_expired_late_seconds_count"}


def test_the_clock_runners_delay_is_in_the_metrics(app):
    client = app.test_client()
    before = clock_lateness(client).get("runner", 0.0)
    game = client.post("/games", json={"game": "vampir", "players": ["Ann", "Ben", "Cy"],
                                       "clock": {"bank": 1, "increment": 0}}).get_json()
    gid = game["game_id"]
    headers = {"Authorization": f"Bearer {game['host_token']}"}
    assert client.post(f"/games/{gid}/clocks/start", headers=headers).status_code == 200
    runner = app.extensions["gruft"].clock_runner()  # this worker runs the clocks

    def expired() -> int:
        return len(client.get(f"/games/{gid}/events?type=ClockExpired").get_json()["events"])

    try:
        wait_until(lambda: expired() >= 1, "the clock runner to run a clock out")
    finally:
        runner.stop()  # the next seat's second runs out too: stop counting here
    # Check every expiry the runner stored is counted in the histogram of its delay, with its
    # buckets.
    assert clock_lateness(client)["runner"] == before + expired()
    text = client.get("/metrics").get_data(as_text=True)
    assert 'gruft_clock_expired_late_seconds_bucket{by="runner",le="1.0"}' in text
