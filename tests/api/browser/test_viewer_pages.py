"""The viewer's pages without a browser: access, headers, the game list, and the event texts."""

from __future__ import annotations

import json
import random
import re

import pytest

from domain import available_games, describe_events, game_class
from domain.core import event_record
from tests.api.browser.site import Site, StoredGame, store_random_game


def page_data(html: str) -> dict:
    """The JSON the page's script starts from."""
    found = re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', html, re.S)
    assert found, "the page carries its data"
    return json.loads(found.group(1))


def viewer_url(game: StoredGame, **query: str) -> str:
    tail = "&".join(f"{k}={v}" for k, v in query.items())
    return f"/games/{game.game_id}/viewer" + (f"?{tail}" if tail else "")


# -- access follows `replay` ------------------------------------------------------------------

def test_a_finished_game_opens_to_anybody(site: Site):
    client = site.app.test_client()
    for game in site.finished.values():
        # Check the page of every kind of game opens without a token
        answer = client.get(viewer_url(game))
        assert answer.status_code == 200
        assert answer.mimetype == "text/html"
        html = answer.get_data(as_text=True)
        data = page_data(html)
        assert data["game"] == game.key
        assert data["players"] == game.players
        assert data["token"] is None
        assert len(data["events"]) == data["version"] > 0
        for name in game.players:
            assert name in html
        # Check the page keeps its token out of Referer headers and caches
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        assert answer.headers["Cache-Control"] == "no-store"
        assert "script-src 'self'" in answer.headers["Content-Security-Policy"]


def test_a_game_in_progress_opens_only_to_its_host(site: Site):
    client = site.app.test_client()
    game = site.in_progress
    assert not game.finished

    # Fail to open it as a spectator: an HTML page for a browser, the JSON error for an API client
    answer = client.get(viewer_url(game), headers={"Accept": "text/html"})
    assert answer.status_code == 403
    assert answer.mimetype == "text/html"
    assert "host" in answer.get_data(as_text=True)
    answer = client.get(viewer_url(game), headers={"Accept": "application/json"})
    assert answer.status_code == 403
    assert answer.get_json()["error"]["code"] == "forbidden"

    # Fail to open it with a player's token: a replay is the host's until the end
    player_token = next(iter(game.player_tokens.values()))
    assert client.get(viewer_url(game, token=player_token)).status_code == 403

    # Fail with a token that is not this game's
    assert client.get(viewer_url(game, token="not-a-token")).status_code == 401
    other = site.finished["voodoo-prince"]
    assert client.get(viewer_url(game, token=other.host_token)).status_code == 401

    # Check the host opens it with ?token= and with the header; the page's script gets the token
    for answer in (client.get(viewer_url(game, token=game.host_token)),
                   client.get(viewer_url(game),
                              headers={"Authorization": f"Bearer {game.host_token}"})):
        assert answer.status_code == 200
        data = page_data(answer.get_data(as_text=True))
        assert data["token"] == game.host_token
        assert data["status"] == "in_progress"


def test_unknown_games_are_404(site: Site):
    client = site.app.test_client()
    assert client.get("/games/not-a-uuid/viewer").status_code == 404
    answer = client.get("/games/00000000-0000-0000-0000-000000000000/viewer")
    assert answer.status_code == 404
    assert answer.mimetype == "text/html"


def test_names_are_text_never_markup(site: Site):
    games = site.app.extensions["gruft"].games
    hostile = "</script><img src=x>"
    new = games.create_game("voodoo-prince", [hostile, "Otto"], seed=3, options={"rounds": 1})
    html = site.app.test_client().get(viewer_url(StoredGame(
        "voodoo-prince", str(new.game_id), new.host_token, {}, [], False),
        token=new.host_token)).get_data(as_text=True)
    # Check the name reaches the page only escaped, in the header and in the page data
    assert hostile not in html
    assert "&lt;/script&gt;&lt;img src=x&gt;" in html
    assert page_data(html)["players"][0] == hostile


def test_the_game_list_links_every_game_to_its_viewer(site: Site):
    client = site.app.test_client()
    # (by kind: other tests of the session add games to this site, newest first on the list)
    for game in [*site.finished.values(), site.in_progress]:
        html = client.get(f"/?game={game.key}").get_data(as_text=True)
        assert f'href="/games/{game.game_id}/viewer"' in html
    # Check the newest games come first (the game in progress was stored after the finished one)
    html = client.get("/?game=voodoo-prince").get_data(as_text=True)
    rows = re.findall(r'class="game-row" data-game-id="([^"]+)"', html)
    assert rows.index(site.in_progress.game_id) < rows.index(site.finished["voodoo-prince"].game_id)
    # Check the filters narrow the list
    html = client.get("/?status=finished&game=vampir").get_data(as_text=True)
    assert f"/games/{site.finished['vampir'].game_id}/viewer" in html
    assert f"/games/{site.in_progress.game_id}/viewer" not in html
    assert f"/games/{site.finished['voodoo-prince'].game_id}/viewer" not in html
    # Check a hand-edited query narrows nothing instead of failing
    assert client.get("/?status=nonsense&after=x&game=chess").status_code == 200
    # Check a list with no match says so and leads back to every game, not to the API
    html = client.get("/?player=nobody-here").get_data(as_text=True)
    assert "No game matches" in html and 'href="/"' in html and "POST /games" not in html


def test_the_openapi_document_describes_the_viewer(site: Site):
    paths = site.app.test_client().get("/openapi.json").get_json()["paths"]
    assert "text/html" in paths["/games/{game_id}/viewer"]["get"]["responses"]["200"]["content"]


# -- every event in plain words -----------------------------------------------------------------

def test_every_event_of_every_game_is_described(site: Site):
    games = site.app.extensions["gruft"].games
    assert set(site.finished) == set(available_games())
    for key, game in site.finished.items():
        records = games.reads.records(game.game_id)
        options = games.game(game.game_id).options
        texts = describe_events(key, records, game.players, options, strict=True)
        assert [t["version"] for t in texts] == [r["version"] for r in records]
        for item in texts:
            for text in [item["text"], *item.get("seen", {}).values()]:
                assert text.endswith("."), (key, item)
                assert not re.search(r"None|\{|\[|undefined", text), (key, item)


@pytest.mark.parametrize("key", ["vampir", "vampiring", "voodoo-prince", "vampire-queen"])
def test_a_player_reads_only_what_they_saw(site: Site, key: str):
    games = site.app.extensions["gruft"].games
    game = site.finished[key]
    records = games.reads.records(game.game_id)
    texts = describe_events(key, records, game.players, games.game(game.game_id).options)
    seed = str(records[0]["data"]["seed"])
    # Check the seed is named for everything, never in a player's words before the end
    assert f"seed is {seed}" in texts[0]["text"]
    assert set(texts[0]["seen"]) == set(game.players)
    for record, item in zip(records, texts, strict=True):
        data = record["data"]
        for player, text in item.get("seen", {}).items():
            assert player != data.get("player"), "a player's own action reads as for everybody"
            if record["type"] == "Drew":
                assert not any(card in text for card in data["cards"])
            if record["type"] == "MoveSubmitted":
                assert "secret move" in text and data["direction"] not in text


def narrate(key: str, players: list[str], options: dict, events: list[tuple[str, dict]]
            ) -> list[str]:
    records = [{"version": i, "type": t, "data": d} for i, (t, d) in enumerate(events, start=1)]
    return [item["text"] for item in describe_events(key, records, players, options, strict=True)]


def test_voodoo_prince_words_cite_the_rulings():
    players = ["Nina", "Otto", "Paul"]
    texts = narrate("voodoo-prince", players, {"rounds": 2}, [
        ("RoundDealt", {"round": 1, "dealer": "Otto", "trump": "R", "hands": {}, "undealt": []}),
        ("CardPlayed", {"player": "Otto", "card": "B3"}),
        ("CardPlayed", {"player": "Paul", "card": "B4"}),
        ("CardPlayed", {"player": "Nina", "card": "B5"}),
        ("TrickWon", {"winner": "Nina", "card": "B5", "count": 2, "trick": [
            {"player": "Otto", "card": "B3"}, {"player": "Paul", "card": "B4"},
            {"player": "Nina", "card": "B5"}]}),
        ("CardPlayed", {"player": "Nina", "card": "G10"}),
        ("CardPlayed", {"player": "Otto", "card": "Y2"}),
        ("CardPlayed", {"player": "Paul", "card": "G0"}),
        ("TrickWon", {"winner": "Paul", "card": "G0", "count": 1, "trick": [
            {"player": "Nina", "card": "G10"}, {"player": "Otto", "card": "Y2"},
            {"player": "Paul", "card": "G0"}]}),
    ])
    assert texts[0] == ("Round 1 of 2: Otto deals; the trump indicator drawn is red (VP-2).")
    assert texts[1] == "Otto leads blue 3."
    # Check issue 7's example, word for word but for its card, said in words (issue 25)
    assert texts[3] == "Nina plays blue 5 and wins the trick; it counts twice (VP-8)."
    assert "counts as two tricks (VP-8)" in texts[4] and "Nina now holds 2 tricks" in texts[4]
    assert texts[6] == "Otto cannot follow green and discards yellow 2 (VP-5)."
    assert texts[7] == ("Paul plays green 0 and wins the trick; the voodoo 0 beats the green 10 "
                        "(VP-7).")


def test_vampire_queen_words_follow_the_round():
    players = ["Ann", "Bob", "Cid"]
    texts = narrate("vampire-queen", players, {"phases": 1}, [
        ("PhaseDealt", {"phase": 1, "start": "Bob", "slayers": {"S15": "Ann", "S20": "Bob"},
                        "hands": {}, "set_aside": []}),
        ("Played", {"player": "Bob", "cards": ["7", "Q"], "value": 7}),
        ("Played", {"player": "Cid", "cards": ["Q", "Q"], "value": 14}),
        ("Passed", {"player": "Ann", "forced": False}),
        ("RoundEnded", {"phase": 1, "round": 1, "start": "Cid", "taker": None,
                        "cards": ["7", "Q", "Q", "Q"]}),
        ("Played", {"player": "Cid", "cards": ["S20"], "value": 0}),
        ("Played", {"player": "Ann", "cards": ["Q"], "value": 1}),
        ("Skipped", {"player": "Bob"}),
        ("RoundEnded", {"phase": 1, "round": 2, "start": "Ann", "taker": "Ann",
                        "cards": ["Q", "S20"]}),
    ])
    # The slayers said as the rulebook names them, never by their codes (issue 25)
    assert texts[0] == ("Phase 1 of 1 is dealt: Ann holds the vampire slayer 15, Bob holds the "
                        "vampire slayer 20 and starts (VQ-2).")
    assert texts[1] == ("Bob leads a 7 and a Queen, the Queen counting 7; the others raise with "
                        "two cards of a higher value or pass (VQ-4, VQ-5, VQ-6).")
    assert texts[2] == "Cid raises with two Queens, which alone count 14 (VQ-5, VQ-6)."
    assert "out for this phase (VQ-7)" in texts[4]
    assert texts[5].startswith("Cid leads the vampire slayer 20: a slayer round")
    assert "VQ-9" in texts[5]
    assert texts[6] == "Ann plays a Queen into the slayer round, where it counts 1 (VQ-10)."
    assert texts[7] == "Bob has no cards left and is skipped (VQ-8)."
    assert "Ann played the highest card and takes all 2 cards, the vampire slayer 20 " in texts[8]
    assert "Ann may not lead the vampire slayer 20 straight away" in texts[8]
    assert "(VQ-11)" in texts[8] and "VQ-14" in texts[8]


def test_texts_of_an_unknown_event_name_it():
    texts = describe_events("voodoo-prince", [{"version": 1, "type": "Teleported", "data": {}}],
                            ["A", "B"], {})
    assert texts[0]["text"].startswith("Teleported")


def test_a_game_in_progress_is_described_up_to_its_last_event(site: Site):
    games = site.app.extensions["gruft"].games
    game = store_random_game(games, "voodoo-prince", seed=11, moves=3)
    records = games.reads.records(game.game_id)
    texts = describe_events("voodoo-prince", records, game.players, {"rounds": 2}, strict=True)
    assert len(texts) == len(records)


SMALL_OPTIONS = {"voodoo-prince": {"rounds": 2}, "vampire-queen": {"phases": 2},
                 "vampir": {"rounds": 1}, "vampiring": {}}


@pytest.mark.parametrize("key", available_games())
def test_every_table_size_is_described(key: str):
    cls = game_class(key)
    for count in range(cls.MIN_PLAYERS, cls.MAX_PLAYERS + 1):
        # Check one random game at every table size reads in plain words, for everybody
        players = [f"P{i}" for i in range(count)]
        options = SMALL_OPTIONS.get(key, {})
        game = cls.start(players, seed=count, options=options)
        rng = random.Random(count)
        while not game.finished:
            player = rng.choice(game.to_act)
            game.execute(player, rng.choice(game.legal_moves(player)))
        records = [event_record(e) for e in game.collect_events()]
        texts = describe_events(key, records, players, game.options, strict=True)
        for item in texts:
            for text in [item["text"], *item.get("seen", {}).values()]:
                assert text.endswith(".") and not re.search(r"None|\{|\[", text), (count, item)
