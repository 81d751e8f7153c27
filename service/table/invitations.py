"""Invitations (issue 23, item 6): a link a browser may keep carries a code, never a token.

A browser keeps every address it opens in its history (Chromium's History database kept
`/play?token=…` although the page cleaned its address bar at once). So an invitation link carries
a code that the page exchanges (POST, which link previews never send) for a credential of the
seat, kept by the page out of any address. A code works once: the one left in a history is dead.
The host issues a seat's invitation again when it was lost or went to the wrong hands: the old
code is dead, and so is the credential got with it. The host's own link is issued again on the
host's own pages (the one used to get there is dead): its earlier code dies, but the host's
credentials stay, since the page asking holds one. The tokens of the creation answer are not
touched (clients that keep them go on as before).

Like the tokens' (service.table.tokens), only hashes are stored, in an aggregate of one game's
invitations beside the game (never in its events, so never in a log or an export). A seat is a
player's name, or HOST_SEAT for the host's own invitation.
"""

from __future__ import annotations

import hmac
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from service.store.topics import stored_as
from service.table.tokens import new_token, token_hash

HOST_SEAT = ""  # the seat of the host's own invitation


@stored_as("service.invitations")
class Invitations(Aggregate):
    """The hashes of one game's invitation codes (one live per seat at most: the latest), and
    of the credentials they were exchanged for (a player's seat: the latest only)."""

    @staticmethod
    def create_id(game_id: UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:invitations:{game_id}")

    @event("Started")
    def __init__(self, game_id: UUID) -> None:
        self.game_id = game_id
        self.codes: dict[str, str] = {}  # seat -> hash of its code not yet exchanged
        self.credentials: dict[str, list[str]] = {}  # seat -> hashes of credentials given

    def issue(self, seat: str) -> str:
        """A new code for `seat`; its earlier code and the credential got with it are dead."""
        code = new_token()
        self._issued(seat, token_hash(code))
        return code

    @event("Issued")
    def _issued(self, seat: str, code: str) -> None:
        self.codes[seat] = code
        if seat != HOST_SEAT:
            self.credentials.pop(seat, None)

    def accept(self, code: str) -> tuple[str, str] | None:
        """(seat, its new credential) for a live code, which dies; None for any other."""
        seat = _match(self.codes, code)
        if seat is None:
            return None
        credential = new_token()
        self._accepted(seat, token_hash(credential))
        return seat, credential

    @event("Accepted")
    def _accepted(self, seat: str, credential: str) -> None:
        self.codes.pop(seat, None)
        self.credentials.setdefault(seat, []).append(credential)

    def identify(self, credential: str) -> str | None:
        """The seat a credential got by an invitation is for, or None."""
        return _match({seat: hashes for seat, hashes in self.credentials.items()}, credential)


def _match(hashes: dict[str, str | list[str]], secret: str) -> str | None:
    """The seat one of whose stored hashes is the secret's (compared in constant time), or
    None."""
    digest = token_hash(secret)
    found = None
    for seat, stored in hashes.items():
        for one in [stored] if isinstance(stored, str) else stored:
            if hmac.compare_digest(digest, one):
                found = seat
    return found
