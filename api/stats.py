"""Player statistics and leaderboards, answered from the read models (finished games only)."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint
from service.readmodels import ReadModels, read_models
from service.readmodels.metrics import score_sign

blp = GruftBlueprint("stats", __name__, description="Player statistics and leaderboards across games "
                "(finished games only), from the read models")


def views() -> ReadModels:
    """This worker's read models, caught up with everything stored before the request."""
    found = read_models(current_app.extensions["gruft"])
    found.catch_up()
    return found


@blp.record_once
def _start_runner(state) -> None:
    # A served app starts following the log at once (a worker's runner thread takes the lock
    # if it is free); under tests the runner starts with the first read instead.
    if not state.app.testing:
        read_models(state.app.extensions["gruft"])


@blp.route("/players/<path:name>/stats")
class PlayerStatsResource(MethodView):
    @blp.response(200, schemas.PlayerStats)
    def get(self, name: str):
        """A player's finished games per game kind: played, won, average score, the game's own averages."""
        return {"player": name, "games": views().view.player_stats(name)}


@blp.route("/leaderboard")
class LeaderboardResource(MethodView):
    @blp.arguments(schemas.LeaderboardQuery(), location="query")
    @blp.response(200, schemas.Leaderboard)
    @blp.alt_response(400, schema=schemas.Error, description="bad_request (unknown game key)")
    def get(self, query):
        """Players of one game ranked by wins, then average score (finished games only)."""
        game = query["game"]
        order = "lower_is_better" if score_sign(game) < 0 else "higher_is_better"
        return {"game": game, "score_order": order,
                "players": views().view.leaderboard(game, query["limit"])}
