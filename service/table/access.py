"""Seats and tokens: who a token is for, which seat a viewer looks from or acts for, and what
only the host may do.

Tokens are checked against the hashes stored beside each game (service.table.tokens); the bot seats
(service.table.seats) are recorded beside it too. Both are written once with the game and never
change, so a worker keeps them once read.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, LRUCache, Repository

from domain.core import HOST, SPECTATOR, BadCommand, Game, Viewer
from domain.core.chain import HOST_BY, SEAT
from domain.core.names import seated_form
from domain.core.words import N_, Term
from service.caches import BOT_SEATS, CREDENTIALS
from service.errors import Forbidden, GameNotFound, Unauthorized
from service.store.repository import parse_game_id
from service.table.invitations import HOST_SEAT, Invitations
from service.table.seats import BotSeats
from service.table.tokens import Credentials

ALL_VERSIONS = 2**62  # a version past any: read the whole aggregate, around the games' cache


class Access:
    """A worker's door keeper: tokens to viewers, and the bot seats of its games."""

    def __init__(self, repository: Repository) -> None:
        self._repository = repository
        # game id -> its tokens' hashes, the most recently used games kept
        self._credentials: LRUCache[UUID, Credentials] = LRUCache(CREDENTIALS.entries)
        self._bot_seats: LRUCache[UUID, dict[str, str]] = LRUCache(BOT_SEATS.entries)

    def authenticate(self, game_id: str | UUID, token: str | None) -> Viewer:
        """Who a bearer token is for this game; no token is a spectator."""
        if token is None:
            return SPECTATOR
        # Credentials are issued once and never change, so a worker need not ask the store for
        # newer events on every request (measured: ~13% of a command's CPU, docs/performance.md).
        # Read straight from the store (version 1, the only one): through the games' cache the
        # token hashes would take the slot of a game.
        creds = self.credentials(game_id)
        found = creds.identify(token)
        if found is None:  # a credential an invitation's code was exchanged for?
            seat = self.invited_seat(creds.game_id, token)
            if seat is not None:
                found = (True, None) if seat == HOST_SEAT else (False, seat)
        if found is None:
            raise Unauthorized(N_("that token is not valid for this game"))
        is_host, player = found
        if is_host and creds.host_seat is not None:
            # The organiser plays a seat (docs/api.md, host_seat): that seat's eyes, the host's
            # rights that show no secret.
            return Viewer(player=creds.host_seat, organiser=True)
        return HOST if is_host else Viewer(player=player)

    def credentials(self, game_id: str | UUID) -> Credentials:
        """The token hashes of a game (read once per worker: they never change)."""
        gid = parse_game_id(game_id)
        try:
            return self._credentials.get(gid)
        except KeyError:
            pass
        try:
            creds = self._repository.get(Credentials.create_id(gid), version=1)
        except AggregateNotFoundError:
            raise GameNotFound(N_("no game %(game_id)s"), game_id=game_id) from None
        self._credentials.put(gid, creds)
        return creds

    def invitations(self, game_id: UUID) -> Invitations | None:
        """A game's invitations as stored now (None: none issued yet). Never kept: a new
        invitation revokes the credential its seat's earlier one gave, in every worker at once
        (one small read per request made with such a credential; the creation's tokens, which
        API clients use, never need it)."""
        try:
            return self._repository.get(Invitations.create_id(game_id), version=ALL_VERSIONS)
        except AggregateNotFoundError:
            return None

    def invited_seat(self, game_id: UUID, credential: str) -> str | None:
        """The seat of a credential got by an invitation (HOST_SEAT: the host's), or None."""
        invitations = self.invitations(game_id)
        return invitations.identify(credential) if invitations is not None else None

    def bot_seats(self, game_id: str | UUID) -> dict[str, str]:
        """The seats of a game the server's bots play (public; empty for most games)."""
        gid = parse_game_id(game_id)
        # Recorded with the game and never changed: once read, kept (absent ones too).
        try:
            return self._bot_seats.get(gid)
        except KeyError:
            pass
        try:
            seats = dict(self._repository.get(BotSeats.create_id(gid), version=1).seats)
        except AggregateNotFoundError:
            seats = {}
        self._bot_seats.put(gid, seats)
        return seats

    def remember_bots(self, game_id: UUID, bots: dict[str, str] | None) -> None:
        """Keep the bot seats of a game this worker just stored (none is kept too)."""
        self._bot_seats.put(game_id, dict(bots or {}))


def seat_viewer(game: Game, viewer: Viewer, player: str | None, *, public_ok: bool) -> Viewer:
    """The seat a viewer looks from: their own, the one the host names, or (`public_ok`) none."""
    if player is not None:
        player = seated_form(player)
    if viewer.host:
        if player is None:
            if public_ok:
                return SPECTATOR
            raise BadCommand(N_("the host names a seat: add ?player=<name>"))
        if player not in game.players:
            raise BadCommand(N_("%(player)r does not play in this game"), player=player)
        return Viewer(player=player)
    if viewer.player is None:
        if public_ok and player is None:
            return SPECTATOR
        raise Unauthorized(N_("a player's or the host's token is needed"))
    if player is not None and player != viewer.player:
        raise Forbidden(N_("this token sees only %(player)s's seat"), player=viewer.player)
    return viewer


def acting_player(game: Game, viewer: Viewer, named: Any) -> str:
    """The player a command is for: the token's own, or the one the host names (or awaits)."""
    if named is not None and not isinstance(named, str):
        raise BadCommand(N_("'player' must be a player's name"))
    if named is not None:
        named = seated_form(named)
    if viewer.host:
        if named is None:
            if len(game.to_act) == 1:
                return game.to_act[0]
            raise BadCommand(N_('the host acts for a player: add "player": "<name>"'))
        if named not in game.players:
            raise BadCommand(N_("%(named)r does not play in this game"), named=named)
        return named
    if viewer.player is None:
        raise Unauthorized(N_("commands need a player's or the host's token"))
    if named is not None and named != viewer.player:
        raise Forbidden(N_("this token acts only for %(player)s"), player=viewer.player)
    return viewer.player


def seat_named(game: Game, name: Any) -> str:
    """The seat a request names (as seats are named: trimmed, NFC); not_found if none."""
    seat = seated_form(name) if isinstance(name, str) else None
    if seat not in game.players:
        raise GameNotFound(N_("%(name)r has no seat in this game"), name=name)
    return seat


def seat_right(viewer: Viewer, seat: str) -> str:
    """Who hands `seat` over or takes it back, as recorded (`by`): the host for any seat, a
    player (the organiser too) for their own; Forbidden or Unauthorized otherwise."""
    if viewer.player == seat:
        return SEAT
    if viewer.host or viewer.organiser:
        return HOST_BY
    if viewer.player is not None:
        raise Forbidden(N_("this token hands over or takes back only %(player)s's seat"),
                        player=viewer.player)
    raise Unauthorized(N_("handing a seat over needs the host's token or the seat's own"))


def is_host(viewer: Viewer) -> bool:
    """Whether the viewer holds the host's token (the organiser playing a seat included)."""
    return viewer.host or viewer.organiser


def check_host(viewer: Viewer, what: str) -> None:
    """Only the host's token may do `what` (the organiser's too: `what` shows no secret)."""
    if viewer.organiser:
        return
    if viewer.player is not None:
        raise Forbidden(N_("%(what)s is for the host alone"), what=Term(what))
    if not viewer.host:
        raise Unauthorized(N_("%(what)s needs the host's token"), what=Term(what))


def check_replay_open(game: Game, viewer: Viewer, what: str, revealed: bool | None = None
                      ) -> None:
    """docs/api.md: the replay, its export and its viewer are the host's at any time, and
    everybody's once the game is over (a game in play keeps its hands secret) and `revealed`
    (service.audit.seals: a sealed family's games stay the host's until every one of them is over)."""
    if viewer.host:
        return
    if not game.finished:
        raise Forbidden(N_("%(what)s is open to the host, and to everybody once the game is over"),
                        what=Term(what))
    if not (game.revealed if revealed is None else revealed):
        raise Forbidden(N_("%(what)s stays sealed: a game forked from this one's secret table is "
                           "still in play; it opens to everybody once every fork is over"),
                        what=Term(what))
