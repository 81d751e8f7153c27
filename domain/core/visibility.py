"""What a viewer may see: the one place that strips secrets from states and events.

A viewer is the host (sees everything), a player (sees their own secrets) or a spectator
(no secrets). Once a game is finished everything is public: that is what an audit needs.
Every endpoint that shows a game or its events goes through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Redaction policies a game names per event field in its SECRET_FIELDS:
PER_PLAYER = "per_player"  # a dict keyed by player: each player sees only their own entry
ACTOR = "actor"  # seen only by the event's own `player`
HOST_ONLY = "host"  # seen by nobody but the host

# Fields of the creation event that hold secrets in every game.
# The salt is kept exactly like the seed: with both, anyone could re-deal every hand.
BASE_SECRET_FIELDS: dict[str, dict[str, str]] = {
    "Created": {"seed": HOST_ONLY, "salt": HOST_ONLY, "deal": HOST_ONLY},
    # A fork's carried-over table holds every hand and pile: shown like a deal, to the host.
    "Forked": {"table": HOST_ONLY}}


def holds_secrets(secret_fields: dict[str, dict[str, str]], event_type: str) -> bool:
    """Whether events of `event_type` have fields some viewer may not see. In replay format 3
    their chain link also covers a secret nonce (domain.core.chain.NONCE), drawn when the event
    is made and shown to nobody but the host until the game's secrets are public: redacted
    records never carry it (service.reads.redacted), the export and the replay do."""
    return bool(BASE_SECRET_FIELDS.get(event_type) or secret_fields.get(event_type))


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a player by name, the host, or nobody in particular (a spectator).

    `organiser`: the host of a game created with a `host_seat` — they play that seat and see
    only its secrets (`player` is that seat, `host` stays False), but keep the host's rights
    that show no secret (invitations, seats, abort, annotations).
    """

    player: str | None = None
    host: bool = False
    organiser: bool = False

    def describe(self) -> str:
        """A short label for logs and pages."""
        return "host" if self.host or self.organiser else (self.player or "spectator")


SPECTATOR = Viewer()
HOST = Viewer(host=True)


def sees_everything(viewer: Viewer, finished: bool) -> bool:
    """The host sees everything; after the end, so does everybody."""
    return viewer.host or finished


def redact_event_data(
    secret_fields: dict[str, dict[str, str]],
    event_type: str,
    data: dict[str, Any],
    viewer: Viewer,
    finished: bool,
) -> dict[str, Any]:
    """The event's data as `viewer` may see it; what they may not see is left out."""
    if sees_everything(viewer, finished):
        return data
    policy = {**BASE_SECRET_FIELDS.get(event_type, {}), **secret_fields.get(event_type, {})}
    if not policy:
        return data
    shown: dict[str, Any] = {}
    for key, value in data.items():
        rule = policy.get(key)
        if rule is None:
            shown[key] = value
        elif rule == PER_PLAYER:
            if isinstance(value, dict) and viewer.player in value:
                shown[key] = {viewer.player: value[viewer.player]}
        elif rule == ACTOR:
            if viewer.player is not None and data.get("player") == viewer.player:
                shown[key] = value
        elif rule != HOST_ONLY:
            raise ValueError(f"unknown redaction policy {rule!r}")
    return shown
