"""Secrets the server draws: host and player tokens (256 random bits each, stored only as
SHA-256 hashes), and each game's seed and salt.

The hashes live in a small aggregate of their own beside the game (never in the game's events,
so they never reach a log or an export), saved in the same transaction as the game.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

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


class Credentials(Aggregate):
    """The token hashes of one game."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:credentials:{game_id}")

    @event("Issued")
    def __init__(self, game_id: UUID, host: str, players: dict[str, str]) -> None:
        self.game_id = game_id
        self.host = host
        self.players = dict(players)

    def identify(self, token: str) -> tuple[bool, str | None] | None:
        """(is_host, player) for a token of this game, or None; compares in constant time."""
        digest = token_hash(token)
        found: tuple[bool, str | None] | None = None
        if hmac.compare_digest(digest, self.host):
            found = (True, None)
        for name, stored in self.players.items():
            if hmac.compare_digest(digest, stored):
                found = (False, name)
        return found


def issue_credentials(game_id: UUID, players: list[str]) -> tuple[Credentials, str, dict[str, str]]:
    """New tokens for a game: the aggregate to store, the host token, the player tokens."""
    host = new_token()
    player_tokens = {p: new_token() for p in players}
    creds = Credentials(
        game_id=game_id,
        host=token_hash(host),
        players={p: token_hash(t) for p, t in player_tokens.items()},
    )
    return creds, host, player_tokens
