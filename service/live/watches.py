"""Live updates: who waits for which game, and how a change stored anywhere wakes them.

One `Live` belongs to one Application (one per worker process). It learns of every stored change:
- saved by this process: `Games.after_commit` calls `announce` right after the commit;
- saved by another worker or server: the process's log follower (service/store/follower.py) hands
  `LiveFeed`, its subscriber here, every notification stored after the feed began, in order.
Before it announces what it was handed, the feed gives the stored events of watched games to
`forward` (the Application brings its cached copies up to date with them), so the streams of a
change another process stored find the game at hand, with no second read of the store.
Waiters (streams, long polls) `watch` a game and wait until a version after theirs is announced;
listeners (`subscribe`) are called with (game id, version) for changes, at least once each,
possibly coalesced (a command that stores three events is announced with its last version).
A waiter registers before it reads the store, so a change committed after that read is always
announced to it; the feed only ever announces what is committed.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from uuid import UUID

from service.caches import ANNOUNCED
from service.store.follower import Follower

log = logging.getLogger("gruft.live")

GAME_TOPICS = "domain."  # the games' event topics; token hashes (service.table.tokens) wake nobody

Listener = Callable[[UUID, int], None]
Forward = Callable[[dict[UUID, list[Any]]], None]  # game id -> its notifications, in order


class _Slot:
    """The waiters of one game: their condition and the newest version announced to them."""

    __slots__ = ("cond", "version", "watchers")

    def __init__(self, lock: threading.Lock) -> None:
        self.cond = threading.Condition(lock)
        self.version = 0
        self.watchers = 0


class Watch:
    """Interest in one game, registered until closed: `wait` for versions after a known one."""

    def __init__(self, live: Live, game_id: UUID) -> None:
        self._live = live
        self.game_id = game_id
        self._slot: _Slot | None = live._register(game_id)

    @property
    def latest(self) -> int:
        """The newest version announced since the watch began (0: none yet)."""
        slot = self._slot
        return slot.version if slot is not None else 0

    @property
    def stopping(self) -> bool:
        """Whether this process is stopping: streams end so that clients reconnect elsewhere."""
        return self._live.stopping

    def wait(self, known: int, timeout: float) -> bool:
        """Block until a version after `known` is announced (True) or `timeout` seconds pass;
        also returns (True) at once when the process is stopping."""
        slot = self._slot
        if slot is None:
            raise RuntimeError("this watch is closed")
        live = self._live
        with slot.cond:
            return slot.cond.wait_for(lambda: slot.version > known or live.stopping, timeout)

    def close(self) -> None:
        """Stop watching (a stream whose client left, a long poll answered)."""
        slot, self._slot = self._slot, None
        if slot is not None:
            self._live._unregister(self.game_id, slot)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Live:
    """The change feed of one Application: local announcements plus the follower's feed."""

    def __init__(self, follower: Follower, forward: Forward | None = None) -> None:
        self._follower = follower
        self.forward = forward  # given a change's notifications before it is announced
        self._lock = threading.Lock()
        self._slots: dict[UUID, _Slot] = {}
        self._known: OrderedDict[UUID, int] = OrderedDict()
        self._listeners: list[Listener] = []
        self._feed: LiveFeed | None = None
        self._pid = os.getpid()
        self._closed = False
        self.stopping = False  # set by `stop_watches`: the process is shutting down

    # -- the interface ---------------------------------------------------------------------

    def watch(self, game_id: UUID) -> Watch:
        """Register interest in a game; use as a context manager, and read the store after."""
        self._ensure_feed()
        return Watch(self, game_id)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(game_id, version)` on changes (from the thread that learnt of them:
        keep it short); answers the function that unsubscribes it."""
        self._ensure_feed()
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def announce(self, changes: Iterable[tuple[UUID, int]]) -> None:
        """Wake the waiters of each changed game and tell the listeners, once per new version."""
        fresh: list[tuple[UUID, int]] = []
        with self._lock:
            for game_id, version in changes:
                if self._known.get(game_id, 0) >= version:
                    continue  # already announced (saved here, then seen again in the log)
                self._known[game_id] = version
                self._known.move_to_end(game_id)
                if len(self._known) > ANNOUNCED.entries:
                    self._known.popitem(last=False)
                fresh.append((game_id, version))
                slot = self._slots.get(game_id)
                if slot is not None and version > slot.version:
                    slot.version = version
                    slot.cond.notify_all()
            listeners = list(self._listeners) if fresh else []
        for listener in listeners:
            for game_id, version in fresh:
                try:
                    listener(game_id, version)
                except Exception:  # one listener's failure must not stop the feed
                    log.exception("a live listener failed on %s v%s", game_id, version)

    def stop_watches(self) -> None:
        """Wake every watch for good (the worker is stopping): streams end, long polls answer."""
        with self._lock:
            self.stopping = True
            for slot in self._slots.values():
                slot.cond.notify_all()

    def close(self) -> None:
        """Stop following the log (the Application closes its follower); every watch ends."""
        self._closed = True
        self.stop_watches()

    @property
    def closed(self) -> bool:
        """Whether the Application closed: whoever delivers its changes stops."""
        return self._closed

    # -- waiters ---------------------------------------------------------------------------

    def _register(self, game_id: UUID) -> _Slot:
        with self._lock:
            slot = self._slots.get(game_id)
            if slot is None:
                slot = self._slots[game_id] = _Slot(self._lock)
                slot.version = self._known.get(game_id, 0)
            slot.watchers += 1
            return slot

    def _unregister(self, game_id: UUID, slot: _Slot) -> None:
        with self._lock:
            slot.watchers -= 1
            if slot.watchers <= 0 and self._slots.get(game_id) is slot:
                del self._slots[game_id]

    # -- what other processes store, from the log follower ----------------------------------

    def _ensure_feed(self) -> None:
        if os.getpid() != self._pid:  # forked after it subscribed: the follower starts anew
            self._pid, self._feed = os.getpid(), None
        if self._feed is not None or self._closed or self._follower.kind is None:
            return  # in memory, one process holds the whole store: its own announcements are all
        with self._lock:
            if self._feed is not None:
                return
            # From where the log stands now, read before this returns: a change committed
            # after the first watch or subscription is announced even if it lands at once.
            try:
                feed = LiveFeed(self, self._follower.head())
            except Exception as exc:  # the next watch tries again
                log.warning("live: reading the log's head failed: %s", exc)
                return
            self._feed = feed
        self._follower.subscribe(feed)

    def _receive(self, notes: Sequence[Any]) -> None:
        """Announce the games changed in `notes` (stored by any process), forwarding the
        watched ones first."""
        newest: dict[UUID, int] = {}
        stored: dict[UUID, list[Any]] = {}
        for note in notes:
            if note.topic.startswith(GAME_TOPICS):
                newest[note.originator_id] = max(newest.get(note.originator_id, 0),
                                                 note.originator_version)
                stored.setdefault(note.originator_id, []).append(note)
        if newest:
            self._forward_watched(stored)
            self.announce(newest.items())

    def _forward_watched(self, stored: dict[UUID, list[Any]]) -> None:
        """Hand `forward` the new events of the games somebody here watches (not those this
        process announced already: it stored them itself)."""
        if self.forward is None:
            return
        with self._lock:
            watched = {game_id: notes for game_id, notes in stored.items()
                       if game_id in self._slots
                       and self._known.get(game_id, 0) < notes[-1].originator_version}
        if watched:
            try:
                self.forward(watched)
            except Exception:  # the streams then read the store themselves, as before
                log.exception("live: forwarding cached games failed")


class LiveFeed:
    """The live updates' subscriber to the log follower."""

    def __init__(self, live: Live, position: int) -> None:
        self._live = live
        self.position = position

    def receive(self, notifications: Sequence[Any]) -> None:
        """Announce what other processes stored (and this one: announced once only)."""
        self._live._receive(notifications)
        self.position = notifications[-1].id
