"""The replay document of docs/api.md: export, signature, and verification by re-running the rules.

Verification trusts nothing in the document: it checks the hash chain and the signature, checks
the seed against its commitment, then starts the game again from the recorded setup (so seeded
deals are dealt again from the revealed seed), turns every recorded player action back into a
command, runs it through the rules and expects exactly the recorded follow-up events; finally it
recomputes the scores. The first problem found names its version; a problem's message never
repeats it (`describe` puts the two together for a reader).

Format 2 commits to the seed with a salt: `seed_commitment` = SHA-256 of `salt + ":" + str(seed)`,
the salt revealed with the seed. Format 3 (every game the service creates) adds a secret `nonce` to
every event that holds a secret, covered by its chain link, so that no public hash (a receipt, a
fork's `parent.hash`) can be matched against guesses of that secret. Format 1 documents (no salt,
SHA-256 of `str(seed)`) and format 2 ones keep verifying as they always did; a game imported from
one stays in its format.
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
    Replay,
    canonical,
    event_hash,
    record_hash,
    seed_commitment,
)
from domain.core.chain import (
    AUTHORS,
    BOT,
    CLOCK,
    HOST_BY,
    NONCE,
    SEAT,
    SERVER,
    is_nonce,
    stored_data,
    stored_shape,
    timestamp_text,
)
from domain.core.clocks import deadline, late
from domain.core.visibility import holds_secrets
from domain.core.words import N_, Gettext, Phrase, Said, english
from replays.logproof import log_problem
from replays.schema_words import schema_words
from service.audit.signing import key_id

FORMAT = "gruft-replay"
FORMAT_VERSION = 3  # what the service exports; an older game exports in its own format
FORMAT_VERSIONS = (1, 2, 3)
NONCED = 3  # the first format whose events that hold secrets carry a nonce
CREATED = Game.Created.__name__  # a game's first event
FORKED = Game.Forked.__name__  # a fork's second event: the table it carries over (domain.core.game)
ABORTED = Game.GameAborted.__name__  # the host's abort (domain.core.game): re-run as the host's, not a player's
HANDED = Game.SeatHanded.__name__  # a seat handed to the server's bot or back (domain.core.game)
EXPIRED = Game.ClockExpired.__name__  # a seat's clock ran out (domain.core.clocks): checked against its deadline
STARTED = Game.ClocksStarted.__name__  # clocks that waited for the table start (domain.core.clocks)
# What the host or the server records beside the players' moves, and who may have stored it.
LIFECYCLE = {ABORTED: (HOST_BY,), HANDED: (HOST_BY, SEAT), EXPIRED: (CLOCK,),
             STARTED: (SERVER, HOST_BY)}
# The document's shape, as a JSON Schema (docs/format.md): the verifier's shape errors are its.
SCHEMA_PATH = Path(__file__).parent / "schema" / "document.json"


def format_version(game: Game) -> int:
    """The format a game's document is in, for ever: 3 when its events carry nonces, 2 when it
    has a salt only (a game imported from a format 2 document), else 1."""
    if game.nonced:
        return FORMAT_VERSION
    return 2 if game.salt is not None else 1


def unsigned(document: dict[str, Any]) -> bytes:
    """What the signature covers: the canonical JSON of the document without `signature`."""
    return canonical({k: v for k, v in document.items() if k != "signature"}).encode("utf-8")


def build_document(game: Game, records: list[dict[str, Any]], sign, public_pem: str,
                   annotations: list[dict[str, Any]] | None = None,
                   log: dict[str, Any] | None = None,
                   origin: dict[str, Any] | None = None,
                   witnessed: dict[str, Any] | None = None) -> dict:
    """The signed replay document of a game, its stored event records and its annotations;
    `log`: a game that is over, its inclusion proof in the game log (replays.logproof);
    `origin`: an imported copy, the game it copies (service.audit.arbiter.Origin);
    `witnessed`: its inclusion proof against a checkpoint the server's witnesses cosigned
    (service.audit.witnessing), as `log_witnessed`."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": format_version(game),
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
    if witnessed is not None:
        doc["log_witnessed"] = witnessed
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

    def add(self, version: int | None, code: str, message: str, /, **params: object) -> None:
        """A problem; its message a marked template (or a Phrase, or an error carrying one),
        so it can be said in any language while its code and version stay the same."""
        if isinstance(message, Said):
            message, params = message.template, message.params
        said = message if isinstance(message, Phrase) else Phrase(message, **params)
        self.problems.append({"version": version, "code": code, "message": said})

    def as_json(self, gettext: Gettext = english) -> dict[str, Any]:
        """The verdict as POST /replays/verify answers it, its messages in `gettext`'s language."""
        return {"valid": self.valid, "signature": self.signature, "key_id": self.key_id,
                "problems": said_problems(self.problems, gettext), "scores": self.scores,
                "winners": self.winners}


def said_problems(problems: list[dict[str, Any]], gettext: Gettext = english) -> list[dict]:
    """The problems with their messages in `gettext`'s language (plain strings), nothing else
    changed: the code and version are the same in every language."""
    return [{**p, "message": _said(p["message"], gettext)} for p in problems]


def _said(message: str, gettext: Gettext) -> str:
    return message.said(gettext) if isinstance(message, Phrase) else str(message)


def described(problem: dict[str, Any]) -> Phrase:
    """One problem for a reader: where (its version, or the document) and what, each once."""
    version, message = problem.get("version"), problem["message"]
    if version is None:
        return Phrase(N_("document: %(message)s"), message=message)
    return Phrase(N_("version %(version)s: %(message)s"), version=version, message=message)


def describe(problem: dict[str, Any], gettext: Gettext = english) -> str:
    """The problem `described`, in `gettext`'s language."""
    return described(problem).said(gettext)


def verify(document: Any, trusted_keys: list[str] | None = None,
           check_signature=None, game_id: Any = None) -> Verdict:
    """Check a replay document completely; `trusted_keys` are the PEMs whose signature counts.
    `game_id`: the id the game re-run takes (a restore keeps its games' ids), else a new one."""
    verdict = Verdict()
    if not _check_shape(document, verdict):
        return verdict
    if check_signature is not None:
        _check_signature(document, verdict, trusted_keys, check_signature)
        _check_log(document, verdict, trusted_keys, check_signature)
    _check_chain(document, verdict)
    _check_nonces(document, verdict)
    _check_annotations(document, verdict)
    _check_origin(document, verdict)
    _check_times(document, verdict)
    _check_seed(document, verdict)
    game = _rerun(document, verdict, game_id)
    if game is not None:
        verdict.game = game
        verdict.scores, verdict.winners = dict(game.scores), list(game.winners)
        final = document["final"]
        if not isinstance(final, dict) or final.get("scores") != game.scores or sorted(
                final.get("winners") or []) != sorted(game.winners):
            verdict.add(game.version, "final_mismatch",
                        N_("the final result says %(claimed)s, the rules give %(result)s"),
                        claimed=canonical(final),
                        result=canonical({"scores": game.scores, "winners": game.winners}))
    return verdict


def check_fork(document: Any, parent: Any, trusted_keys: list[str] | None = None,
               check_signature=None) -> Verdict:
    """Verify a fork's document and prove it began exactly where it says: its parent's
    document is valid, names the same game, has the linked event with that hash, and the
    table the fork carried over is the parent's own state after that event."""
    verdict = verify(document, trusted_keys, check_signature)
    parents = verify(parent, trusted_keys, check_signature)
    for problem in parents.problems:
        verdict.add(None, "parent_invalid", N_("the parent document, %(problem)s"),
                    problem=described(problem))
    if not isinstance(document, dict) or not isinstance(document.get("parent"), dict):
        verdict.add(None, "not_a_fork", N_("the document has no parent: it is not a fork"))
        return verdict
    if parents.problems:
        return verdict
    link, events = document["parent"], parent["events"]
    step = link.get("version")
    if link.get("game_id") != parent["game_id"]:
        verdict.add(None, "parent_mismatch", N_("the fork's parent is game %(named)s, not "
                                                 "%(parent)s"),
                    named=link.get("game_id"), parent=parent["game_id"])
    elif not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= len(events):
        verdict.add(None, "parent_mismatch", N_("the parent has no event %(step)s"), step=step)
    elif events[step - 1]["hash"] != link.get("hash"):
        verdict.add(None, "parent_mismatch",
                    N_("the parent's event %(step)s has another hash than the fork names"),
                    step=step)
    else:
        _check_carried_table(document, parent, step, verdict)
    return verdict


def _check_carried_table(document: dict, parent: dict, step: int, verdict: Verdict) -> None:
    cls = game_class(parent["game"])
    try:
        parent_id = UUID(str(parent["game_id"]))
    except ValueError:
        verdict.add(None, "parent_invalid", N_("the parent's game_id is not a game id"))
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
        verdict.add(2, "fork_mismatch", N_("the fork's %(fields)s differ from the parent's "
                                            "after its event %(step)s: the fork did not begin "
                                            "there"), fields=", ".join(differ), step=step)


@functools.cache
def _schema_validator() -> Any:
    """The document's JSON Schema (replays/schema/document.json, docs/format.md), compiled once."""
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return jsonschema_rs.validator_for(schema)


def schema_problem(doc: Any) -> str | None:
    """Where and how `doc` departs from the document's JSON Schema (its first error: in English
    the validator's own words, in another language the same said from its keyword and values,
    replays/schema_words.py), or None when it follows it."""
    error = next(iter(_schema_validator().iter_errors(doc)), None)
    if error is None:
        return None
    where = "/".join(str(part) for part in error.instance_path)
    if not where:
        return schema_words(error)
    return Phrase(N_("at %(where)s: %(error)s"), where=where, error=schema_words(error))


def _check_shape(doc: Any, verdict: Verdict) -> bool:
    problem = schema_problem(doc)
    if problem is not None:
        verdict.add(None, "malformed",
                    N_("not a %(format)s document as its schema (docs/format.md) says: "
                       "%(problem)s"), format=FORMAT, problem=problem)
        return False
    try:
        game_class(doc["game"])
    except BadSetup as exc:  # the schema names the games; the registry is the rules' own
        verdict.add(None, "malformed", exc)
        return False
    for version, record in enumerate(doc["events"], start=1):
        if _parse_time(record["timestamp"]) is None:
            verdict.add(version, "bad_timestamp",
                        N_("the timestamp %(stamp)r is not ISO 8601 with an offset"),
                        stamp=record["timestamp"][:40])
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
                    N_("key_id is not the fingerprint (SHA-256 of the DER public key) of the key "
                       "that signed the document"))
    if sig.get("alg") != "ed25519" or not isinstance(key, str) or not isinstance(value, str):
        verdict.add(None, "signature_invalid",
                    N_("the signature must be {alg: ed25519, key, value}"))
    elif not check(key, unsigned(doc), value):
        verdict.add(None, "signature_invalid", N_("the signature does not match the document: "
                                                   "something was changed after export"))
    elif trusted_keys is None:
        verdict.signature = "unverified"  # consistent with its own key, which proves nothing
    elif key.strip() not in [k.strip() for k in trusted_keys]:
        verdict.signature = "untrusted"
        verdict.add(None, "untrusted_key",
                    N_("the document is signed by a key that is not a trusted one (the server's "
                       "key: GET /signing-key; offline: gruft verify --key)"))
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
                    N_("created_at %(created)r is not the creation event's timestamp %(stamp)r"),
                    created=str(doc["created_at"])[:40], stamp=records[0]["timestamp"])
    for version, record in enumerate(records[1:], start=2):
        stamp = _parse_time(record["timestamp"])
        if stamp < previous:
            verdict.add(version, "bad_timestamp",
                        N_("the timestamp %(stamp)s is earlier than the event before "
                           "(%(before)s): events are stored in time order"),
                        stamp=record["timestamp"], before=records[version - 2]["timestamp"])
            return
        previous = stamp


def _check_seed(doc: dict, verdict: Verdict) -> None:
    """The revealed seed (and salt, format 2) give the commitment the game showed from the start,
    and the document's setup is the creation event's."""
    salt = doc.get("salt") if doc["format_version"] >= 2 else None
    if seed_commitment(doc["seed"], salt) != doc["seed_commitment"]:
        formula = 'salt + ":" + str(seed)' if salt is not None else "str(seed)"
        verdict.add(None, "seed_mismatch",
                    N_("the seed does not match its commitment (SHA-256 of %(formula)s)"),
                    formula=formula)
    created = doc["events"][0]
    if created["type"] != CREATED:
        return  # the re-run names it
    recorded = {k: created["data"].get(k) for k in ("seed", "salt", "seed_commitment", "players",
                                                   "options")}
    claimed = {k: doc.get(k) for k in recorded}
    if canonical(recorded) != canonical(claimed):
        differ = ", ".join(k for k in recorded if canonical(recorded[k]) != canonical(claimed[k]))
        verdict.add(1, "event_mismatch",
                    N_("the creation event's %(fields)s differ from the document's"),
                    fields=differ)


def _check_chain(doc: dict, verdict: Verdict) -> None:
    prev = doc["seed_commitment"]
    for index, record in enumerate(doc["events"]):
        version = index + 1
        if record.get("version") != version:
            verdict.add(version, "chain_broken",
                        N_("event %(version)s carries version %(carried)s: an event was dropped, "
                           "inserted or reordered"), version=version, carried=record.get("version"))
            return
        if record.get("prev_hash") != prev:
            verdict.add(version, "chain_broken",
                        N_("prev_hash does not link to the event before"))
            return
        by = record.get("by")
        if "by" in record and by not in AUTHORS:
            verdict.add(version, "chain_broken", N_("by is one of %(authors)s"),
                        authors=", ".join(AUTHORS))
            return
        digest = event_hash(prev, version, record["type"], record["timestamp"], record["data"],
                            by, record.get("shape", 1), record.get(NONCE))
        if record.get("hash") != digest:
            verdict.add(version, "chain_broken", N_("hash does not match the event's content"))
            return
        prev = digest


def _check_nonces(doc: dict, verdict: Verdict) -> None:
    """Format 3: every event that holds a secret (the game's declared secret fields) carries a
    nonce of 64 hex digits, and no other does; formats 1 and 2 have none (docs/format.md,
    "Commitment nonces"). A changed nonce breaks its link (chain_broken)."""
    cls = game_class(doc["game"])  # a game this server knows: _check_shape
    nonced = doc["format_version"] >= NONCED
    for version, record in enumerate(doc["events"], start=1):
        nonce = record.get(NONCE)
        if not nonced:
            if NONCE in record:
                verdict.add(version, "nonce_unexpected",
                            N_("the event has a nonce, which a format %(format)s document never "
                               "has"), format=doc["format_version"])
                return
        elif holds_secrets(cls.SECRET_FIELDS, record["type"]):
            if not is_nonce(nonce):
                verdict.add(version, "nonce_missing",
                            N_("%(event)s holds a secret, so in format %(format)s its link "
                               "commits to it with a nonce of 64 lowercase hex digits, which it "
                               "lacks"), event=record["type"], format=doc["format_version"])
                return
        elif NONCE in record:
            verdict.add(version, "nonce_unexpected",
                        N_("%(event)s holds no secret and has a nonce"), event=record["type"])
            return


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
            verdict.add(None, "malformed", N_("origin is {game_id, key_id, origin?}: the game a "
                                              "copy was imported from"))
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
        verdict.add(None, "malformed", N_("annotations must be a list of annotations with the "
                                          "fields %(fields)s (and %(made_on)s)"),
                    fields=", ".join(ANNOTATION_FIELDS), made_on=MADE_ON)
        return
    events = doc["events"]
    prev = doc["seed_commitment"]
    for number, note in enumerate(annotations, start=1):
        name = Phrase(N_("annotation %(number)s (%(id)s)"), number=number, id=str(note["id"])[:40])
        step = note["version"]
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= len(events):
            verdict.add(None, "annotation_broken", N_("%(name)s is about no step of this game"),
                        name=name)
            return
        if note["prev_hash"] != prev:
            verdict.add(None, "annotation_broken",
                        N_("%(name)s does not link to the annotation before it: one was dropped, "
                           "inserted or reordered before it"), name=name)
            return
        if note["hash"] != record_hash(prev, note):
            verdict.add(None, "annotation_broken",
                        N_("%(name)s was edited: its hash does not match its content"), name=name)
            return
        about = doc["seed_commitment"] if step == 0 else events[step - 1].get("hash")
        if note["event_hash"] != about:
            verdict.add(None, "annotation_broken",
                        N_("%(name)s names another event than step %(step)s's"), name=name,
                        step=step)
            return
        prev = note["hash"]


def _rerun(doc: dict, verdict: Verdict, game_id: Any = None) -> Game | None:
    """Play the recorded game again through the rules; None after the first divergence. The
    game answered makes its next events as a live game does (Game.end_replay)."""
    records = doc["events"]
    cls = game_class(doc["game"])  # a game this server knows: _check_shape
    created = records[0]
    if created["type"] != CREATED:
        verdict.add(1, "event_mismatch", N_("version 1 must be the game's creation"))
        return None
    setup = created["data"]
    stamps = (_parse_time(r["timestamp"]) for r in records)  # all parsed: _check_shape
    authors = (r.get("by") for r in records)  # as recorded: the chain covers them
    # Each event made in the shape it was recorded in (docs/format.md, "Event shapes"): a
    # document of an older release is compared with what that release recorded.
    shapes = (r.get("shape", 1) for r in records)
    # Each event made with the nonce it was recorded with (format 3), never a new draw.
    nonces = (r.get(NONCE) for r in records)
    replay = Replay(timestamps=stamps, authors=authors, shapes=shapes, nonces=nonces,
                    game_id=game_id)
    try:
        if len(records) > 1 and records[1]["type"] == FORKED:
            game = _restart_fork(cls, setup, records[1]["data"], doc, replay)
        else:
            game = cls.start(setup.get("players"), seed=setup.get("seed"),
                             options=setup.get("options"), deal=setup.get("deal"),
                             salt=setup.get("salt"), recorded=True,  # names as recorded
                             clock=setup.get("clock"), bots=setup.get("bots"), replay=replay)
    except GameError as exc:
        verdict.add(1, "bad_setup", N_("the recorded setup cannot start a game: %(why)s"),
                    why=exc)
        return None
    try:
        return _rerun_steps(game, cls, records, verdict)
    finally:
        game.end_replay()


def _rerun_steps(game: Game, cls: type[Game], records: list[dict], verdict: Verdict
                 ) -> Game | None:
    """The recorded steps after the creation, played again on `game`."""
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
                        N_("%(event)s is not a player's action here; the rules produce no "
                           "such event at this point"), event=record["type"])
            return None
        command_type, fields = command
        data = record["data"]
        player = data.get("player")
        order = {"type": command_type, **{f: data[f] for f in fields if f in data}}
        if record.get("by") == BOT and not game.bot_may_play(player):
            verdict.add(version, "by_mismatch", N_("%(player)s's move is recorded as the "
                                                   "bot's, but no bot plays that seat"),
                        player=player)
            return None
        # CL-1: a seat's move stored after its deadline was refused (the clock's move is
        # stored instead), so a record holding one was not made by these rules.
        due = late(game, player, _parse_time(record["timestamp"]),
                   record.get("by") or SEAT) if isinstance(player, str) else None
        if due is not None:
            verdict.add(version, "clock_late",
                        N_("%(player)s's move is recorded at %(stamp)s, after their clock "
                           "ran out at %(due)s (CL-1)"), player=player,
                        stamp=record["timestamp"], due=due.isoformat())
            return None
        try:
            game.execute(player, order, by=record.get("by") or SEAT)
        except Refusal as exc:
            verdict.add(version, "illegal_move", N_("%(refusal)s (%(rule)s)"), refusal=exc,
                        rule=exc.rule)
            return None
        except BadCommand as exc:
            verdict.add(version, "illegal_move", N_("%(player)s: %(why)s"), player=player,
                        why=exc)
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
                        N_("%(event)s is recorded by %(by)r; it can only be by %(allowed)s"),
                        event=records[index]["type"], by=by,
                        allowed=" or ".join(repr(a) for a in allowed))
            return False
    return True


def _restart_fork(cls: type[Game], setup: dict, forked: dict, doc: dict, replay: Replay) -> Game:
    """A fork's start, as recorded: its setup and the table it carried over. Without its parent
    the table is taken as signed; `check_fork` compares it with the parent's own state."""
    if canonical(forked.get("parent")) != canonical(doc.get("parent")):
        raise BadSetup(N_("the document's parent is not the one its Forked event records"))
    return cls.forked(setup.get("players"), setup.get("options"), setup.get("deal"),
                      forked.get("table"), forked.get("parent"), seed=setup.get("seed"),
                      salt=setup.get("salt"), bots=setup.get("bots"), clock=setup.get("clock"),
                      family=forked.get("family"), replay=replay)


def _rerun_lifecycle(game: Game, record: dict, version: int, verdict: Verdict) -> bool:
    """What the host or the server recorded, run again: an abort (only of a game in progress,
    with a reason), a seat handed over, clocks started (only clocks that waited), a clock run out (never before its deadline, by the
    stored timestamps: `clock_early`)."""
    data = record["data"]
    try:
        if record["type"] == ABORTED:
            game.abort(data.get("reason"), fork=data.get("fork"))
        elif record["type"] == HANDED:
            game.hand_seat(data.get("player"), data.get("bot"))
        elif record["type"] == STARTED:  # a person's first move starts them in the move's step
            game.start_clocks(data.get("reason"))
        else:
            stamp = _parse_time(record["timestamp"])
            due = deadline(game, data.get("player"))
            if due is not None and stamp < due:
                verdict.add(version, "clock_early",
                            N_("%(player)s's clock is recorded as run out at %(stamp)s, before "
                               "its deadline %(due)s"), player=data.get("player"),
                            stamp=record["timestamp"], due=due.isoformat())
                return False
            game.expire_clock(data.get("player"), stamp)
    except (Refusal, BadCommand) as exc:
        verdict.add(version, "illegal_move", N_("the %(event)s is refused: %(why)s"),
                    event=record["type"], why=exc)
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
                        N_("the rules produce %(event)s but the record ends"),
                        event=expected["type"])
            return False
        record = records[version - 1]
        found = {"type": record["type"], "data": record["data"],
                 "shape": record.get("shape", 1)}
        if found["type"] == expected["type"] and found["shape"] != expected["shape"]:
            verdict.add(version, "event_mismatch",
                        N_("the record has %(event)s in shape %(shape)s, a shape this release "
                           "cannot make it in (it makes shape %(made)s)"), event=record["type"],
                        shape=found["shape"], made=expected["shape"])
            return False
        if canonical(found) != canonical(expected):
            if _edited_secret_move(type(game), records, version, expected, verdict):
                return False
            dealt = expected["type"] in type(game).DEAL_EVENTS
            what = Phrase(N_("the deal is not what the revealed seed produces")) if dealt else (
                Phrase(N_("the record has %(event)s %(data)s, the rules give %(expected)s "
                          "%(expected_data)s"), event=record["type"],
                       data=canonical(record["data"])[:200], expected=expected["type"],
                       expected_data=canonical(expected["data"])[:200]))
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
                        N_("%(player)s's move is recorded as %(move)s, but the %(event)s at "
                           "version %(version)s reveals %(revealed)s: the move was edited"),
                        player=player, move=canonical(move), event=expected["type"],
                        version=version, revealed=canonical(revealed[player]))
            return True
    return False


def _parse_time(text: str) -> datetime | None:
    """An event timestamp: ISO 8601 with an offset (None if it is not one)."""
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else None
