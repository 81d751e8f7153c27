"""Secrets the server draws: host and player tokens (256 random bits each, stored only as
SHA-256 hashes), and each game's seed and salt.

The hashes live in a small aggregate of their own beside the game (never in the game's events,
so they never reach a log or an export), saved in the same transaction as the game.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from service.store.topics import stored_as

TOKEN_BYTES = 32  # 256 bits; the issue asks for at least 128


def new_token() -> str:
    """A fresh bearer token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def draw_seed() -> str:
    """A server-drawn seed: 256 random bits as 64 hex digits."""
    return secrets.token_hex(32)


def draw_salt() -> str:
    """A game's salt (replay format 2): 256 random bits as 64 hex digits, secret like the seed."""
    return secrets.token_hex(32)


def token_hash(token: str) -> str:
    """What is stored in place of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@stored_as("service.tokens")
class Credentials(Aggregate):
    """The token hashes of one game.

    `host_seat`: the seat the organiser plays with the host token (docs/api.md, host_seat).
    `carried`: the hashes of tokens of the game before a rematch that stay valid here, as
    `{"host": [hash, ...], "players": {name: [hash, ...]}}` (the same people, the same seats).
    Both are absent from credentials issued before them (the defaults).
    """

    host_seat = None
    carried = None

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:credentials:{game_id}")

    @event("Issued")
    def __init__(self, game_id: UUID, host: str, players: dict[str, str],
                 host_seat: str | None = None, carried: dict[str, Any] | None = None) -> None:
        self.game_id = game_id
        self.host = host
        self.players = dict(players)
        self.host_seat = host_seat
        self.carried = carried

    def identify(self, token: str) -> tuple[bool, str | None] | None:
        """(is_host, player) for a token of this game, or None; compares in constant time."""
        digest = token_hash(token)
        found: tuple[bool, str | None] | None = None
        for stored in (self.host, *self.host_hashes(carried_only=True)):
            if hmac.compare_digest(digest, stored):
                found = (True, None)
        for name, hashes in self.player_hashes().items():
            for stored in hashes:
                if hmac.compare_digest(digest, stored):
                    found = (False, name)
        return found

    def host_hashes(self, carried_only: bool = False) -> list[str]:
        """Every hash the host token of this game may have (its own and those carried)."""
        carried = list((self.carried or {}).get("host", ()))
        return carried if carried_only else [self.host, *carried]

    def player_hashes(self) -> dict[str, list[str]]:
        """Each seat's token hashes: its own, then those carried from the games before."""
        carried = (self.carried or {}).get("players", {})
        return {name: [stored, *carried.get(name, ())] for name, stored in self.players.items()}


def issue_credentials(game_id: UUID, players: list[str], host_seat: str | None = None,
                      carried: dict[str, Any] | None = None
                      ) -> tuple[Credentials, str, dict[str, str]]:
    """New tokens for a game: the aggregate to store, the host token, the player tokens."""
    host = new_token()
    player_tokens = {p: new_token() for p in players}
    creds = Credentials(
        game_id=game_id,
        host=token_hash(host),
        players={p: token_hash(t) for p, t in player_tokens.items()},
        host_seat=host_seat,
        carried=carried,
    )
    return creds, host, player_tokens


def carried_from(creds: Credentials) -> dict[str, Any]:
    """What a rematch carries over from a game's credentials: every token valid there."""
    return {"host": creds.host_hashes(), "players": creds.player_hashes()}
