"""The table (docs/api.md, (table)): seats handed to the server's bot and taken back, and the
rematch of a game that is over."""

from __future__ import annotations

from flask.views import MethodView

from api import schemas
from api.auth import bearer_token
from api.errors import GruftBlueprint
from api.games import documented, games, viewer
from api.worker import worker
from domain.core import SPECTATOR
from service.table.access import is_host

blp = GruftBlueprint("table", __name__,
                     description="The table: clocks started, seats handed to a bot and back, "
                                 "rematches")


def nudge_bots() -> None:
    """This worker's bot runner looks now (a seat was just handed to a bot)."""
    worker().runners_look()  # started if need be, when this worker plays the bots (serving.wsgi)


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


@blp.route("/games/<game_id>/clocks/start")
class ClocksStart(MethodView):
    @blp.response(200, schemas.View)
    @documented(401, 403, 404, 409, 503)
    def post(self, game_id):
        """The host starts the clocks of a game whose clocks wait for the table (before the
        first move a person makes and before every person's seat has the game open). Recorded
        as a ClocksStarted event (`{"reason": "host"}`, `by` host); the public view answers.
        409 when the clocks are not waiting (already running, no clock, the game is over)."""
        view = games().start_clocks(game_id, viewer(game_id))
        nudge_bots()  # the clock runner looks at the new deadlines now
        return view


@blp.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, schemas.Rematch)
    @blp.alt_response(201, schema=schemas.Rematch, description="the host made the rematch: as "
                      "POST /games (fresh tokens)")
    @documented(401, 404, 409, 503)
    def post(self, game_id):
        """A new game with the same seats (rotated by one), kind, options, bots and clock, for
        a game that is over; one per game (later calls answer the same game). The host: 201 as
        POST /games when this call made it, else 200 with the caller's own token; a seat: 200
        `{"game_id", "player_token"}` (its own token, valid in the rematch). The finished
        game's view then carries `"rematch": game_id`."""
        store, token = games(), bearer_token()
        who = viewer(game_id)
        rematch_id, made = store.rematch(game_id, who)
        if made is not None and (made.view.get("bots") or made.view.get("clocks")):
            nudge_bots()
        if not is_host(who):
            return {"game_id": str(rematch_id), "player_token": token}
        if made is not None:
            return {"game_id": str(made.game_id), "host_token": made.host_token,
                    "player_tokens": made.player_tokens, "view": made.view}, 201
        return {"game_id": str(rematch_id), "host_token": token, "player_tokens": {},
                "view": store.reads.view(rematch_id, SPECTATOR)}
