"""GET /players/{name}/stats and GET /leaderboard: exact against the games themselves."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from domain import available_games
from tests.service.readmodels.kit import NAMES, expected_metrics, expected_stats, ranked


def test_player_stats_count_finished_games_exactly(populated):
    client = populated.app.test_client()
    finished = [g for g in populated.live if g.finished]
    stats = expected_stats(populated.live)
    metrics = expected_metrics(populated.games, finished)
    assert any(not g.finished for g in populated.live)  # in-progress games must not count
    for name in NAMES:
        answer = client.get(f"/players/{quote(name, safe='')}/stats")
        assert answer.status_code == 200
        body = answer.json
        # Check played, won and the average score per game kind, finished games only
        assert body["player"] == name
        assert set(body["games"]) == set(stats.get(name, {}))
        for key, row in body["games"].items():
            want = stats[name][key]
            assert (row["played"], row["won"]) == (want["played"], want["won"]), (name, key)
            assert row["average_score"] == pytest.approx(want["average_score"])
            # Check the game's own averages (minus points per phase, finishing position …)
            own = {m: v for (p, k, m), v in metrics.items() if (p, k) == (name, key)}
            assert own, (name, key)
            assert {m: row[m] for m in own} == pytest.approx(own), (name, key)


def test_a_player_without_finished_games_has_empty_stats(populated):
    answer = populated.app.test_client().get("/players/nobody%20here/stats")
    assert answer.status_code == 200
    assert answer.json == {"player": "nobody here", "games": {}}


def test_leaderboards_rank_by_wins_then_average_score(populated):
    client = populated.app.test_client()
    stats = expected_stats(populated.live)
    for key in available_games():
        body = client.get(f"/leaderboard?game={key}").json
        # Check the order: wins, then average score (lower first for Vampire Queen), then name
        assert body["game"] == key
        assert [e["player"] for e in body["players"]] == ranked(stats, key)
        assert body["score_order"] == ("lower_is_better" if key == "vampire-queen"
                                       else "higher_is_better")
        for entry in body["players"]:
            want = stats[entry["player"]][key]
            assert (entry["played"], entry["won"]) == (want["played"], want["won"])
            assert entry["average_score"] == pytest.approx(want["average_score"])
        # Check the limit cuts the same ranking
        top = client.get(f"/leaderboard?game={key}&limit=2").json["players"]
        assert top == body["players"][:2]


def test_leaderboard_refuses_unknown_games_and_bad_limits(storage_app):
    client = storage_app.test_client()
    # Fail to rank an unknown game, or without a game, or with a limit out of range: 400
    for query in ("game=chess", "", "game=vampir&limit=0", "game=vampir&limit=500"):
        answer = client.get(f"/leaderboard?{query}")
        assert answer.status_code == 400, query
        assert answer.json["error"]["code"] == "bad_request"
    # Check a game nobody finished yet has an empty ranking
    assert client.get("/leaderboard?game=vampir").json["players"] == []


def test_the_openapi_document_describes_the_stats(storage_app):
    spec = storage_app.test_client().get("/openapi.json").json
    stats = spec["paths"]["/players/{name}/stats"]["get"]["responses"]["200"]
    board = spec["paths"]["/leaderboard"]["get"]
    assert "PlayerStats" in stats["content"]["application/json"]["schema"]["$ref"]
    assert {p["name"] for p in board["parameters"]} >= {"game", "limit"}
    assert "400" in board["responses"]
    kinds = spec["components"]["schemas"]["GameKindStats"]["properties"]
    assert {"played", "won", "average_score", "minus_points_per_phase",
            "finishing_position"} <= set(kinds)
