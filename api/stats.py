"""Player statistics and leaderboards, answered from the read models (finished games only)."""

from __future__ import annotations

from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint
from api.reads import read_models
from domain.core.names import seated_form
from service.readmodels.stat_kinds import score_sign

blp = GruftBlueprint("stats", __name__, description="Player statistics and leaderboards across games "
                "(finished games only), from the read models")


@blp.route("/players/<path:name>/stats")
class PlayerStatsResource(MethodView):
    @blp.response(200, schemas.PlayerStats)
    def get(self, name: str):
        """A player's finished games per game kind: played, won, average score, the game's own averages."""
        name = seated_form(name)  # as seated: an "ë" typed as e + U+0308 finds the seated "ë"
        return {"player": name, "games": read_models().view.player_stats(name)}


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
                "players": read_models().view.leaderboard(game, query["limit"])}
