"""GET /games from the game index: filters, cursor pages, read-your-writes, every game kind."""

from __future__ import annotations

from urllib.parse import quote

from domain import available_games


def all_pages(client, query: str = "", limit: int = 3) -> list[dict]:
    """Every summary, following the `next` cursor page by page."""
    out, after = [], 0
    while True:
        page = client.get(f"/games?limit={limit}&after={after}{query}").json
        out += page["games"]
        if page["next"] is None:
            return out
        assert len(page["games"]) == limit
        after = page["next"]


def test_index_answers_every_filter_like_the_aggregates(populated):
    client, live = populated.app.test_client(), populated.live
    # Check the index has every game, oldest first, each as the aggregate says it is now
    everything = all_pages(client)
    assert [s["game_id"] for s in everything] == [str(g.id) for g in live]
    for summary, game in zip(everything, live, strict=True):
        assert summary == {"game_id": str(game.id), "game": game.KEY,
                           "players": game.players, "status": game.status,
                           "version": game.version, "created_at": game.created_on.isoformat()}
    assert {s["status"] for s in everything} == {"in_progress", "finished"}
    # Check each filter, alone and combined, pages through exactly the matching games
    for key in [None, *available_games()]:
        for status in [None, "in_progress", "finished"]:
            for player in [None, "ann", "Zoë M/2"]:
                query = "".join(f"&{n}={quote(v)}" for n, v in
                                (("game", key), ("status", status), ("player", player)) if v)
                wanted = [str(g.id) for g in live if key in (None, g.KEY)
                          and status in (None, g.status) and player in (None, *g.players)]
                assert [s["game_id"] for s in all_pages(client, query, limit=2)] == wanted, query


def test_the_index_keeps_times_scores_and_winners(populated):

    view = populated.app.extensions["gruft"].read_models().view
    for game in populated.live:
        row = view.game_row(str(game.id))
        # Check the row's creation and last-event times, and the result once finished
        assert row["created_at"] == game.created_on.isoformat()
        assert row["updated_at"] == game.modified_on.isoformat()
        if game.finished:
            assert row["finished_at"] == game.modified_on.isoformat()
            assert (row["scores"], row["winners"]) == (game.scores, game.winners)
        else:
            assert (row["finished_at"], row["scores"], row["winners"]) == (None, None, [])
    # Check the runner restarted mid-way loaded the games it had not followed from the start
    assert populated.loads > 0


def test_a_client_sees_its_new_game_and_its_moves_at_once(storage_app):
    client = storage_app.test_client()
    for key in available_games():
        # Check a created game is listed by the very next request
        created = client.post("/games", json={"game": key, "players": ["ann", "bob", "cy"],
                                              "seed": 7}).json
        listed = client.get(f"/games?game={key}").json["games"]
        assert [g["game_id"] for g in listed] == [created["game_id"]]
        # Check a command's new version shows in the next listing too
        host = {"Authorization": f"Bearer {created['host_token']}"}
        gid = created["game_id"]
        moves = client.get(f"/games/{gid}/legal-moves?player={created['view']['to_act'][0]}",
                           headers=host).json
        answer = client.post(f"/games/{gid}/commands", headers=host,
                             json={**moves["moves"][0], "player": moves["player"]}).json
        listed = client.get(f"/games?game={key}&player=bob").json["games"]
        assert listed[0]["version"] == answer["version"]


def test_unknown_game_and_bad_queries(storage_app):
    client = storage_app.test_client()
    client.post("/games", json={"game": "voodoo-prince", "players": ["ann", "bob"]})
    # Check an unknown game key lists nothing, as before the index
    assert client.get("/games?game=chess").json == {"games": [], "next": None}
    # Fail to list with a malformed cursor, limit or status: 400, the contract's error shape
    for query in ("after=-1", "limit=0", "limit=201", "status=lost", "after=x"):
        answer = client.get(f"/games?{query}")
        assert answer.status_code == 400, query
        assert answer.json["error"]["code"] == "bad_request"


def test_several_workers_share_one_runner(sqlite_env):
    from api import create_app

    workers = [create_app({"TESTING": True, "GRUFT_ENV": sqlite_env}) for _ in range(3)]
    try:
        first = workers[0].test_client()
        created = first.post("/games", json={"game": "vampiring", "players": ["a", "b"]}).json
        # Check every worker lists the game another worker created
        for worker in workers:
            listed = worker.test_client().get("/games").json["games"]
            assert [g["game_id"] for g in listed] == [created["game_id"]]
        # Check exactly one of them runs the projection (the others stand by for the lock)
        sides = [w.extensions["gruft"].read_models() for w in workers]
        running = [s for s in sides if s.embedded.runner is not None]
        assert len(running) == 1
    finally:
        for worker in workers:
            worker.extensions["gruft"].close()


def test_the_in_memory_store_serves_the_index_too(tmp_path):
    from api import create_app

    app = create_app({"TESTING": True, "GRUFT_ENV": {"PERSISTENCE_MODULE": "eventsourcing.popo",
                                                     "GRUFT_DATA_DIR": str(tmp_path)}})
    try:
        client = app.test_client()
        created = client.post("/games", json={"game": "voodoo-prince", "players": ["a", "b"]})
        # Check the runner follows the very Application that holds the in-memory games
        listed = client.get("/games?player=a").json["games"]
        assert [g["game_id"] for g in listed] == [created.json["game_id"]]
    finally:
        app.extensions["gruft"].close()
