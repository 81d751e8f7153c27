"""When a command may run on a worker's cached copy of a game without asking the store.

On PostgreSQL asking the store is a round trip. The log follower (service/follower.py) LISTENs
for every commit, so it learns of each change any worker or server stores within moments;
`Freshness`, its subscriber, keeps the newest version stored of each game it has heard of. A
cached game at least that new is the stored one, unless a change is on its way to the follower
right now. A command takes that chance on its first run (service/app.py, `Games._ruled`): the
store's unique key refuses a version already taken, and the command then runs again on the game
read from the store; a copy that the rules or the expected version refuse is judged again on
the stored game. Reads never take it: a read right after a write sees it, whichever worker
answers (tests/service/storage/test_serve.py). Trust holds only while the follower listens:
when its connection drops, every command asks the store until it listens and has caught up.

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

GAME_TOPICS = "domain."  # the games' event topics (as service/live.py)


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

    def receive(self, notifications: Sequence[Any]) -> None:
        """Hear of the versions stored (the follower calls this, in log order)."""
        dropped = []
        with self._lock:
            for note in notifications:
                if not note.topic.startswith(GAME_TOPICS):
                    continue
                game_id = note.originator_id
                if self._newest.get(game_id, 0) < note.originator_version:
                    self._newest[game_id] = note.originator_version
                self._newest.move_to_end(game_id)
                while len(self._newest) > self._size:
                    dropped.append(self._newest.popitem(last=False)[0])
        for game_id in dropped:  # no word kept of it: the cache must not trust an old copy
            self._forget(game_id)
        self.position = notifications[-1].id
