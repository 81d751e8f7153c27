"""What a verifying process runs (api/verifying.py): a replay document's raw body parsed, under
api.inputs' bounds, and verified against the server's key ring, once: an import stores what
comes back (issue 30, item 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from werkzeug.exceptions import BadRequest

from domain.core import Game


@dataclass(frozen=True)
class Verified:
    """What verifying a document found: the verdict, as POST /replays/verify answers it; the
    document's leaf (its game id, length and last hash: where its game would be in a game log,
    for the retired-key rule, api.replays); and, kept for an import of a valid document, what
    is stored: the game re-run from it (under a new id), its annotations and its origin."""

    verdict: dict[str, Any]
    leaf: dict[str, Any] | None = None
    game: Game | None = None
    annotations: list[dict[str, Any]] | None = None
    origin: dict[str, Any] | None = None


def verify_body(body: bytes, ring: list[str], lang: str = "en",
                keep: bool = False) -> tuple[str, Any]:
    """Parse and verify a document body: ("ok", Verified, its problems said in `lang` from the
    catalogs, as the process has no request; with `keep`, what an import of a valid one
    stores) or ("bad", why unreadable)."""
    from api.inputs import parse_body
    from replays.document import verify
    from service.audit.arbiter import origin_of
    from service.audit.gamelog import leaf_of
    from service.audit.signing import check_signature
    from service.catalogs import translations

    try:
        document = parse_body(body)
    except BadRequest as exc:
        return "bad", exc.description
    verdict = verify(document, trusted_keys=ring, check_signature=check_signature)
    said = verdict.as_json(translations(lang).gettext)
    if verdict.signature != "verified":  # no key vouches for it: no leaf to look up
        return "ok", Verified(said)
    events = document["events"]
    leaf = leaf_of(str(document["game_id"]), len(events), events[-1]["hash"])
    if not keep or not verdict.valid:
        return "ok", Verified(said, leaf)
    return "ok", Verified(said, leaf, verdict.game, document.get("annotations"),
                          origin_of(document, verdict.key_id))
