"""Sealed families: a game forked while its table was secret stays sealed with its forks.

Forking a game in play stops it (GameAborted, naming the fork) but must not open its record:
its log would show, at the fork's step, every hand the fork carries on with. So the parent and
every game forked from a table not yet public form a *family* (named by the first parent's id,
recorded in each member's own events: `Game.family`), and no member's secrets (hands, piles,
pending moves, seed and salt) are shown to anyone but its host until every member is over
(docs/api.md, "Forks keep the secrets they carry").

`Family` lists the members (the first parent, then each sealed fork, in order); `Seals` answers
whether a game is revealed. A family that is revealed stays so (a new member is only ever forked
from a member not yet revealed), so a worker keeps that answer.
"""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, LRUCache
from eventsourcing.domain import Aggregate, event

from domain.core import Game
from service.caches import REVEALED
from service.errors import GameNotFound
from service.store.repository import GameRepository, parse_game_id
from service.store.topics import stored_as


@stored_as("service.seals")
class Family(Aggregate):
    """The games of one sealed family, the first parent first."""

    @staticmethod
    def create_id(root: str | UUID) -> UUID:
        return uuid5(NAMESPACE_URL, f"gruft:family:{root}")

    @event("Opened")
    def __init__(self, root: str) -> None:
        self.root = root
        self.members: list[str] = [root]

    def join(self, game_id: UUID) -> None:
        """A sealed fork joins the family."""
        self._joined(game_id=str(game_id))

    @event("Joined")
    def _joined(self, game_id: str) -> None:
        self.members = [*self.members, game_id]


class Seals:
    """Whether a game's secrets are public: over, and (a family member) every member over."""

    def __init__(self, repository: GameRepository) -> None:
        self._repository = repository
        self._revealed: LRUCache[str, bool] = LRUCache(REVEALED.entries)

    def revealed(self, game: Game) -> bool:
        """Whether everybody may see everything about `game` now."""
        if not game.finished:
            return False
        if game.family is None:
            return True
        try:
            return self._revealed.get(game.family)
        except KeyError:
            pass
        if not self._all_over(game.family):
            return False
        self._revealed.put(game.family, True)  # for ever: nothing joins a revealed family
        return True

    def sealed(self, game: Game) -> bool:
        """Whether `game` is over but its record stays sealed (a member of a family in play)."""
        return game.finished and not self.revealed(game)

    def family(self, root: str) -> Family | None:
        """The family `root` names (a private copy, for a fork to join), None if none yet."""
        try:
            return self._repository.get(Family.create_id(root))
        except AggregateNotFoundError:
            return None

    def _all_over(self, root: str) -> bool:
        """Every member over, the member list read before and after their states: a fork that
        joined meanwhile (stored with its parent's abort, in one transaction) is seen."""
        family = self.family(root)
        if family is None:
            return False  # recorded as a member, but its family is not stored: keep it sealed
        for member in family.members:
            try:
                game = self._repository.game(parse_game_id(member))
            except GameNotFound:  # a member that cannot be read keeps the family sealed
                return False
            if not game.finished:
                return False
        again = self.family(root)
        return again is not None and again.version == family.version


def family_root(parent: Game, parent_revealed: bool) -> str | None:
    """The family a fork of `parent` joins: none when the parent's record is public (an
    analysis fork), else the parent's own family or, forked in play, the one it founds."""
    if parent_revealed:
        return None
    return parent.family or str(parent.id)


def stamp(view: dict[str, Any], sealed: bool) -> dict[str, Any]:
    """A view that says, for a sealed game, that its record stays sealed."""
    if sealed:
        view = {**view, "sealed": True}
    return view
