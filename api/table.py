"""The table (docs/api.md, (table)): seats handed to the server's bot and taken back."""

from __future__ import annotations

from flask import current_app
from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint
from api.games import documented, games, viewer

blp = GruftBlueprint("table", __name__, description="The table: seats handed to a bot and back")


def nudge_bots() -> None:
    """This worker's bot runner looks now (a seat was just handed to a bot)."""
    start_bots = current_app.extensions.get("gruft.bots")  # set by cli.wsgi
    if start_bots is not None:
        start_bots()


@blp.route("/games/<game_id>/seats/<name>")
class Seat(MethodView):
    @blp.arguments(schemas.SeatBody())
    @blp.response(200, schemas.View)
    @documented(400, 401, 403, 404, 409, 422, 503)
    def post(self, body, game_id, name):
        """Hand a seat to the server's bot (`{"bot": "heuristic" | "random"}`) or give it back
        (`{"bot": null}`): the host for any seat, a player for their own. Recorded as a
        SeatHanded event (`by` host or seat), shown to every seat; the public view answers."""
        view = games().hand_seat(game_id, viewer(game_id), name, body["bot"])
        if body["bot"] is not None:
            nudge_bots()
        return view
