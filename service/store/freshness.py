"""When a command may run on a worker's cached copy of a game without asking the store.

On PostgreSQL asking the store is a round trip. Each write's NOTIFY says which games it changed
and their newest versions (service/store/postgres.py); the log follower (service/store/follower.py) LISTENs
and hands that to `Freshness` the moment it arrives, and `Freshness` keeps the newest version
stored of each game it has heard of. A command on a cached copy at least that new runs on it
without a read; on an older copy it reads only the events after the copy's version
(service/store/repository.py). A cached game at least that new is the stored one, unless a change is
on its way to the follower right now (the NOTIFY is delivered at the writer's commit, so mostly
it has arrived before the writer's answer). A command takes that chance on its first run
(service/app.py, `Games._ruled`): the store refuses a version already taken, and the command
then runs again on the game read from the store; a copy that the rules or the expected version
refuse is judged again on the stored game. Reads never take it: a read right after a write sees
it, whichever worker answers (tests/service/storage/test_serve.py). Trust holds only while the
follower listens: when its connection drops, every command asks the store until it listens and
has caught up.

Nothing here changes a cached game: the follower reads the log a little later, for the streams
and the other subscribers, and bringing each worker's copy of every game up to each command
stored elsewhere cost a copy of the game per command in every worker; the command that needs
the newer game reads it, once (docs/performance.md).

The versions heard of are bounded (service.caches.FRESHNESS, the most recently changed
games): a game forgotten here is dropped from the cache too, so it is never trusted on an old
word.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from service.caches import FRESHNESS

GAME_TOPICS = "domain."  # the games' event topics (as service/live/watches.py)


class Freshness:
    """The newest stored version of each game changed lately, as the follower heard it."""

    def __init__(self, listening: Callable[[], bool], forget: Callable[[UUID], None],
                 position: int, size: int = FRESHNESS.entries) -> None:
        self._listening = listening  # whether the follower hears every commit now
        self._forget = forget  # drops a game from the cache
        self._size = size
        self._lock = threading.Lock()
        self._newest: OrderedDict[UUID, int] = OrderedDict()
        self.position = position  # the follower's subscriber protocol

    def current(self, game_id: UUID, version: int) -> bool:
        """Whether a cached copy at `version` is the newest the store holds, as far as the
        follower has heard (never while it is not listening)."""
        if not self._listening():
            return False
        with self._lock:
            return self._newest.get(game_id, 0) <= version

    def heard(self, pairs: list[tuple[str, int]]) -> None:
        """Hear of the games a write changed and their newest versions, from its notice (the
        follower calls this as soon as it arrives, before it reads the log)."""
        changed = []
        for game_id, version in pairs:
            try:
                changed.append((UUID(game_id), version))
            except ValueError:  # not a game's id: nothing here caches it
                continue
        self._note(changed)

    def receive(self, notifications: Sequence[Any]) -> None:
        """Hear of the versions stored (the follower calls this, in log order): those its
        notices did not say (a write of too many games, a notice lost) count from here."""
        newest: dict[UUID, int] = {}
        for note in notifications:
            if note.topic.startswith(GAME_TOPICS):
                newest[note.originator_id] = note.originator_version
        self._note(list(newest.items()))
        self.position = notifications[-1].id

    def _note(self, changed: list[tuple[UUID, int]]) -> None:
        dropped = []
        with self._lock:
            for game_id, version in changed:
                if self._newest.get(game_id, 0) < version:
                    self._newest[game_id] = version
                self._newest.move_to_end(game_id)
                while len(self._newest) > self._size:
                    dropped.append(self._newest.popitem(last=False)[0])
        for game_id in dropped:  # no word kept of it: the cache must not trust an old copy
            self._forget(game_id)
