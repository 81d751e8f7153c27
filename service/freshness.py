"""When a command may run on a worker's cached copy of a game without asking the store.

On PostgreSQL asking the store is a round trip. The log follower (service/follower.py) LISTENs
for every commit, so it learns of each change any worker or server stores within moments;
`Freshness`, its subscriber, keeps the newest version stored of each game it has heard of, and
first brings this worker's cached copy up to it with the events the follower read
(`GameRepository.follow`): another worker's command is applied here once, in the follower's
thread, and the next command on the game in this worker finds its copy current without a
read. A cached game at least that new is the stored one, unless a change is on its way to the
follower right now (the NOTIFY is delivered at the writer's commit, service/postgres.py, so
mostly it has arrived before the writer's answer). A command takes that chance on its first run (service/app.py, `Games._ruled`): the
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
                 position: int, size: int = FRESHNESS.entries,
                 follow: Callable[[UUID, list[Any]], None] | None = None) -> None:
        self._listening = listening  # whether the follower hears every commit now
        self._forget = forget  # drops a game from the cache
        self._follow = follow  # brings a cached game up to the notifications of its events
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
        games: dict[UUID, list[Any]] = {}
        for note in notifications:
            if note.topic.startswith(GAME_TOPICS):
                games.setdefault(note.originator_id, []).append(note)
        if self._follow is not None:
            # The cached games first, then the word that they changed: a command that checks
            # in between finds its copy current, never trusted while older than the store's.
            for game_id, notes in games.items():
                self._follow(game_id, notes)
        dropped = []
        with self._lock:
            for game_id, notes in games.items():
                note = notes[-1]
                if self._newest.get(game_id, 0) < note.originator_version:
                    self._newest[game_id] = note.originator_version
                self._newest.move_to_end(game_id)
                while len(self._newest) > self._size:
                    dropped.append(self._newest.popitem(last=False)[0])
        for game_id in dropped:  # no word kept of it: the cache must not trust an old copy
            self._forget(game_id)
        self.position = notifications[-1].id
