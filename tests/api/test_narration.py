"""The play page's log in words (GET /games/{id}/narration): told as the replay viewer tells each
seat's perspective, from what that caller may see (tests/api/test_secrets.py checks that twin
games differing only in others' secrets read alike)."""

from __future__ import annotations

import random

import pytest

from domain import available_games, describe_events, game_class
from domain.core import HOST
from tests.kit import SHORT_OPTIONS, seats


def create(client, key: str, seed: int = 4) -> dict:
    answer = client.post("/games", json={"game": key, "players": seats(key), "seed": seed,
                                         "options": SHORT_OPTIONS[key]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def play_some(app, game_id: str, moves: int, rng: random.Random) -> None:
    """Random legal moves through the service, the game left in play."""
    games = app.extensions["gruft"].games
    for _ in range(moves):
        game = games.game(game_id)
        player = rng.choice(game.to_act)
        candidates = game.legal_moves(player)
        games.run_command(game_id, HOST, {**rng.choice(candidates), "player": player})
        if games.game(game_id).finished:
            return


@pytest.mark.parametrize("key", available_games())
def test_each_seat_reads_the_log_as_the_viewer_tells_its_perspective(app, client, key):
    created = create(client, key)
    gid = created["game_id"]
    play_some(app, gid, 12, random.Random(key))
    store = app.extensions["gruft"].games
    game = store.game(gid)
    assert not game.finished
    records = store.reads.records(gid)
    viewer_words = describe_events(key, records, list(game.players), dict(game.options))
    for player, token in created["player_tokens"].items():
        told = client.get(f"/games/{gid}/narration", headers=bearer(token)).get_json()["events"]
        # Check every event is told, in order, each as the replay viewer tells this seat's view
        assert [t["version"] for t in told] == [r["version"] for r in records]
        for mine, theirs in zip(told, viewer_words, strict=True):
            assert mine["text"] == theirs.get("seen", {}).get(player, theirs["text"]), player


def test_a_spectator_reads_no_secret_and_after_narrows(client):
    created = create(client, "vampiring")
    gid = created["game_id"]
    moves = {"Ann": {"metamorphosis": "b", "direction": "ccw"}}
    answer = client.post(f"/games/{gid}/commands", headers=bearer(created["player_tokens"]["Ann"]),
                         json={"type": "move", **moves["Ann"]})
    assert answer.status_code == 200
    version = answer.get_json()["version"]
    texts = {}
    for who, headers in (("spectator", {}), ("Ben", bearer(created["player_tokens"]["Ben"])),
                         ("Ann", bearer(created["player_tokens"]["Ann"]))):
        told = client.get(f"/games/{gid}/narration?after={version - 1}", headers=headers).get_json()
        assert [t["version"] for t in told["events"]] == [version]
        texts[who] = told["events"][0]["text"]
    # Check Ann reads her own secret move; the others read only that she moved
    assert texts["spectator"] == texts["Ben"] != texts["Ann"]
    assert "B" in texts["Ann"] or "b" in texts["Ann"]


def test_bad_queries_are_refused(client):
    gid = create(client, "vampir")["game_id"]
    assert client.get(f"/games/{gid}/narration?after=-1").status_code == 400
    assert client.get(f"/games/{gid}/narration?after=x").status_code == 400
    assert client.get(f"/games/{gid}/narration", headers=bearer("forged")).status_code == 401
    assert client.get("/games/00000000-0000-0000-0000-000000000000/narration").status_code == 404


def test_unknown_fields_of_an_event_never_break_the_words():
    cls = game_class("vampir")
    from domain.core.narration import tell

    told = tell(cls, [{"version": 1, "type": "Drew", "data": {"player": "Ann"}}],
                ["Ann", "Ben", "Cy"], {})
    assert told[0]["version"] == 1 and told[0]["text"]
