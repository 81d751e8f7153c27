"""The game log over HTTP: signed checkpoints, inclusion and consistency proofs, and the keys."""

from __future__ import annotations

from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint
from api.games import documented as _documented
from api.worker import worker
from domain.core import BadCommand
from domain.core.words import N_
from service import GameNotFound
from service.audit.gamelog import GameLog
from service.store.repository import parse_game_id

blp = GruftBlueprint("log", __name__, description="The game log: every game that is over, "
                     "in an append-only Merkle tree (RFC 9162), and the keys that signed")


def game_log() -> GameLog:
    """This worker's view of the store's game log."""
    return worker().game_log


def _size(size: int | None, what: str) -> int:
    """A tree size the log has reached (the current one when None); 400 beyond it."""
    current = game_log().tree().size
    if size is None:
        return current
    if size > current:
        raise BadCommand(N_("%(what)s %(size)s is beyond the log's size, %(current)s"), what=what,
                         size=size, current=current)
    return size


@blp.route("/log/checkpoint")
class Checkpoint(MethodView):
    @blp.response(200, schemas.LogCheckpoint)
    def get(self):
        """The log's current size and root, signed by the server's key."""
        return game_log().checkpoint()


@blp.route("/log/proof/<game_id>")
class InclusionProof(MethodView):
    @blp.arguments(schemas.LogProofQuery(), location="query")
    @blp.response(200, schemas.LogProof)
    @_documented(400, 404)
    def get(self, query, game_id):
        """The proof that a game that is over is a leaf of the tree of `size` (default: now)."""
        gid = parse_game_id(game_id)
        size = _size(query.get("size"), "size")
        proof = game_log().inclusion(gid, size)
        if proof is None:
            raise GameNotFound(N_("game %(gid)s is not in the log of size %(size)s (not over, "
                                  "not logged yet, or logged after it)"), gid=gid, size=size)
        return proof


@blp.route("/log/consistency")
class ConsistencyProof(MethodView):
    @blp.arguments(schemas.LogConsistencyQuery(), location="query")
    @blp.response(200, schemas.LogConsistency)
    @_documented(400)
    def get(self, query):
        """The proof that the tree of `first` leaves is a prefix of the tree of `second`."""
        second = _size(query.get("second"), "second")
        if query["first"] > second:
            raise BadCommand(N_("first (%(first)s) is larger than second (%(second)s)"),
                             first=query['first'], second=second)
        return game_log().consistency(query["first"], second)


@blp.route("/signing-keys")
class SigningKeys(MethodView):
    @blp.response(200, schemas.SigningKeys)
    def get(self):
        """Every key this server has signed with, and when it was current."""
        key = worker().signing_key
        return {"keys": key.history}
