"""Player statistics and leaderboards, answered from the read models (finished games only)."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from api.schemas import Error, StrictSchema
from domain import available_games
from domain.core import BadSetup
from service.readmodels import ReadModels, read_models
from service.readmodels.metrics import METRICS, score_sign

blp = Blueprint("stats", __name__, description="Player statistics and leaderboards across games "
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


def _metric_fields() -> dict[str, fields.Field]:
    described: dict[str, list[str]] = {}
    for game, metrics in METRICS.items():
        for metric in metrics:
            described.setdefault(metric.name, []).append(f"{game}: {metric.description}")
    return {name: fields.Float(metadata={"description": "average " + "; ".join(texts)})
            for name, texts in sorted(described.items())}


GameKindStats = Schema.from_dict({
    "played": fields.Integer(required=True, metadata={"description": "finished games"}),
    "won": fields.Integer(required=True, metadata={"description": "finished games among whose "
                                                   "winners the player is"}),
    "average_score": fields.Float(required=True, metadata={"description": "final score per game"}),
    **_metric_fields(),
}, name="GameKindStats")


class PlayerStats(Schema):
    player = fields.String(required=True)
    games = fields.Dict(keys=fields.String(), values=fields.Nested(GameKindStats), required=True,
                        metadata={"description": "per game key; only kinds the player finished"})


class LeaderboardQuery(StrictSchema):
    game = fields.String(required=True, metadata={"description": "the game key"})
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))


class LeaderboardEntry(Schema):
    player = fields.String(required=True)
    played = fields.Integer(required=True)
    won = fields.Integer(required=True)
    average_score = fields.Float(required=True)


class Leaderboard(Schema):
    game = fields.String(required=True)
    score_order = fields.String(required=True, validate=validate.OneOf(["higher_is_better",
                                "lower_is_better"]), metadata={"description": "how average "
                                "scores rank: Vampire Queen counts minus points, so lower"})
    players = fields.List(fields.Nested(LeaderboardEntry), required=True,
                          metadata={"description": "by wins, then average score (best first), "
                                    "then name"})


@blp.route("/players/<path:name>/stats")
class PlayerStatsResource(MethodView):
    @blp.response(200, PlayerStats)
    def get(self, name: str):
        """A player's finished games per game kind: played, won, average score, the game's own averages."""
        return {"player": name, "games": views().view.player_stats(name)}


@blp.route("/leaderboard")
class LeaderboardResource(MethodView):
    @blp.arguments(LeaderboardQuery(), location="query")
    @blp.response(200, Leaderboard)
    @blp.alt_response(400, schema=Error, description="bad_request (unknown game key)")
    def get(self, query):
        """Players of one game ranked by wins, then average score (finished games only)."""
        game = query["game"]
        if game not in available_games():
            raise BadSetup(f"unknown game {game!r}; games: {', '.join(available_games())}")
        order = "lower_is_better" if score_sign(game) < 0 else "higher_is_better"
        return {"game": game, "score_order": order,
                "players": views().view.leaderboard(game, query["limit"])}
