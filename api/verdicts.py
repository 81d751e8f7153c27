"""What a verifying process runs (api/verifying.py): a replay document's raw body parsed, under
api.inputs' bounds, and verified against the server's key ring."""

from __future__ import annotations

from typing import Any

from werkzeug.exceptions import BadRequest


def verify_body(body: bytes, ring: list[str], lang: str = "en") -> tuple[str, Any]:
    """Parse and verify a document body: ("ok", the verdict's JSON, its problems said in `lang`
    from the catalogs, as the process has no request) or ("bad", why unreadable)."""
    from api.inputs import parse_body
    from replays.document import verify
    from service.audit.signing import check_signature
    from service.catalogs import translations

    try:
        document = parse_body(body)
    except BadRequest as exc:
        return "bad", exc.description
    verdict = verify(document, trusted_keys=ring, check_signature=check_signature)
    return "ok", verdict.as_json(translations(lang).gettext)
