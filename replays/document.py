"""The replay document of docs/api.md: export, signature, and verification by re-running the rules.

Verification trusts nothing in the document: it checks the hash chain and the signature, checks
the seed against its commitment, then starts the game again from the recorded setup (so seeded
deals are dealt again from the revealed seed), turns every recorded player action back into a
command, runs it through the rules and expects exactly the recorded follow-up events; finally it
recomputes the scores. The first problem found names its version; a problem's message never
repeats it (`describe` puts the two together for a reader).

Format 2 (every game the service creates) commits to the seed with a salt: `seed_commitment` =
SHA-256 of `salt + ":" + str(seed)`, the salt revealed with the seed. Format 1 documents (no salt,
SHA-256 of `str(seed)`) keep verifying as they always did; a game imported from one stays format 1.
"""

from __future__ import annotations

import functools
import json
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import jsonschema_rs

from domain import game_class
from domain.core import (
    BadCommand,
    BadSetup,
    Game,
    GameError,
    Refusal,
    canonical,
    event_hash,
    record_hash,
    recorded_timestamps,
    seed_commitment,
)
from domain.core.chain import (
    AUTHORS,
    BOT,
    CLOCK,
    HOST_BY,
    SEAT,
    SERVER,
    stored_data,
    stored_shape,
    timestamp_text,
)
from domain.core.clocks import deadline
from domain.core.game import recorded_authors, recorded_shapes
from domain.core.words import N_
from replays.logproof import log_problem
from service.signing import key_id

FORMAT = "gruft-replay"
FORMAT_VERSION = 2  # what the service exports; a game without a salt still exports as 1
FORMAT_VERSIONS = (1, 2)
CREATED = Game.Created.__name__  # a game's first event
FORKED = Game.Forked.__name__  # a fork's second event: the table it carries over (domain.core.game)
ABORTED = Game.GameAborted.__name__  # the host's abort (domain.core.game): re-run as the host's, not a player's
HANDED = Game.SeatHanded.__name__  # a seat handed to the server's bot or back (domain.core.game)
EXPIRED = Game.ClockExpired.__name__  # a seat's clock ran out (domain.core.clocks): checked against its deadline
# What the host or the server records beside the players' moves, and who may have stored it.
LIFECYCLE = {ABORTED: (HOST_BY,), HANDED: (HOST_BY, SEAT), EXPIRED: (CLOCK,)}
# The document's shape, as a JSON Schema (docs/format.md): the verifier's shape errors are its.
SCHEMA_PATH = Path(__file__).parent / "schema" / "document.json"


def unsigned(document: dict[str, Any]) -> bytes:
    """What the signature covers: the canonical JSON of the document without `signature`."""
    return canonical({k: v for k, v in document.items() if k != "signature"}).encode("utf-8")


def build_document(game: Game, records: list[dict[str, Any]], sign, public_pem: str,
                   annotations: list[dict[str, Any]] | None = None,
                   log: dict[str, Any] | None = None,
                   origin: dict[str, Any] | None = None) -> dict:
    """The signed replay document of a game, its stored event records and its annotations;
    `log`: a game that is over, its inclusion proof in the game log (replays.logproof);
    `origin`: an imported copy, the game it copies (service.arbiter.Origin)."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION if game.salt is not None else 1,
        "game": game.KEY,
        "game_id": str(game.id),
        "players": list(game.players),
        "options": dict(game.options),
        "seed": game.seed,
        "seed_commitment": game.seed_commitment,
        "created_at": timestamp_text(game.created_on),
        "status": game.status,
        "events": records,
        "final": {"scores": dict(game.scores), "winners": list(game.winners)},
    }
    if game.salt is not None:
        doc["salt"] = game.salt  # revealed with the seed: the export is the host's until the end
    if game.parent is not None:
        doc["parent"] = dict(game.parent)  # a fork: where it began (gruft verify --parent)
    if origin is not None:
        doc["origin"] = dict(origin)  # a copy: its own annotations are never the original's
    doc["annotations"] = [dict(a) for a in annotations or ()]
    if log is not None:
        doc["log"] = log
    doc["key_id"] = key_id(public_pem)
    doc["signature"] = {"alg": "ed25519", "key": public_pem, "value": sign(unsigned(doc))}
    return doc


@dataclass
class Verdict:
    """What verification found: problems (first bad version named) and the recomputed result."""

    problems: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, int] | None = None
    winners: list[str] | None = None
    game: Game | None = None
    # "verified" (by a trusted key), "unverified" (it matches the document's
    # own key, but no trusted key was given to pin it), "untrusted", "invalid", or "unchecked"
    # (the caller checked the rules only, no signature)
    signature: str = "unchecked"
    key_id: str | None = None  # the fingerprint of the key that signed the document
    retired: dict[str, Any] | None = None  # that key's period, when it is a retired one

    @property
    def valid(self) -> bool:
        """Nothing wrong found, and no signature left unverified: a document that only agrees
        with its own key is never called valid (anyone can sign a forgery with a key of theirs)."""
        return not self.problems and self.signature != "unverified"

    def add(self, version: int | None, code: str, message: str) -> None:
        self.problems.append({"version": version, "code": code, "message": message})

    def as_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "signature": self.signature, "key_id": self.key_id,
                "problems": self.problems, "scores": self.scores, "winners": self.winners}


def describe(problem: dict[str, Any]) -> str:
    """One problem for a reader: where (its version, or the document) and what, each once."""
    version = problem.get("version")
    where = "document" if version is None else f"version {version}"
    return f"{where}: {problem['message']}"


def verify(document: Any, trusted_keys: list[str] | None = None,
           check_signature=None) -> Verdict:
    """Check a replay document completely; `trusted_keys` are the PEMs whose signature counts."""
    verdict = Verdict()
    if not _check_shape(document, verdict):
        return verdict
    if check_signature is not None:
        _check_signature(document, verdict, trusted_keys, check_signature)
        _check_log(document, verdict, trusted_keys, check_signature)
    _check_chain(document, verdict)
    _check_annotations(document, verdict)
    _check_origin(document, verdict)
    _check_times(document, verdict)
    _check_seed(document, verdict)
    game = _rerun(document, verdict)
    if game is not None:
        verdict.game = game
        verdict.scores, verdict.winners = dict(game.scores), list(game.winners)
        final = document["final"]
        if not isinstance(final, dict) or final.get("scores") != game.scores or sorted(
                final.get("winners") or []) != sorted(game.winners):
            verdict.add(game.version, "final_mismatch",
                        f"the final result says {canonical(final)}, the rules give "
                        f"{canonical({'scores': game.scores, 'winners': game.winners})}")
    return verdict


def check_fork(document: Any, parent: Any, trusted_keys: list[str] | None = None,
               check_signature=None) -> Verdict:
    """Verify a fork's document and prove it began exactly where it says: its parent's
    document is valid, names the same game, has the linked event with that hash, and the
    table the fork carried over is the parent's own state after that event."""
    verdict = verify(document, trusted_keys, check_signature)
    parents = verify(parent, trusted_keys, check_signature)
    for problem in parents.problems:
        verdict.add(None, "parent_invalid", f"the parent document, {describe(problem)}")
    if not isinstance(document, dict) or not isinstance(document.get("parent"), dict):
        verdict.add(None, "not_a_fork", "the document has no parent: it is not a fork")
        return verdict
    if parents.problems:
        return verdict
    link, events = document["parent"], parent["events"]
    step = link.get("version")
    if link.get("game_id") != parent["game_id"]:
        verdict.add(None, "parent_mismatch", f"the fork's parent is game {link.get('game_id')}, "
                    f"not {parent['game_id']}")
    elif not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= len(events):
        verdict.add(None, "parent_mismatch", f"the parent has no event {step}")
    elif events[step - 1]["hash"] != link.get("hash"):
        verdict.add(None, "parent_mismatch",
                    f"the parent's event {step} has another hash than the fork names")
    else:
        _check_carried_table(document, parent, step, verdict)
    return verdict


def _check_carried_table(document: dict, parent: dict, step: int, verdict: Verdict) -> None:
    cls = game_class(parent["game"])
    try:
        parent_id = UUID(str(parent["game_id"]))
    except ValueError:
        verdict.add(None, "parent_invalid", "the parent's game_id is not a game id")
        return
    at = cls.replayed(parent_id, parent["events"][:step])  # verified above: they re-run
    forked = document["events"][1] if len(document["events"]) > 1 else {}
    carried = forked.get("data", {}) if forked.get("type") == FORKED else {}
    created = document["events"][0]["data"]
    expected = {"table": at.table_state(), "players": at.players, "options": at.options,
                "deal": at.deal, "game": cls.KEY}
    found = {"table": carried.get("table"), "players": created.get("players"),
             "options": created.get("options"), "deal": created.get("deal"),
             "game": document.get("game")}
    differ = [k for k in expected if canonical(expected[k]) != canonical(found[k])]
    if differ:
        verdict.add(2, "fork_mismatch", f"the fork's {', '.join(differ)} differ from the "
                    f"parent's after its event {step}: the fork did not begin there")


@functools.cache
def _schema_validator() -> Any:
    """The document's JSON Schema (replays/schema/document.json, docs/format.md), compiled once."""
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return jsonschema_rs.validator_for(schema)


def schema_problem(doc: Any) -> str | None:
    """Where and how `doc` departs from the document's JSON Schema (the schema's own words for
    its first error), or None when it follows it."""
    error = next(iter(_schema_validator().iter_errors(doc)), None)
    if error is None:
        return None
    where = "/".join(str(part) for part in error.instance_path)
    return f"{'at ' + where + ': ' if where else ''}{error.message[:300]}"


def _check_shape(doc: Any, verdict: Verdict) -> bool:
    problem = schema_problem(doc)
    if problem is not None:
        verdict.add(None, "malformed",
                    f"not a {FORMAT} document as its schema (docs/format.md) says: {problem}")
        return False
    try:
        game_class(doc["game"])
    except BadSetup as exc:  # the schema names the games; the registry is the rules' own
        verdict.add(None, "malformed", str(exc))
        return False
    for version, record in enumerate(doc["events"], start=1):
        if _parse_time(record["timestamp"]) is None:
            verdict.add(version, "bad_timestamp",
                        f"the timestamp {record['timestamp'][:40]!r} is not ISO 8601 with an offset")
            return False
    return True


def _check_signature(doc: dict, verdict: Verdict, trusted_keys: list[str] | None, check) -> None:
    sig = doc["signature"]
    key, value = sig.get("key"), sig.get("value")
    verdict.signature = "invalid"
    if isinstance(key, str):
        with suppress(ValueError):  # not a key: the signature check below says so
            verdict.key_id = key_id(key)
    if "key_id" in doc and (verdict.key_id is None or doc["key_id"] != verdict.key_id):
        verdict.add(None, "key_id_mismatch",
                    "key_id is not the fingerprint (SHA-256 of the DER public key) of the key "
                    "that signed the document")
    if sig.get("alg") != "ed25519" or not isinstance(key, str) or not isinstance(value, str):
        verdict.add(None, "signature_invalid", "the signature must be {alg: ed25519, key, value}")
    elif not check(key, unsigned(doc), value):
        verdict.add(None, "signature_invalid",
                    "the signature does not match the document: something was changed after export")
    elif trusted_keys is None:
        verdict.signature = "unverified"  # consistent with its own key, which proves nothing
    elif key.strip() not in [k.strip() for k in trusted_keys]:
        verdict.signature = "untrusted"
        verdict.add(None, "untrusted_key",
                    "the document is signed by a key that is not a trusted one (the server's key: "
                    "GET /signing-key; offline: gruft verify --key)")
    else:
        verdict.signature = "verified"


def _check_log(doc: dict, verdict: Verdict, trusted_keys: list[str] | None, check) -> None:
    """A game's place in the game log, where the document carries one: its inclusion proof
    against a checkpoint signed by a trusted key (or, unpinned, by the document's own)."""
    if "log" not in doc:
        return  # a game in play, one not logged yet, and every document issued before the log
    own = doc["signature"].get("key")
    keys = trusted_keys if trusted_keys is not None else [own] if isinstance(own, str) else []
    problem = log_problem(doc, keys, check)
    if problem is not None:
        verdict.add(None, "log_invalid", problem)


def _check_times(doc: dict, verdict: Verdict) -> None:
    """Timestamps only go forward, and the document's created_at is the creation's own.

    What else a timestamp says is covered by the chain (each is in its event's hash) and the
    signature: an edit that keeps the order and recomputes the chain shows only as a signature
    that is not the server's; nothing else in the document records when an event happened.
    """
    records = doc["events"]
    previous = _parse_time(records[0]["timestamp"])
    if doc["created_at"] != records[0]["timestamp"]:
        verdict.add(None, "bad_timestamp",
                    f"created_at {str(doc['created_at'])[:40]!r} is not the creation event's "
                    f"timestamp {records[0]['timestamp']!r}")
    for version, record in enumerate(records[1:], start=2):
        stamp = _parse_time(record["timestamp"])
        if stamp < previous:
            verdict.add(version, "bad_timestamp",
                        f"the timestamp {record['timestamp']} is earlier than the event before "
                        f"({records[version - 2]['timestamp']}): events are stored in time order")
            return
        previous = stamp


def _check_seed(doc: dict, verdict: Verdict) -> None:
    """The revealed seed (and salt, format 2) give the commitment the game showed from the start,
    and the document's setup is the creation event's."""
    salt = doc.get("salt") if doc["format_version"] == 2 else None
    if seed_commitment(doc["seed"], salt) != doc["seed_commitment"]:
        formula = 'salt + ":" + str(seed)' if salt is not None else "str(seed)"
        verdict.add(None, "seed_mismatch",
                    f"the seed does not match its commitment (SHA-256 of {formula})")
    created = doc["events"][0]
    if created["type"] != CREATED:
        return  # the re-run names it
    recorded = {k: created["data"].get(k) for k in ("seed", "salt", "seed_commitment", "players",
                                                   "options")}
    claimed = {k: doc.get(k) for k in recorded}
    if canonical(recorded) != canonical(claimed):
        differ = ", ".join(k for k in recorded if canonical(recorded[k]) != canonical(claimed[k]))
        verdict.add(1, "event_mismatch",
                    f"the creation event's {differ} differ from the document's")


def _check_chain(doc: dict, verdict: Verdict) -> None:
    prev = doc["seed_commitment"]
    for index, record in enumerate(doc["events"]):
        version = index + 1
        if record.get("version") != version:
            verdict.add(version, "chain_broken",
                        f"event {version} carries version {record.get('version')}: "
                        "an event was dropped, inserted or reordered")
            return
        if record.get("prev_hash") != prev:
            verdict.add(version, "chain_broken", "prev_hash does not link to the event before")
            return
        by = record.get("by")
        if "by" in record and by not in AUTHORS:
            verdict.add(version, "chain_broken", f"by is one of {', '.join(AUTHORS)}")
            return
        digest = event_hash(prev, version, record["type"], record["timestamp"], record["data"],
                            by, record.get("shape", 1))
        if record.get("hash") != digest:
            verdict.add(version, "chain_broken", "hash does not match the event's content")
            return
        prev = digest


ANNOTATION_FIELDS = ("id", "version", "kind", "text", "author", "timestamp", "event_hash",
                     "prev_hash", "hash")
MADE_ON = "game_id"  # the game an annotation was made on: every one made since it was recorded


def _check_origin(doc: dict, verdict: Verdict) -> None:
    """An imported copy's origin: the game it copies and the key that signed that document."""
    origin = doc.get("origin")
    while origin is not None:
        if not isinstance(origin, dict) or not isinstance(origin.get("game_id"), str) or not (
                origin.get("key_id") is None or isinstance(origin.get("key_id"), str)) or set(
                origin) - {"game_id", "key_id", "origin"}:
            verdict.add(None, "malformed", "origin is {game_id, key_id, origin?}: the game a "
                        "copy was imported from")
            return
        origin = origin.get("origin")


def made_on_copy(doc: dict, note: dict) -> bool:
    """Whether an annotation of a copy was made on the copy itself (not brought along from the
    game it copies): it names the copy's own game id."""
    return isinstance(doc.get("origin"), dict) and note.get(MADE_ON) == doc.get("game_id")


def _check_annotations(doc: dict, verdict: Verdict) -> None:
    """The arbiter's annotations form their own chain from the seed commitment, and each names
    the hash of the step it is about: an edited, dropped or moved annotation breaks a link."""
    annotations = doc.get("annotations", [])
    if not isinstance(annotations, list) or not all(
            isinstance(a, dict) and set(a) - {MADE_ON} == set(ANNOTATION_FIELDS)
            and isinstance(a.get(MADE_ON, ""), str) for a in annotations):
        verdict.add(None, "malformed", "annotations must be a list of annotations with the fields "
                    + ", ".join(ANNOTATION_FIELDS) + f" (and {MADE_ON})")
        return
    events = doc["events"]
    prev = doc["seed_commitment"]
    for number, note in enumerate(annotations, start=1):
        name = f"annotation {number} ({str(note['id'])[:40]})"
        step = note["version"]
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= len(events):
            verdict.add(None, "annotation_broken", f"{name} is about no step of this game")
            return
        if note["prev_hash"] != prev:
            verdict.add(None, "annotation_broken",
                        f"{name} does not link to the annotation before it: one was dropped, "
                        "inserted or reordered before it")
            return
        if note["hash"] != record_hash(prev, note):
            verdict.add(None, "annotation_broken",
                        f"{name} was edited: its hash does not match its content")
            return
        about = doc["seed_commitment"] if step == 0 else events[step - 1].get("hash")
        if note["event_hash"] != about:
            verdict.add(None, "annotation_broken",
                        f"{name} names another event than step {step}'s")
            return
        prev = note["hash"]


def _rerun(doc: dict, verdict: Verdict) -> Game | None:
    """Play the recorded game again through the rules; None after the first divergence."""
    records = doc["events"]
    cls = game_class(doc["game"])  # a game this server knows: _check_shape
    created = records[0]
    if created["type"] != CREATED:
        verdict.add(1, "event_mismatch", "version 1 must be the game's creation")
        return None
    setup = created["data"]
    stamps = (_parse_time(r["timestamp"]) for r in records)  # all parsed: _check_shape
    authors = (r.get("by") for r in records)  # as recorded: the chain covers them
    # Each event made in the shape it was recorded in (docs/format.md, "Event shapes"): a
    # document of an older release is compared with what that release recorded.
    shapes = (r.get("shape", 1) for r in records)
    with recorded_timestamps(stamps), recorded_authors(authors), recorded_shapes(shapes):
        try:
            if len(records) > 1 and records[1]["type"] == FORKED:
                game = _restart_fork(cls, setup, records[1]["data"], doc)
            else:
                game = cls.start(setup.get("players"), seed=setup.get("seed"),
                                 options=setup.get("options"), deal=setup.get("deal"),
                                 salt=setup.get("salt"), recorded=True,  # names as recorded
                                 clock=setup.get("clock"), bots=setup.get("bots"))
        except GameError as exc:
            verdict.add(1, "bad_setup", f"the recorded setup cannot start a game: {exc}")
            return None
        position = 0
        if not _match(game, records, position, verdict) or not _check_by(
                records, position, game.version, (SERVER,), verdict):
            return None
        position = game.version
        while position < len(records):
            record = records[position]
            version = position + 1
            if record["type"] in LIFECYCLE:
                if not _rerun_lifecycle(game, record, version, verdict) or not _match(
                        game, records, position, verdict) or not _check_by(
                        records, position, game.version, LIFECYCLE[record["type"]], verdict):
                    return None
                position = game.version
                continue
            command = cls.COMMAND_EVENTS.get(record["type"])
            if command is None:
                verdict.add(version, "event_mismatch",
                            f"{record['type']} is not a player's action here; "
                            "the rules produce no such event at this point")
                return None
            command_type, fields = command
            data = record["data"]
            player = data.get("player")
            order = {"type": command_type, **{f: data[f] for f in fields if f in data}}
            if record.get("by") == BOT and not game.bot_may_play(player):
                verdict.add(version, "by_mismatch", f"{player}'s move is recorded as the bot's, "
                            "but no bot plays that seat")
                return None
            try:
                game.execute(player, order, by=record.get("by") or SEAT)
            except Refusal as exc:
                verdict.add(version, "illegal_move", f"{exc.message} ({exc.rule})")
                return None
            except BadCommand as exc:
                verdict.add(version, "illegal_move", f"{player}: {exc}")
                return None
            if not _match(game, records, position, verdict) or not _check_by(
                    records, position, game.version, COMMAND_AUTHORS, verdict):
                return None
            position = game.version
    return game


COMMAND_AUTHORS = (SEAT, HOST_BY, BOT)  # who may send a command (a bot: where Game.bot_may_play)


def _check_by(records: list[dict], start: int, end: int, first: tuple[str, ...],
              verdict: Verdict) -> bool:
    """The `by` of the events one step stored (records start..end-1): the first is `first`'s (a
    command's sender, the host's abort), what follows from it the server's. Events stored before
    `by` existed have none; once one has it, every later one does."""
    for index in range(start, end):
        by = records[index].get("by")
        allowed = first if index == start else (SERVER,)
        if by is None and not any("by" in r for r in records[:index]):
            continue
        if by not in allowed:
            verdict.add(index + 1, "by_mismatch",
                        f"{records[index]['type']} is recorded by {by!r}; it can only be by "
                        f"{' or '.join(repr(a) for a in allowed)}")
            return False
    return True


def _restart_fork(cls: type[Game], setup: dict, forked: dict, doc: dict) -> Game:
    """A fork's start, as recorded: its setup and the table it carried over. Without its parent
    the table is taken as signed; `check_fork` compares it with the parent's own state."""
    if canonical(forked.get("parent")) != canonical(doc.get("parent")):
        raise BadSetup(N_("the document's parent is not the one its Forked event records"))
    return cls.forked(setup.get("players"), setup.get("options"), setup.get("deal"),
                      forked.get("table"), forked.get("parent"), seed=setup.get("seed"),
                      salt=setup.get("salt"), bots=setup.get("bots"), clock=setup.get("clock"),
                      family=forked.get("family"))


def _rerun_lifecycle(game: Game, record: dict, version: int, verdict: Verdict) -> bool:
    """What the host or the server recorded, run again: an abort (only of a game in progress,
    with a reason), a seat handed over, a clock run out (never before its deadline, by the
    stored timestamps: `clock_early`)."""
    data = record["data"]
    try:
        if record["type"] == ABORTED:
            game.abort(data.get("reason"), fork=data.get("fork"))
        elif record["type"] == HANDED:
            game.hand_seat(data.get("player"), data.get("bot"))
        else:
            stamp = _parse_time(record["timestamp"])
            due = deadline(game, data.get("player"))
            if due is not None and stamp < due:
                verdict.add(version, "clock_early", f"{data.get('player')}'s clock is recorded "
                            f"as run out at {record['timestamp']}, before its deadline "
                            f"{due.isoformat()}")
                return False
            game.expire_clock(data.get("player"), stamp)
    except (Refusal, BadCommand) as exc:
        verdict.add(version, "illegal_move", f"the {record['type']} is refused: {exc}")
        return False
    return True


def _match(game: Game, records: list[dict], position: int, verdict: Verdict) -> bool:
    """The events the rules just produced equal the recorded ones that follow `position`.

    The produced events stay pending on the game, so an import can store exactly them.
    """
    produced = game.pending_events[position:]
    for offset, event in enumerate(produced):
        version = position + offset + 1
        expected = {"type": type(event).__name__, "data": stored_data(event),
                    "shape": stored_shape(event)}
        if version > len(records):
            verdict.add(version, "event_missing",
                        f"the rules produce {expected['type']} but the record ends")
            return False
        record = records[version - 1]
        found = {"type": record["type"], "data": record["data"],
                 "shape": record.get("shape", 1)}
        if found["type"] == expected["type"] and found["shape"] != expected["shape"]:
            verdict.add(version, "event_mismatch",
                        f"the record has {record['type']} in shape {found['shape']}, a shape "
                        f"this release cannot make it in (it makes shape {expected['shape']})")
            return False
        if canonical(found) != canonical(expected):
            if _edited_secret_move(type(game), records, version, expected, verdict):
                return False
            dealt = expected["type"] in type(game).DEAL_EVENTS
            what = "the deal is not what the revealed seed produces" if dealt else (
                f"the record has {record['type']} {canonical(record['data'])[:200]}, the rules give "
                f"{expected['type']} {canonical(expected['data'])[:200]}")
            verdict.add(version, "event_mismatch", what)
            return False
    return True


def _edited_secret_move(cls: type[Game], records: list[dict], version: int, expected: dict,
                        verdict: Verdict) -> bool:
    """Name an edited secret move at its own version (VR-4: moves are revealed later).

    The re-run takes each secret move as recorded, so an edited one surfaces only where the
    moves are revealed. There, the recorded reveal is the witness: a move recorded otherwise
    than the reveal at `version` shows it is the move that was changed.
    """
    field_name = cls.REVEALED_MOVES.get(expected["type"])
    revealed = records[version - 1]["data"].get(field_name) if field_name else None
    if not isinstance(revealed, dict):
        return False
    submitted: dict[str, int] = {}  # player -> version of their move since the last reveal
    for earlier in range(version - 1, 0, -1):
        record = records[earlier - 1]
        if record["type"] in cls.REVEALED_MOVES:
            break
        if record["type"] in cls.COMMAND_EVENTS:
            submitted.setdefault(record["data"].get("player"), earlier)
    for move_version in sorted(submitted.values()):
        record = records[move_version - 1]
        player = record["data"].get("player")
        fields = cls.COMMAND_EVENTS[record["type"]][1]
        move = {f: record["data"].get(f) for f in fields}
        if player in revealed and canonical(move) != canonical(revealed[player]):
            verdict.add(move_version, "event_mismatch",
                        f"{player}'s move is recorded as {canonical(move)}, but the "
                        f"{expected['type']} at version {version} reveals "
                        f"{canonical(revealed[player])}: the move was edited")
            return True
    return False


def _parse_time(text: str) -> datetime | None:
    """An event timestamp: ISO 8601 with an offset (None if it is not one)."""
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else None
