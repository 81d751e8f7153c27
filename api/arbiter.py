"""The arbiter's desk: annotations on any step of a game, and forks from any of its states."""

from __future__ import annotations

from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint
from api.games import documented, games, viewer

blp = GruftBlueprint("arbiter", __name__, description="The arbiter's desk: annotations and forks "
                     "(the game's own events never change)")


@blp.route("/games/<game_id>/annotations")
class AnnotationsResource(MethodView):
    @blp.response(200, schemas.Annotations)
    @documented(401, 403, 404)
    def get(self, game_id):
        """The annotations in order (the host any time, everybody once the game is over)."""
        return {"annotations": games().arbiter.annotations(game_id, viewer(game_id))}

    @blp.arguments(schemas.AnnotationBody())
    @blp.response(201, schemas.Annotation)
    @documented(400, 401, 403, 404, 409, 503)
    def post(self, body, game_id):
        """The host attaches a note or a ruling to a step; chained and signed in the export."""
        return games().arbiter.annotate(game_id, viewer(game_id), body["version"], body["text"],
                                        body["kind"], body["author"])


@blp.route("/games/<game_id>/fork")
class Fork(MethodView):
    @blp.arguments(schemas.ForkBody())
    @blp.response(201, schemas.CreatedGame)
    @documented(400, 401, 403, 404, 409, 503)
    def post(self, body, game_id):
        """A new game from the state after event `at` of a game that is over (the host's)."""
        return games().arbiter.fork(game_id, viewer(game_id), body["at"])  # NewGame


@blp.route("/games/<game_id>/forks")
class ForkList(MethodView):
    @blp.response(200, schemas.Forks)
    @documented(404)
    def get(self, game_id):
        """The games forked from this one, oldest first (public)."""
        games().game(game_id)  # 404 for no such game
        return {"forks": games().arbiter.forks(game_id)}
