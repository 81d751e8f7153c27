"""The game log over HTTP: signed checkpoints, inclusion and consistency proofs, and the keys."""

from __future__ import annotations

from flask import Response, abort
from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint
from api.games import documented as _documented
from api.worker import worker
from domain.core import BadCommand
from domain.core.words import N_
from service import GameNotFound
from service.audit.gamelog import GameLog
from service.audit.signing import vkey
from service.audit.tlog import TILE_WIDTH, parse_tile_index
from service.audit.witnessing import Witnessing
from service.store.repository import parse_game_id

NOTE = {"description": "a C2SP checkpoint: a signed note (c2sp.org/tlog-checkpoint)", "content": {
    "text/plain": {"schema": {"type": "string"}}}}
TILE = {"description": "a C2SP tile or entry bundle (c2sp.org/tlog-tiles)", "content": {
    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}
FULL_TILE_CACHE = "public, max-age=31536000, immutable"  # a full tile never changes
PARTIAL_TILE_CACHE = "public, max-age=10"  # a partial one is replaced as the log grows
MAX_LEVEL = 63  # tlog-tiles.md: <L> from 0 to 63

blp = GruftBlueprint("log", __name__, description="The game log: every game that is over, "
                     "in an append-only Merkle tree (RFC 9162), and the keys that signed")


def game_log() -> GameLog:
    """This worker's view of the store's game log."""
    return worker().game_log


def witnessing() -> Witnessing:
    """This worker's witnessing of the log (service/audit/witnessing.py)."""
    return worker().witnessing


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


@blp.route("/log/tlog/checkpoint")
@blp.doc(responses={200: NOTE, 503: {"description": "no checkpoint cosigned by enough "
                                             "witnesses yet (GRUFT_WITNESSES_NEEDED)"}})
def tlog_checkpoint():
    """The log's checkpoint as a C2SP signed note, cosigned by enough of its witnesses when
    GRUFT_WITNESSES names some (the newest they cosigned), else its current one."""
    witnesses = witnessing()
    if witnesses.enabled:
        cosigned = witnesses.cosigned()
        if cosigned is None:
            return Response("no checkpoint is cosigned by enough witnesses yet\n", 503,
                            {"Content-Type": "text/plain; charset=utf-8",
                             "Cache-Control": "no-store", "Retry-After": "5"})
        note = cosigned[1]
    else:
        note = game_log().note()
    return Response(note, 200, {"Content-Type": "text/plain; charset=utf-8",
                                "Cache-Control": "no-cache, max-age=0"})


def _tile(data: bytes | None, width: int) -> Response:
    if data is None:
        abort(404, description="the log is not that big yet")
    return Response(data, 200, {"Content-Type": "application/octet-stream", "Cache-Control":
                                FULL_TILE_CACHE if width == TILE_WIDTH else PARTIAL_TILE_CACHE})


def _index(path: str) -> tuple[int, int]:
    try:
        return parse_tile_index(path)
    except ValueError:
        abort(404, description="not a tile path (tlog-tiles.md: <N> as x001/x234/067, .p/<W>)")


@blp.route("/log/tlog/tile/<int:level>/<path:index>")
@blp.doc(responses={200: TILE, 404: {"description": "no such tile (yet)"}})
def tlog_tile(level, index):
    """A tile of the log's Merkle tree (tile width 256; `index` as `x001/234[.p/W]`)."""
    n, width = _index(index)
    if level > MAX_LEVEL:
        abort(404, description=f"a tile's level is 0 to {MAX_LEVEL}")
    return _tile(game_log().tile(level, n, width), width)


@blp.route("/log/tlog/tile/entries/<path:index>")
@blp.doc(responses={200: TILE, 404: {"description": "no such entry bundle (yet)"}})
def tlog_entries(index):
    """An entry bundle: each leaf (the canonical JSON of a game's id, last version and hash)
    behind its two-byte big-endian length."""
    n, width = _index(index)
    return _tile(game_log().entries(n, width), width)


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
        name = game_log().origin  # a note's key name: the log's origin
        return {"keys": [{**k, "vkey": vkey(k["key"], name)} for k in key.history]}
