"""Replay documents: export, verification, import, and the key that signs them."""

from __future__ import annotations

import hashlib
import json
from contextlib import suppress
from typing import Any

from flask import current_app, request
from flask.views import MethodView

from api import schemas
from api.errors import GruftBlueprint, error_response
from api.gamelog import game_log, witnessing
from api.games import documented as _documented
from api.games import games, viewer
from api.i18n import error_text, language, narration_words
from api.inputs import request_bytes
from api.verdicts import Verified, verify_body
from api.worker import worker
from domain.core.words import N_, Phrase
from replays.document import build_document, describe
from service.audit.signing import SigningKey
from service.caches import EXPORTS, BytesLRU

blp = GruftBlueprint("replays", __name__, description="Signed replay documents")


def signing_key() -> SigningKey:
    """This server's signing key."""
    return worker().signing_key


def verified_body(keep: bool = False) -> Verified:
    """This request's document verified once, under the worker's bound and off its thread
    (api.verifying): the raw body (bounded as every body is, api.inputs) is parsed where it is
    verified; with `keep`, what an import stores comes back with the verdict. The retired-key
    rule is applied here, as it reads this server's game log."""
    with worker().verifier.gate.slot(request.remote_addr or ""):
        found = worker().verifier.verified(verify_body, request_bytes(), signing_key().ring,
                                           language(), keep)
    return retired_rule(found)


def retired_rule(found: Verified) -> Verified:
    """The verdict against the keys on this server's ring: the current one counts, and a
    retired one only for a game in this server's log as over while that key was current (else
    the signature is "retired", a problem, and nothing is kept to import)."""
    verdict = found.verdict
    if verdict["signature"] != "verified" or verdict["key_id"] == signing_key().key_id:
        return found
    problem = retired_problem(found.leaf, verdict["key_id"])
    if problem is None:
        return found
    return Verified({**verdict, "valid": False, "signature": "retired", "problems": [
        *verdict["problems"], {"version": None, "code": "retired_key",
                               "message": error_text(problem)}]}, found.leaf)


def retired_problem(leaf: dict | None, signer: str | None) -> Phrase | None:
    """Why a document a retired key signed does not count here: its game (its `leaf`) is not
    in this server's log as over before that key was retired (None: it is)."""
    period = signing_key().retired_period(signer or "") or {"until": None}
    if leaf is not None and game_log().logged_before(leaf, period["until"]):
        return None
    return Phrase(N_("the document is signed by a key this server retired at %(until)s, and the "
                     "game it tells of is not in this server's log as over before then: a "
                     "retired key vouches for nothing new"), until=period["until"])


@blp.route("/games/<game_id>/export")
class Export(MethodView):
    @blp.response(200, schemas.Document)
    @_documented(401, 403, 404, 429)
    def get(self, game_id):
        """The signed replay document (host any time, anyone once finished)."""
        game = games().reads.replay_game(game_id, viewer(game_id), N_("the export"))
        key = signing_key()
        logged = game_log().for_export(game.id) if game.finished else None
        witnessed = witnessing().for_export(game.id) if logged is not None else None
        annotations = games().arbiter.annotation_records(game)
        origin = games().arbiter.origin(game)
        # A finished game's document changes only with what is added beside its log: it is kept
        # by all it is made of (issue 32, item 8: a 4,904-event export took 309 ms).
        made_of = (game.id, game.version, key.key_id, hashlib.sha256(json.dumps(
            [annotations, logged, witnessed, origin], sort_keys=True, default=str).encode()
        ).hexdigest()) if game.finished else None
        if made_of is not None:
            with suppress(KeyError):
                return current_app.response_class(DOCUMENTS.get(made_of),
                                                  mimetype="application/json")
        document = build_document(game, games().reads.records_of(game), key.sign,
                                  key.public_pem, annotations, log=logged, origin=origin,
                                  witnessed=witnessed)
        if made_of is None:
            return document
        body = current_app.json.response(schemas.Document().dump(document)).get_data()
        DOCUMENTS.put(made_of, body)
        return current_app.response_class(body, mimetype="application/json")


class Documents:
    """Finished games' exports as sent, by what each is made of (service.caches.EXPORTS)."""

    def __init__(self) -> None:
        self._sent: BytesLRU[tuple[Any, ...], bytes] = BytesLRU(EXPORTS, len)

    def get(self, key: tuple[Any, ...]) -> bytes:
        return self._sent.get(key)

    def put(self, key: tuple[Any, ...], body: bytes) -> None:
        self._sent.put(key, body)


DOCUMENTS = Documents()


@blp.route("/replays/verify")
class VerifyReplay(MethodView):
    @blp.doc(requestBody={"content": {"application/json": {"schema": schemas.Document}}})
    @blp.response(200, schemas.Verdict)
    @_documented(400, 429, 503)
    def post(self):
        """Re-run a replay document through the rules; check its chain, seed and signature."""
        return verified_body().verdict


@blp.route("/games/import")
class ImportReplay(MethodView):
    @blp.doc(requestBody={"content": {"application/json": {"schema": schemas.Document}}})
    @blp.response(201, schemas.CreatedGame)
    @_documented(400, 422, 429, 503)
    def post(self):
        """Create a game from a valid replay document; a forged one is refused, nothing stored."""
        found = verified_body(keep=True)
        if not found.verdict["valid"]:
            first = found.verdict["problems"][0]
            # "version N: …", its message already in the reader's language
            return error_response(422, "invalid_replay", describe(first, narration_words()[0]))
        # The game re-run where the document was verified, stored under a new id.
        return games().store_imported(  # a NewGame, dumped by CreatedGame
            found.game, found.annotations, origin=found.origin)


@blp.route("/signing-key")
class PublicKey(MethodView):
    @blp.response(200, schemas.SigningKeyBody)
    def get(self):
        """The server's Ed25519 public key, to check exported documents offline."""
        key = signing_key()
        return {"alg": "ed25519", "key": key.public_pem, "key_id": key.key_id}

