"""`gruft bench` code paths at tiny sizes: every figure is produced, the JSON line is last.

No timing is asserted: speed is what the benchmark prints, not what a test decides.
"""

from __future__ import annotations

import json

import pytest

from bench import servers
from bench import suite as bench
from domain import available_games

pytest.importorskip("rlcard")


def test_bench_runs_every_measurement_and_ends_with_json(monkeypatch, capsys):
    # The tiny sizes go through the very code `gruft bench --quick` runs.
    monkeypatch.setattr(bench, "QUICK", bench.TINY)
    assert bench.run(type("Args", (), {"quick": True, "seed": 3})()) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    games = set(available_games())
    # Check every figure the issue names is there, per game where it is per game.
    assert set(figures["domain_steps_per_s"]) == games
    assert set(figures["replay_events_per_s"]) == games
    assert set(figures["eventsourcing_baseline_matched_events_per_s"]) == games
    for name in ("rlcard_doudizhu_steps_per_s", "rlcard_uno_steps_per_s",
                 "eventsourcing_baseline_events_per_s", "api_command_p50_ms",
                 "api_command_p99_ms", "api_commands_per_s", "flask_hello_per_s"):
        assert isinstance(figures[name], int | float), name
    for rate in [*figures["domain_steps_per_s"].values(), *figures["replay_events_per_s"].values()]:
        assert rate > 0
    # Check the served commands were all accepted: the client mirrors each game exactly.
    assert figures["api_command_errors"] == 0
    assert figures["api_commands_per_s"] > 0 and figures["flask_hello_per_s"] > 0
    assert figures["api_command_p50_ms"] <= figures["api_command_p99_ms"]
    # Check the clock figures: every game's clock ran out once and was stored after its deadline.
    assert figures["clock_games"] == 3 and figures["clock_expired"] >= 3
    assert 0 <= figures["clock_expired_p50_s"] <= figures["clock_expired_p99_s"]
    # Check the streams were all open (2 games, 2 each), and every update reached every one.
    assert figures["streams_open"] == 4 and figures["stream_games"] == 2
    assert figures["stream_updates_missed"] == 0 and figures["stream_command_errors"] == 0
    for name in ("stream_update_p50_ms", "stream_update_p99_ms", "stream_first_update_p99_ms",
                 "stream_commands_per_s",
                 "stream_baseline_commands_per_s"):
        assert isinstance(figures[name], int | float), name
    assert figures["stream_commands_per_s"] > 0 and figures["stream_baseline_commands_per_s"] > 0
    assert figures["stream_update_p50_ms"] <= figures["stream_update_p99_ms"]
    assert figures["stream_first_update_p99_ms"] <= figures["stream_update_p99_ms"]
    assert "commands with streams open / without" in figures["ratios"]
    # Check the stores' figures, when this machine has PostgreSQL.
    if servers.postgres_reachable() is None:
        for kind in ("sqlite", "postgres"):
            for clients in (1, 2):
                rounds = figures[f"store_{kind}_{clients}_clients"]
                assert rounds["errors"] == 0 and rounds["commands_per_s"][0] > 0
        assert {"postgres / sqlite commands/s, 2 clients",
                "postgres / sqlite growth, 1 -> 2 clients",
                "sqlite / postgres command p50, 1 client"} <= set(figures["ratios"])
    # And the human-readable part precedes it.
    assert any(line.startswith("targets") for line in lines[:-1])


def test_a_ratio_pairs_each_round_with_its_baseline_and_takes_the_median():
    # Round by round 2, 4 and 3 times the baseline: the median, 3 — not best over best (30/10).
    assert bench.paired_ratio([10.0, 20.0, 30.0], [5.0, 5.0, 10.0]) == 3.0
    assert bench.paired_ratio([], []) == 0.0
    with pytest.raises(ValueError, match="shorter than argument 1"):
        bench.paired_ratio([1.0, 2.0], [1.0])  # every round has both sides


def test_bench_domain_runs_the_domain_rounds_alone_and_ends_with_json(monkeypatch, capsys):
    monkeypatch.setattr(bench, "QUICK", bench.TINY)
    args = type("Args", (), {"quick": True, "seed": 3, "domain": True})()
    assert bench.run(args) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(lines[-1])
    # Check each game's domain and RLCard's games are measured, round by round, and nothing else
    assert set(figures["domain_steps_per_s"]) == set(available_games())
    assert len(figures["rlcard_doudizhu_rounds"]) == bench.TINY.rounds
    assert "api_commands_per_s" not in figures and "replay_events_per_s" not in figures
    assert "vampire-queen domain / rlcard doudizhu" in figures["ratios"]
    assert any(line.startswith("targets") and "7.0" not in line for line in lines[:-1])
    assert any("(target >= 7.0)" in line for line in lines[:-1])
