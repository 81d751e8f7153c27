"""The replay document of docs/api.md: export, signature, and verification by re-running the rules.

Verification trusts nothing in the document: it checks the hash chain and the signature, checks
the seed against its commitment, then starts the game again from the recorded setup (so seeded
deals are dealt again from the revealed seed), turns every recorded player action back into a
command, runs it through the rules and expects exactly the recorded follow-up events; finally it
recomputes the scores. The first problem found names its version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from domain import game_class
from domain.core import (
    BadCommand,
    BadSetup,
    Game,
    GameError,
    Refusal,
    canonical,
    event_data,
    event_hash,
    recorded_timestamps,
    seed_commitment,
)
from domain.core.chain import timestamp_text

FORMAT = "gruft-replay"
FORMAT_VERSION = 1
ABORTED = "GameAborted"  # the host's abort (domain.core.game): re-run as the host's, not a player's
REQUIRED = ("format", "format_version", "game", "game_id", "players", "options", "seed",
            "seed_commitment", "created_at", "events", "final", "signature")


def unsigned(document: dict[str, Any]) -> bytes:
    """What the signature covers: the canonical JSON of the document without `signature`."""
    return canonical({k: v for k, v in document.items() if k != "signature"}).encode("utf-8")


def build_document(game: Game, records: list[dict[str, Any]], sign, public_pem: str) -> dict:
    """The signed replay document of a game and its stored event records."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
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
    doc["signature"] = {"alg": "ed25519", "key": public_pem, "value": sign(unsigned(doc))}
    return doc


@dataclass
class Verdict:
    """What verification found: problems (first bad version named) and the recomputed result."""

    problems: list[dict[str, Any]] = field(default_factory=list)
    scores: dict[str, int] | None = None
    winners: list[str] | None = None
    game: Game | None = None

    @property
    def valid(self) -> bool:
        return not self.problems

    def add(self, version: int | None, code: str, message: str) -> None:
        self.problems.append({"version": version, "code": code, "message": message})

    def as_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "problems": self.problems, "scores": self.scores,
                "winners": self.winners}


def verify(document: Any, trusted_keys: list[str] | None = None,
           check_signature=None) -> Verdict:
    """Check a replay document completely; `trusted_keys` are the PEMs whose signature counts."""
    verdict = Verdict()
    if not _check_shape(document, verdict):
        return verdict
    if check_signature is not None:
        _check_signature(document, verdict, trusted_keys, check_signature)
    _check_chain(document, verdict)
    if str(document["seed"]) != "" and seed_commitment(document["seed"]) != document["seed_commitment"]:
        verdict.add(None, "seed_mismatch",
                    "the seed does not match its commitment (SHA-256 of str(seed))")
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


def _check_shape(doc: Any, verdict: Verdict) -> bool:
    if not isinstance(doc, dict):
        verdict.add(None, "malformed", "a replay document is a JSON object")
        return False
    missing = [k for k in REQUIRED if k not in doc]
    if missing:
        verdict.add(None, "malformed", f"the document lacks {', '.join(missing)}")
        return False
    if not isinstance(doc["seed_commitment"], str):
        # It starts the hash chain: anything else cannot be hashed (issue 16)
        verdict.add(None, "malformed", "seed_commitment must be a string of hex digits")
        return False
    if doc["format"] != FORMAT or doc["format_version"] != FORMAT_VERSION:
        verdict.add(None, "malformed", f"not a {FORMAT} document of format_version {FORMAT_VERSION}")
        return False
    events = doc["events"]
    if not isinstance(events, list) or not events or not all(
            isinstance(e, dict) and isinstance(e.get("data"), dict) and isinstance(e.get("type"), str)
            and isinstance(e.get("version"), int) and isinstance(e.get("timestamp"), str)
            for e in events):
        verdict.add(None, "malformed", "events must be a non-empty list of event records")
        return False
    try:
        for record in events:
            _parse_time(record["timestamp"])
    except ValueError:
        verdict.add(None, "malformed", "event timestamps must be ISO 8601 with an offset")
        return False
    if not isinstance(doc["signature"], dict):
        verdict.add(None, "malformed", "signature must be an object")
        return False
    return True


def _check_signature(doc: dict, verdict: Verdict, trusted_keys: list[str] | None, check) -> None:
    sig = doc["signature"]
    key, value = sig.get("key"), sig.get("value")
    if sig.get("alg") != "ed25519" or not isinstance(key, str) or not isinstance(value, str):
        verdict.add(None, "signature_invalid", "the signature must be {alg: ed25519, key, value}")
    elif not check(key, unsigned(doc), value):
        verdict.add(None, "signature_invalid",
                    "the signature does not match the document: something was changed after export")
    elif trusted_keys is not None and key.strip() not in [k.strip() for k in trusted_keys]:
        verdict.add(None, "untrusted_key",
                    "the document is signed by a key this server does not know (GET /signing-key)")


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
            verdict.add(version, "chain_broken",
                        f"version {version}: prev_hash does not link to the event before")
            return
        digest = event_hash(prev, version, record["type"], record["timestamp"], record["data"])
        if record.get("hash") != digest:
            verdict.add(version, "chain_broken",
                        f"version {version}: hash does not match the event's content")
            return
        prev = digest


def _rerun(doc: dict, verdict: Verdict) -> Game | None:
    """Play the recorded game again through the rules; None after the first divergence."""
    records = doc["events"]
    try:
        cls = game_class(doc["game"])
    except BadSetup as exc:
        verdict.add(None, "malformed", str(exc))
        return None
    created = records[0]
    if created["type"] != "Created":
        verdict.add(1, "event_mismatch", "version 1 must be the game's creation")
        return None
    setup = created["data"]
    stamps = (_parse_time(r["timestamp"]) for r in records)
    with recorded_timestamps(stamps):
        try:
            game = cls.start(setup.get("players"), seed=setup.get("seed"),
                             options=setup.get("options"), deal=setup.get("deal"))
        except GameError as exc:
            verdict.add(1, "bad_setup", f"version 1: the recorded setup cannot start a game: {exc}")
            return None
        position = 0
        if not _match(game, records, position, verdict):
            return None
        position = game.version
        while position < len(records):
            record = records[position]
            version = position + 1
            if record["type"] == ABORTED:
                if not _rerun_abort(game, record, version, verdict) or not _match(
                        game, records, position, verdict):
                    return None
                position = game.version
                continue
            command = cls.COMMAND_EVENTS.get(record["type"])
            if command is None:
                verdict.add(version, "event_mismatch",
                            f"version {version}: {record['type']} is not a player's action here; "
                            "the rules produce no such event at this point")
                return None
            command_type, fields = command
            data = record["data"]
            player = data.get("player")
            order = {"type": command_type, **{f: data[f] for f in fields if f in data}}
            try:
                game.execute(player, order)
            except Refusal as exc:
                verdict.add(version, "illegal_move", f"version {version}: {exc.message} ({exc.rule})")
                return None
            except BadCommand as exc:
                verdict.add(version, "illegal_move", f"version {version}: {player}: {exc}")
                return None
            if not _match(game, records, position, verdict):
                return None
            position = game.version
    return game


def _rerun_abort(game: Game, record: dict, version: int, verdict: Verdict) -> bool:
    """The host's abort, run again: only a game in progress can be aborted, with a reason."""
    try:
        game.abort(record["data"].get("reason"))
    except (Refusal, BadCommand) as exc:
        verdict.add(version, "illegal_move", f"version {version}: the abort is refused: {exc}")
        return False
    return True


def _match(game: Game, records: list[dict], position: int, verdict: Verdict) -> bool:
    """The events the rules just produced equal the recorded ones that follow `position`.

    The produced events stay pending on the game, so an import can store exactly them.
    """
    produced = game.pending_events[position:]
    for offset, event in enumerate(produced):
        version = position + offset + 1
        expected = {"type": type(event).__name__, "data": event_data(event)}
        if version > len(records):
            verdict.add(version, "event_missing",
                        f"version {version}: the rules produce {expected['type']} but the record ends")
            return False
        record = records[version - 1]
        found = {"type": record["type"], "data": record["data"]}
        if canonical(found) != canonical(expected):
            dealt = expected["type"] in type(game).DEAL_EVENTS
            what = "the deal is not what the revealed seed produces" if dealt else (
                f"the record has {record['type']} {canonical(record['data'])[:200]}, the rules give "
                f"{expected['type']} {canonical(expected['data'])[:200]}")
            verdict.add(version, "event_mismatch", f"version {version}: {what}")
            return False
    return True


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)
