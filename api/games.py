"""The games resource: create, list, view, legal moves, commands, the log and replay steps."""

from __future__ import annotations

from contextlib import nullcontext

from flask.views import MethodView

from api import schemas
from api.auth import bearer_token
from api.errors import GruftBlueprint
from api.holds import HOLDS, POLL
from api.reads import games_page
from api.worker import worker
from domain.core import SPECTATOR
from service import Games
from service.audit.logfilter import LogFilter

# Schemas are passed as instances: webargs would build a new one from a class on every request.
blp = GruftBlueprint("games", __name__, description="Games, their commands, views and logs")

ERRORS = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
          409: "conflict", 422: "not_your_turn or illegal_move",
          429: "rate_limited: past a per-address limit; retry after Retry-After",
          503: "unavailable: the store stayed busy, nothing was written; retry after Retry-After"}


def games() -> Games:
    """This worker's Application."""
    return worker().games


def viewer(game_id: str):
    """Who is asking about this game."""
    return games().access.authenticate(game_id, bearer_token())


def documented(*statuses: int):
    """Document the contract's error answers of a route."""
    def wrap(func):
        described = func
        for status in statuses:
            described = blp.alt_response(status, schema=schemas.Error,
                                         description=ERRORS[status])(described)
        # alt_response only documents: its wrappers just call through (a context lookup each,
        # six on the command route). Keep its documentation on the route itself instead.
        func._apidoc = described._apidoc
        return func
    return wrap


@blp.route("/games")
class GameCollection(MethodView):
    @blp.arguments(schemas.GamesQuery(), location="query")
    @blp.response(200, schemas.GamesPage)
    @documented(400)
    def get(self, query):
        """List games (filters: game, status, player; cursor: after)."""
        page, cursor = games_page(query.get("game"), query.get("status"), query.get("player"),
                                  query["after"], query["limit"])
        return {"games": page, "next": cursor}

    @blp.arguments(schemas.CreateGame())
    @blp.response(201, schemas.CreatedGame)
    @documented(400, 503)
    def post(self, body):
        """Create a game: seeded, or from a stacked deal; answers the host and player tokens."""
        created = games().create_game(body["game"], body["players"], seed=body.get("seed"),
                                      options=body.get("options"), deal=body.get("deal"),
                                      bots=body.get("bots"), clock=body.get("clock"),
                                      host_seat=body.get("host_seat"))
        if created.view.get("bots") or created.view.get("clocks"):
            worker().runners_look()  # the bot and clock runners, if this worker plays them
        return created  # a NewGame


@blp.route("/games/<game_id>")
class GameResource(MethodView):
    @blp.response(200, schemas.View)
    @documented(401, 404)
    def get(self, game_id):
        """The public view of a game."""
        viewer(game_id)  # a bad token is a 401 even here
        return games().reads.view(game_id, SPECTATOR)


@blp.route("/games/<game_id>/view")
class SeatView(MethodView):
    @blp.arguments(schemas.SeatQuery(), location="query")
    @blp.response(200, schemas.View)
    @documented(400, 401, 403, 404)
    def get(self, query, game_id):
        """A player's view (the host adds ?player=name)."""
        return games().reads.view(game_id, viewer(game_id), query.get("player"))


@blp.route("/games/<game_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.arguments(schemas.SeatQuery(), location="query")
    @blp.response(200, schemas.LegalMoves)
    @documented(400, 401, 403, 404)
    def get(self, query, game_id):
        """Every command the rules allow that player now; empty when it is not their turn."""
        return games().reads.legal_moves(game_id, viewer(game_id), query.get("player"))


@blp.route("/games/<game_id>/commands")
class Commands(MethodView):
    @blp.arguments(schemas.CommandBody())
    @blp.response(200, schemas.CommandResult)
    @documented(400, 401, 403, 404, 409, 422, 503)
    def post(self, body, game_id):
        """Run a command; a refused one cites its ruling and changes nothing."""
        expected = body.pop("expected_version", None)
        outcome = games().command(game_id, viewer(game_id), body, expected)
        answer = {"version": outcome.version, "events": outcome.events,
                  "to_act": outcome.to_act, "status": outcome.status}
        if outcome.receipt is not None:
            answer["receipt"] = outcome.receipt
        return answer


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @blp.arguments(schemas.EventsQuery(), location="query")
    @blp.response(200, schemas.EventsPage)
    @documented(400, 401, 404, 429, 503)
    def get(self, query, game_id):
        """The event log, redacted to what the caller may see; with ?wait=S, a long poll;
        filtered by ?player= (events they made or are named in) and ?type= (comma-separated)."""
        only = LogFilter.parse(query.get("player"), query.get("type"))
        who = viewer(game_id)
        # A long poll holds a thread while it waits: capped as streams are (api/holds.py).
        with HOLDS.holding(POLL) if query["wait"] else nullcontext():
            events, next_after = games().reads.log(game_id, who, query["after"],
                                                   query["limit"], wait=query["wait"], only=only)
        return {"events": events, "next_after": next_after}


@blp.route("/games/<game_id>/replay/<int:n>")
class ReplayStep(MethodView):
    @blp.response(200, schemas.ReplayStep)
    @documented(401, 403, 404, 429)
    def get(self, game_id, n):
        """The full state after the first n events (host, or anyone once finished)."""
        return games().reads.replay(game_id, viewer(game_id), n)
