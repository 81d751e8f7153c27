"""Request and response shapes of docs/api.md: the single home of every body, and of the OpenAPI doc."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import RAISE, Schema, ValidationError, fields, validate

from api.auth import MAX_TOKEN_LENGTH
from api.i18n import error_text
from domain import GAMES, game_class
from domain.core import BadSetup, Param
from domain.core.chain import AUTHORS
from domain.core.clocks import BANK_MAX, INCREMENT_MAX
from domain.core.dealing import check_seed
from domain.core.game import MAX_ABORT_REASON
from domain.core.names import MAX_NAME_LENGTH
from domain.core.words import N_
from service.audit.arbiter import KINDS as ANNOTATION_KINDS
from service.audit.arbiter import MAX_TEXT as MAX_ANNOTATION_TEXT
from service.readmodels.stat_kinds import METRICS
from service.table.seats import BOT_KINDS

MAX_PLAYERS_LISTED = 12
STATUSES = ["in_progress", "finished", "aborted"]  # a game's status (aborted: by its host)
MAX_WAIT_SECONDS = 30  # the longest long poll (GET /games/{id}/events?wait=)
MAX_CURSOR = (1 << 63) - 1  # positions and versions are 64-bit integers in every store


class StrictSchema(Schema):
    """Unknown fields are a 400, not silently dropped."""

    class Meta:
        unknown = RAISE


class Seed(fields.Field):
    """A seed: a whole number or a string (its commitment is SHA-256 of str(seed))."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int | str:
        try:
            check_seed(value)  # the domain's bounds, so a bad seed is a field error here
        except BadSetup as err:
            raise ValidationError(error_text(err)) from None  # in the reader's language
        return value

    def _jsonschema_type_mapping(self) -> dict[str, Any]:
        return {"oneOf": [{"type": "integer"}, {"type": "string"}]}


class WholeNumber(fields.Integer):
    """An integer in a JSON body: "2", 2.9, 2.0 and true are refused, not converted (issue 16)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._validated(value)


# -- errors ------------------------------------------------------------------------------

class ErrorBody(Schema):
    code = fields.String(required=True, metadata={"description": "bad_request, unauthorized, "
                         "forbidden, not_found, conflict, not_your_turn, illegal_move, …"})
    message = fields.String(required=True)
    rule = fields.String(metadata={"description": "the ruling a refused command breaks, e.g. VQ-7"})


class Error(Schema):
    error = fields.Nested(ErrorBody, required=True)


# -- games -------------------------------------------------------------------------------

class Seconds(fields.Field):
    """A number of seconds as sent (a whole number stays one: it is recorded as given)."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise ValidationError(N_("a number of seconds"))  # api.i18n.VALIDATION
        return value

    def _jsonschema_type_mapping(self) -> dict[str, Any]:
        return {"type": "number"}


class Clock(StrictSchema):
    bank = Seconds(required=True, validate=validate.Range(1, BANK_MAX),
                   metadata={"description": "seconds each seat has in all"})
    increment = Seconds(required=True, validate=validate.Range(0, INCREMENT_MAX),
                        metadata={"description": "seconds added after each of its moves"})


class SeatClock(Schema):
    remaining = fields.Float(required=True, metadata={"description": "seconds left, as of the "
                             "view"})
    running = fields.Boolean(required=True, metadata={"description": "whether the seat is "
                             "awaited and its clock runs"})


class CreateGame(StrictSchema):
    game = fields.String(required=True, validate=validate.OneOf(list(GAMES)))
    players = fields.List(fields.String(validate=validate.Length(1, MAX_NAME_LENGTH)), required=True,
                          validate=validate.Length(1, MAX_PLAYERS_LISTED))
    seed = Seed(metadata={"description": "omit to let the server draw 256 random bits"})
    options = fields.Dict(keys=fields.String(), validate=validate.Length(max=20))
    deal = fields.Dict(keys=fields.String(), metadata={"description": "a stacked deal, see the "
                       "rules page of the game"})
    bots = fields.Dict(
        keys=fields.String(validate=validate.Length(1, MAX_NAME_LENGTH)),
        values=fields.String(validate=validate.OneOf(BOT_KINDS)),
        validate=validate.Length(max=MAX_PLAYERS_LISTED),
        metadata={"description": "seats the server plays: {player name: \"heuristic\" | "
                  "\"random\"}, each a name in `players`; every seat may be a bot. A bot moves "
                  "shortly after it is awaited, through the same commands and rules as a player"})
    clock = fields.Nested(Clock, metadata={"description": "each seat's clock (default: none). "
                          "A seat whose clock runs out has that move made by the server's "
                          "heuristic bot (ClockExpired, by clock)"})
    host_seat = fields.String(validate=validate.Length(1, MAX_NAME_LENGTH), metadata={
        "description": "a name in `players`: the organiser plays that seat with the host "
                       "token, which then sees only that seat's secrets while the game is in "
                       "play, acts only for it, and keeps the host's other rights"})


class View(Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True)
    to_act = fields.List(fields.String(), required=True)
    scores = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winners = fields.List(fields.String(), required=True)
    seed_commitment = fields.String(required=True)
    options = fields.Dict()
    state = fields.Dict(required=True)
    seed = fields.Raw(metadata={"description": "only for the host, or once the game is over"})
    salt = fields.String(metadata={"description": "the seed commitment's salt (64 hex digits), "
                                   "shown with the seed: only for the host, or once the game is "
                                   "over; absent for a game imported from a format 1 document"})
    you = fields.String()
    private = fields.Dict()
    parent = fields.Nested(lambda: ForkParent(), metadata={
        "description": "only in a fork: the game it was forked from, the version of the event "
                       "after which it begins and that event's hash"})
    bots = fields.Dict(keys=fields.String(), values=fields.String(), metadata={"description":
                       "only in games with bot seats: {player name: bot} for the seats the "
                       "server plays now (bot seats and seats handed to a bot)"})
    present = fields.List(fields.String(), metadata={"description": "the seats with the game "
                          "open now (an open stream), in seat order; not recorded"})
    clocks = fields.Dict(keys=fields.String(), values=fields.Nested(SeatClock), metadata={
        "description": "only in games with a clock: each seat's clock as of the view"})
    clocks_started = fields.Boolean(metadata={"description": "only in games with a clock: "
                                    "false while the clocks wait for the table (until the "
                                    "first move a person makes, every person's seat has the "
                                    "game open, or the host starts them: ClocksStarted)"})
    rematch = fields.String(metadata={"description": "once a rematch of this game was made: "
                            "its game_id"})
    sealed = fields.Boolean(metadata={"description": "only true, only in a game that is over "
                            "but whose record stays sealed: a game forked from its secret table "
                            "(or a fork of the same family) is still in play"})


class Rematch(Schema):
    game_id = fields.String(required=True, metadata={"description": "the rematch"})
    host_token = fields.String(metadata={"description": "to the host: a fresh host token when "
                               "this call made the rematch, else the caller's own (valid there)"})
    player_tokens = fields.Dict(keys=fields.String(), values=fields.String(), metadata={
        "description": "to the host: fresh player tokens when this call made the rematch, else "
                       "none (the server keeps only hashes); every seat's token of this game is "
                       "valid in the rematch too"})
    player_token = fields.String(metadata={"description": "to a seat: its token in the rematch "
                                 "(the caller's own, valid there)"})
    view = fields.Nested(View, metadata={"description": "to the host: the rematch's public view"})


class SeatBody(StrictSchema):
    bot = fields.String(required=True, allow_none=True, validate=validate.OneOf(BOT_KINDS),
                        metadata={"description": "the bot that plays the seat from now on, or "
                                  "null: its player again"})


class CreatedGame(Schema):
    game_id = fields.String(required=True)
    host_token = fields.String(required=True)
    player_tokens = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    view = fields.Nested(View, required=True)


class GamesQuery(StrictSchema):
    game = fields.String()
    status = fields.String(validate=validate.OneOf(STATUSES))
    player = fields.String(validate=validate.Length(1, MAX_NAME_LENGTH))
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_CURSOR))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))


class GameSummary(Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)


class GamesPage(Schema):
    games = fields.List(fields.Nested(GameSummary), required=True)
    next = fields.Integer(allow_none=True, metadata={"description": "pass as ?after= for the next page"})


class SeatQuery(StrictSchema):
    player = fields.String(validate=validate.Length(1, MAX_NAME_LENGTH),
                           metadata={"description": "the host names the seat"})


# -- commands ----------------------------------------------------------------------------

def _command_fields() -> dict[str, fields.Field]:
    """Every field the games' commands take, as each game declares it (Command/Param in
    domain/<game>/): a word, or a list of words. The games check the values themselves."""
    kinds: dict[str, type] = {}
    for key in GAMES:
        for command in game_class(key).COMMANDS.values():
            for name, param in command.params.items():
                assert kinds.setdefault(name, param.kind) is param.kind, f"{name}: two kinds"
    word = validate.Length(max=Param.WORD_MAX)
    return {name: fields.List(fields.String(validate=word), validate=validate.Length(
                max=Param.LIST_MAX)) if kind is list else fields.String(validate=word)
            for name, kind in sorted(kinds.items())}


CommandBody = StrictSchema.from_dict({
    "type": fields.String(required=True, metadata={"description": "see the rules page of the game"}),
    "player": fields.String(metadata={"description": "the host acts for this player"}),
    "expected_version": WholeNumber(validate=validate.Range(0, MAX_CURSOR)),
    **_command_fields(),
}, name="CommandBody")


class Event(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    timestamp = fields.String(required=True)
    by = fields.String(validate=validate.OneOf(AUTHORS), metadata={"description": (
        "who stored it: seat (its own token), host (for a seat), bot, clock, or server (what "
        "follows from a move or a creation); absent from events stored before it existed")})
    shape = fields.Integer(validate=validate.Range(2), metadata={"description": (
        "the shape `data` was stored in, where it is not its type's first (docs/format.md, "
        "\"Event shapes\"): VampiRing's TurnResolved is stored in shape 2 since 0.2.0")})
    data = fields.Dict(required=True)


class CommandResult(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(Event), required=True)
    to_act = fields.List(fields.String(), required=True,
                         metadata={"description": "who is awaited now (empty once it is over)"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES),
                           metadata={"description": "whether the game goes on"})
    receipt = fields.Nested(lambda: Receipt(), metadata={
        "description": "the server's signed receipt of what the command stored (keep it: "
                       "gruft verify --receipt holds any later document of the game to it)"})


class Receipt(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "the version of the last event the command stored"})
    hash = fields.String(required=True, metadata={"description": "that event's chain hash"})
    key_id = fields.String(required=True, metadata={
        "description": "the signing key's fingerprint (GET /signing-keys)"})
    signature = fields.String(required=True, metadata={
        "description": "Ed25519, base64, over the canonical JSON of the receipt without "
                       "signature"})


class AbortBody(StrictSchema):
    reason = fields.String(required=True, validate=validate.Length(1, MAX_ABORT_REASON),
                           metadata={"description": "why the host stops the game (public)"})


# -- the arbiter's desk: annotations and forks ---------------------------------------------

class ForkParent(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    hash = fields.String(required=True)


class AnnotationBody(StrictSchema):
    version = WholeNumber(required=True, validate=validate.Range(0, MAX_CURSOR),
                          metadata={"description": "the step annotated: an event's version, "
                                                   "0 for the setup"})
    text = fields.String(required=True, validate=validate.Length(1, MAX_ANNOTATION_TEXT))
    kind = fields.String(load_default="note", validate=validate.OneOf(ANNOTATION_KINDS))
    author = fields.String(load_default=None, validate=validate.Length(1, 200), metadata={
        "description": "whose note or ruling it is: a name as players are named (1-40 "
                       "characters once trimmed); the host by default"})


class Annotation(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(ANNOTATION_KINDS))
    text = fields.String(required=True)
    author = fields.String(required=True)
    timestamp = fields.String(required=True)
    game_id = fields.String(metadata={"description": "the game it was made on: in a copy "
                            "imported from another game, the copy's own annotations name the "
                            "copy, those it brought along the original (older ones name none)"})


class Annotations(Schema):
    annotations = fields.List(fields.Nested(Annotation), required=True)


class ForkBody(StrictSchema):
    at = WholeNumber(required=True, validate=validate.Range(0, MAX_CURSOR), metadata={
        "description": "the version of the event after which the fork begins"})


class ForkLink(Schema):
    game_id = fields.String(required=True)
    at = fields.Integer(required=True)


class Forks(Schema):
    forks = fields.List(fields.Nested(ForkLink), required=True)


class LegalMoves(Schema):
    player = fields.String(required=True)
    moves = fields.List(fields.Dict(), required=True)
    previews = fields.List(fields.Dict(), metadata={"description": (
        "vampiring only, one per move in the same order: where the player's three vampires "
        "would land, {\"vampires\": {id: {\"shape\", \"path\": [positions from the start, "
        "each card stopped on], \"position\"}}} (VR-4, VR-5); fights wait for every move. "
        "Send the move itself, never its preview")})


class EventsQuery(StrictSchema):
    after = fields.Integer(load_default=0, validate=validate.Range(0, MAX_CURSOR))
    limit = fields.Integer(load_default=100, validate=validate.Range(1, 1000))
    wait = fields.Float(load_default=0.0, allow_nan=False,
                        validate=validate.Range(0, MAX_WAIT_SECONDS), metadata={
                            "description": "long polling: when no event is after `after`, answer "
                                           "as soon as one is stored, or empty after this many "
                                           "seconds (0-30)"})
    player = fields.String(validate=validate.Length(1, MAX_NAME_LENGTH), metadata={
        "description": "only the events this player made or is named in, judged on each event "
                       "as the caller may see it (a hidden field never decides); a name that "
                       "does not play in the game is a 400"})
    type = fields.String(validate=validate.Length(1, 1000), metadata={
        "description": "only events of these types (comma-separated, e.g. `Played,RoundEnded`); "
                       "a type the game never records is a 400 whose message lists the game's "
                       "event types. Versions stay as stored; `next_after` pages on through the "
                       "matches"})


class StreamQuery(StrictSchema):
    after = fields.Integer(validate=validate.Range(0, MAX_CURSOR), metadata={
        "description": "the first message also carries the events after this version (a "
                       "Last-Event-ID header takes precedence)"})
    token = fields.String(validate=validate.Length(1, MAX_TOKEN_LENGTH), metadata={
        "description": "the viewer's token, for EventSource, which cannot send headers "
                       "(never logged)"})
    player = fields.String(validate=validate.Length(1, MAX_NAME_LENGTH),
                           metadata={"description": "the host names a seat to view"})
    rematch = fields.Boolean(load_default=False, metadata={
        "description": "true: once the game is over the stream stays open until its rematch is "
                       "made (POST /games/{id}/rematch), then sends `event: rematch` with "
                       "`data: {\"game_id\"}` and ends"})


class StreamHeaders(Schema):
    last_event_id = fields.Integer(data_key="Last-Event-ID",
                                   validate=validate.Range(0, MAX_CURSOR), metadata={
                                       "description": "the id of the last message received (a "
                                       "browser's EventSource sends it when it reconnects): the "
                                       "first message then carries every event after it"})


class EventsPage(Schema):
    events = fields.List(fields.Nested(Event), required=True)
    next_after = fields.Integer(allow_none=True, required=True)


class ReplayStep(Schema):
    version = fields.Integer(required=True)
    of = fields.Integer(required=True)
    event = fields.Dict(allow_none=True, required=True)
    state = fields.Dict(allow_none=True, required=True)
    view = fields.Nested(View, allow_none=True, required=True)


# -- replay documents ------------------------------------------------------------------

class ChainedEvent(Event):
    nonce = fields.String(metadata={"description": (
        "format 3, an event that holds a secret: the secret random nonce its chain link covers "
        "(64 hex digits), revealed with the seed (docs/format.md, \"Commitment nonces\")")})
    prev_hash = fields.String(required=True)
    hash = fields.String(required=True)


class Final(Schema):
    scores = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winners = fields.List(fields.String(), required=True)


class Signature(Schema):
    alg = fields.String(required=True)
    key = fields.String(required=True)
    value = fields.String(required=True)


class Document(Schema):
    """A replay document (docs/api.md); the verifier, not this schema, checks a posted one."""

    format = fields.String(required=True)
    format_version = fields.Integer(required=True)
    game = fields.String(required=True)
    game_id = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    options = fields.Dict(required=True)
    seed = fields.Raw(required=True)
    seed_commitment = fields.String(required=True, metadata={
        "description": 'formats 2 and 3: SHA-256 hex of salt + ":" + str(seed); format 1: of '
                       'str(seed)'})
    salt = fields.String(metadata={"description": "formats 2 and 3: 64 hex digits, server-drawn"})
    created_at = fields.String(required=True)
    status = fields.String()
    events = fields.List(fields.Nested(ChainedEvent), required=True)
    final = fields.Nested(Final, required=True)
    signature = fields.Nested(Signature, required=True)
    key_id = fields.String(metadata={"description": "the signing key's fingerprint: SHA-256 hex "
                                     "of its DER public key"})
    annotations = fields.List(fields.Dict(), metadata={"description": (
        "the arbiter's notes and rulings: [{id, version, kind, text, author, timestamp, "
        "event_hash, prev_hash, hash}], chained from the seed commitment")})
    parent = fields.Nested(ForkParent, metadata={"description": "a fork's parent game, version "
                                                 "and the hash of that event"})
    log = fields.Nested("DocumentLog", metadata={"description": "a game that is over: its "
                        "inclusion proof in the game log against a signed checkpoint"})
    log_witnessed = fields.Nested("DocumentWitnessedLog", metadata={"description": (
        "a game that is over, on a server with witnesses (GRUFT_WITNESSES): its inclusion proof "
        "against the newest checkpoint cosigned by enough of them (a C2SP signed note)")})
    origin = fields.Dict(metadata={"description": "an imported copy: {game_id, key_id, "
                         "origin?} of the game it copies and the key that signed that document; "
                         "its own annotations name the copy's game_id, never the original's"})


class Verdict(Schema):
    valid = fields.Boolean(required=True)
    signature = fields.String(validate=validate.OneOf(
        ["verified", "unverified", "untrusted", "retired", "invalid", "unchecked"]), metadata={
        "description": "verified: by this server's key; untrusted: a valid signature by a key "
                       "this server does not know; retired: by a retired key of this server, "
                       "for a game not in its log under that key; invalid: it does not match "
                       "the document"})
    key_id = fields.String(allow_none=True, metadata={
        "description": "the fingerprint of the key that signed the document"})
    problems = fields.List(fields.Dict(), required=True,
                           metadata={"description": "[{version, code, message}], first problem first"})
    scores = fields.Dict(allow_none=True, required=True)
    winners = fields.List(fields.String(), allow_none=True, required=True)


class WitnessStatus(Schema):
    name = fields.String(required=True, metadata={"description": "the witness's key name"})
    url = fields.String(required=True)
    cosigned = fields.Integer(required=True, metadata={
        "description": "the largest log size it cosigned for this worker (0: none)"})
    behind = fields.Integer(required=True, metadata={
        "description": "games logged since: how far behind the log it is"})
    error = fields.String(allow_none=True, required=True, metadata={
        "description": "why its last submission failed; null: it did not"})


class Health(Schema):
    status = fields.String(required=True, metadata={"description": "`live` or `ready`"})
    witnesses = fields.List(fields.Nested(WitnessStatus), metadata={
        "description": "`GET /readyz` with GRUFT_WITNESSES: each witness of the game log and how "
                       "far behind it is (never a reason to be unready)"})
    version = fields.String(metadata={"description": "`GET /livez`: the release of gruft the "
                                                      "process runs, e.g. `0.2.0`"})


class SigningKeyBody(Schema):
    alg = fields.String(required=True)
    key = fields.String(required=True, metadata={"description": "Ed25519 public key, PEM"})
    key_id = fields.String(metadata={"description": "its fingerprint: SHA-256 hex of the DER key"})


# -- statistics (the read models) -----------------------------------------------------

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
    game = fields.String(required=True, validate=validate.OneOf(list(GAMES)),
                         metadata={"description": "the game key"})
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


# -- the game log *(trust)* ------------------------------------------------------------

HEX = "lowercase hex of a SHA-256 hash"


class LogCheckpoint(Schema):
    origin = fields.String(required=True, metadata={"description": "names this server's log"})
    size = fields.Integer(required=True, metadata={"description": "how many games it holds"})
    root = fields.String(required=True, metadata={"description": f"the tree's root, {HEX}"})
    timestamp = fields.String(required=True)
    key_id = fields.String(required=True, metadata={"description": "the signing key's id"})
    signature = fields.String(required=True, metadata={
        "description": "Ed25519 (base64) over the canonical JSON without `signature`"})


class LogLeaf(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "the game's last event"})
    hash = fields.String(required=True, metadata={"description": "the hash of that event"})


class LogProofQuery(StrictSchema):
    size = fields.Integer(validate=validate.Range(1, MAX_CURSOR), metadata={
        "description": "the tree size to prove against (default: the current one)"})


class LogProof(Schema):
    index = fields.Integer(required=True, metadata={"description": "the leaf's place, from 0"})
    size = fields.Integer(required=True)
    leaf = fields.Nested(LogLeaf, required=True, metadata={
        "description": "its hash: SHA-256(0x00 || the UTF-8 of the leaf's canonical JSON)"})
    proof = fields.List(fields.String(), required=True, metadata={
        "description": "RFC 9162 §2.1.3 inclusion proof, bottom up"})


class LogConsistencyQuery(StrictSchema):
    first = fields.Integer(required=True, validate=validate.Range(0, MAX_CURSOR))
    second = fields.Integer(validate=validate.Range(0, MAX_CURSOR), metadata={
        "description": "default: the current size"})


class LogConsistency(Schema):
    first = fields.Integer(required=True)
    second = fields.Integer(required=True)
    proof = fields.List(fields.String(), required=True, metadata={
        "description": "RFC 9162 §2.1.4 consistency proof"})


class DocumentLog(Schema):
    index = fields.Integer(required=True)
    proof = fields.List(fields.String(), required=True)
    checkpoint = fields.Nested(LogCheckpoint, required=True)


class DocumentWitnessedLog(Schema):
    index = fields.Integer(required=True)
    proof = fields.List(fields.String(), required=True, metadata={
        "description": "the inclusion proof, lowercase hex SHA-256 hashes"})
    checkpoint = fields.String(required=True, metadata={
        "description": "the checkpoint as a C2SP signed note: the server's signature and the "
                       "witnesses' cosignatures (GET /log/tlog/checkpoint)"})


class KeyPeriod(Schema):
    key_id = fields.String(required=True)
    key = fields.String(required=True, metadata={"description": "Ed25519 public key, PEM"})
    # "from" is a Python keyword: the attribute is from_, the JSON name from
    from_ = fields.String(allow_none=True, required=True, data_key="from",
                          attribute="from", metadata={"description": "when it became current"})
    until = fields.String(allow_none=True, required=True,
                          metadata={"description": "when it was retired; null: current"})
    vkey = fields.String(required=True, metadata={
        "description": "its C2SP verifier key for the log's signed-note checkpoints (GET "
                       "/log/tlog/checkpoint): <origin>+<key ID hex>+base64(0x01 ‖ public key)"})


class SigningKeys(Schema):
    keys = fields.List(fields.Nested(KeyPeriod), required=True, metadata={
        "description": "every key this server has signed with, oldest first"})


__all__ = [name for name, value in dict(globals()).items()
           if isinstance(value, type) and issubclass(value, ma.Schema)]
