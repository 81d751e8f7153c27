"""The game log: an append-only Merkle tree (RFC 9162) over every game that is over.

Each leaf is the canonical JSON `{"game_id", "version", "hash"}` of a game's last event, in the
order games ended (finished or aborted): the order of their last events in the store's log of
events. The leaves live in a table of the games' own store (`gruft_game_log`, on SQLite in the
games' file, on PostgreSQL in their schema) beside `gruft_game_log_meta`, which holds the log's
`origin` and `position`: the last event of the store whose game, if it ended there, is a leaf.

`GameLog.catch_up` reads the store's events after that position whose type ends a game, and
appends their leaves in one transaction that first takes the meta row's write lock: appenders in
several workers and servers queue there, each re-reads the position after the lock, so a game
is appended once, the indexes have no gap and the order is the store's. A store that predates
the log starts at position 0: its games already over are logged first, in the order they ended.
Nothing here runs on a command's path: `Appender`, a subscriber of the log follower
(service/store/follower.py), wakes its thread when the log holds an event that ends a game.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from domain import ENDINGS, available_games, game_class
from domain.core import canonical
from service.audit.merkle import Tree, leaf_hash
from service.audit.tlog import TILE_WIDTH, checkpoint_text, entry_bundle
from service.store.ddl import retry_concurrent_ddl

log = logging.getLogger("gruft.gamelog")


class KeyMissing(Exception):
    """The store was signed by a key this server does not hold; the argument is its id."""

TABLE, META = "gruft_game_log", "gruft_game_log_meta"
BATCH = 500  # ending events read and appended in one transaction at most


def ending_topics() -> list[str]:
    """The stored topics of every event that ends a game of any kind."""
    from eventsourcing.utils import get_topic

    from domain.core import Game

    # The abort is triggered as Game's own event class (its topic is domain.core.game's),
    # each game's end as the game's; the subclasses eventsourcing derives are listed too.
    classes = [Game, *(game_class(key) for key in available_games())]
    return sorted({get_topic(getattr(cls, ending.__name__)) for cls in classes
                   for ending in ENDINGS if hasattr(cls, ending.__name__)})


def leaf_of(game_id: str, version: int, event_hash: str) -> dict[str, Any]:
    """A game's leaf: its id, the version and the hash of its last event."""
    return {"game_id": str(game_id), "version": version, "hash": event_hash}


def leaf_bytes(leaf: dict[str, Any]) -> bytes:
    """What a leaf hashes: the UTF-8 of its canonical JSON."""
    return canonical(leaf).encode("utf-8")


class LogTable:
    """The log's two tables in one database, reached through the games' own datastore."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        datastore = getattr(recorder, "datastore", None)
        self.kind = "postgres" if hasattr(datastore, "schema") else (
            "sqlite" if datastore is not None else "memory")
        if self.kind == "postgres":
            schema = '"' + datastore.schema.replace('"', '""') + '"'
            self.table, self.meta, self.mark = f"{schema}.{TABLE}", f"{schema}.{META}", "%s"
        else:
            self.table, self.meta, self.mark = TABLE, META, "?"
        self._memory: sqlite3.Connection | None = None
        self._memory_lock = threading.Lock()
        if self.kind == "memory":  # the in-memory store: a private in-memory database
            self._memory = sqlite3.connect(":memory:", check_same_thread=False,
                                           isolation_level=None)
            self._memory.row_factory = sqlite3.Row
        retry_concurrent_ddl(self._create_tables)

    def sql(self, statement: str) -> str:
        """A statement with this database's names and parameter marks."""
        return statement.format(table=self.table, meta=self.meta).replace("?", self.mark)

    def _create_tables(self) -> None:
        # On SQLite the write lock from the start (IMMEDIATE), waited for: a deferred transaction
        # that reads, then writes after another worker's commit is refused at once ("database is
        # locked"), and a worker that fails to boot stops gunicorn altogether. On PostgreSQL the
        # lock is the meta row's, which may not exist yet.
        with self.transaction(lock=self.kind != "postgres") as cur:
            cur.execute(self.sql(
                "CREATE TABLE IF NOT EXISTS {table} (idx BIGINT PRIMARY KEY,"
                " game_id TEXT NOT NULL UNIQUE, version BIGINT NOT NULL, hash TEXT NOT NULL,"
                " leaf_hash TEXT NOT NULL, position BIGINT NOT NULL, ended_at TEXT NOT NULL)"))
            cur.execute(self.sql(
                "CREATE TABLE IF NOT EXISTS {meta} (name TEXT PRIMARY KEY, value TEXT NOT NULL)"))
            insert = "INSERT INTO {meta} (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING"
            cur.execute(self.sql(insert), ("position", "0"))
            cur.execute(self.sql(insert), ("origin", f"gruft-log/{secrets.token_hex(8)}"))

    @contextmanager
    def transaction(self, lock: bool = True, write: bool = True) -> Iterator[Any]:
        """A transaction; with `lock`, holding the log's write lock from its first statement."""
        if self.kind == "postgres":
            with self.recorder.datastore.transaction(commit=write) as cur:
                if lock:  # the meta row's lock queues the appenders of every worker and server
                    cur.execute(self.sql("SELECT value FROM {meta} WHERE name = ? FOR UPDATE"),
                                ("position",))
                yield cur
            return
        if self._memory is not None:
            with self._memory_lock:
                yield from self._sqlite(self._memory.cursor(), lock)
            return
        with self.recorder.datastore.get_connection(commit=write) as conn:
            yield from self._sqlite(conn.cursor(), lock)

    @staticmethod
    def _sqlite(cur: Any, lock: bool) -> Iterator[Any]:
        # IMMEDIATE: the write lock from the start, so the position read under it is the latest
        cur.execute("BEGIN IMMEDIATE" if lock else "BEGIN")
        try:
            yield cur
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        cur.execute("COMMIT")

    def read(self, statement: str, *args: Any) -> list[Any]:
        """The rows a query answers (no lock)."""
        with self.transaction(lock=False, write=False) as cur:
            cur.execute(self.sql(statement), args)
            return list(cur.fetchall())

    def meta_value(self, cur: Any, name: str) -> str:
        cur.execute(self.sql("SELECT value FROM {meta} WHERE name = ?"), (name,))
        return cur.fetchone()["value"]

    def signers(self, key: Any, adopt: bool = False) -> list[str]:
        """The ids of the keys that have signed for this store, the server's `key` (a
        service.audit.signing.SigningKey; None: only look) among them from now on; KeyMissing when
        one is neither `key` nor one it retired (issue 32, item 7: a server on another data folder made a new
        key silently, then called its own earlier records untrusted). With `adopt`, the
        missing ones are dropped instead: the operator's explicit `gruft key --adopt`."""
        held = {key.key_id, *(period["key_id"] for period in key.periods)} if key else set()
        with self.transaction(write=key is not None) as cur:
            cur.execute(self.sql("SELECT value FROM {meta} WHERE name = ?"), ("signers",))
            row = cur.fetchone()
            recorded = json.loads(row["value"]) if row is not None else []
            missing = [key_id for key_id in recorded if key_id not in held]
            if missing and not adopt:
                raise KeyMissing(missing[0])
            if key is None:  # only asked: no key yet, so nothing is missing
                return recorded
            signers = [key_id for key_id in recorded if key_id in held]
            signers += [key.key_id] if key.key_id not in signers else []
            if signers != recorded:
                cur.execute(self.sql("DELETE FROM {meta} WHERE name = ?"), ("signers",))
                cur.execute(self.sql("INSERT INTO {meta} (name, value) VALUES (?, ?)"),
                            ("signers", json.dumps(signers)))
        return missing if adopt else signers


class GameLog:
    """The log of one store: appends, and answers checkpoints and proofs from its leaves."""

    def __init__(self, games: Any, signing_key: Any) -> None:
        self.games = games
        self.key = signing_key  # service.audit.signing.SigningKey: signs the checkpoints
        self.table = LogTable(games.recorder)
        self.topics = ending_topics()
        self.origin = str(self.table.read("SELECT value FROM {meta} WHERE name = ?",
                                          "origin")[0]["value"])
        self.table.signers(signing_key)  # KeyMissing: this store was signed by a key not held
        self._tree = Tree()
        self._index: dict[str, int] = {}  # game id -> its leaf's index
        self._lock = threading.Lock()
        self._scanned = 0  # events this process read up to and found no end after

    # -- appending --------------------------------------------------------------------------

    def catch_up(self) -> int:
        """Append the leaves of the games that ended since the last position, up to the log's
        head as it is now; how many.

        Up to that head only: a catch-up that also chased what arrived meanwhile would never end
        under a steady flow of commands, three queries a turn (a game's end arriving later wakes
        the Appender again)."""
        appended = 0
        head = self.games.recorder.max_notification_id() or 0
        while True:
            start = max(self._scanned, self._position())
            if head <= start:
                return appended
            found = self.games.recorder.select_notifications(
                start + 1, BATCH, stop=head, topics=self.topics)
            stop = found[-1].id if len(found) == BATCH else head
            ended = [self._leaf_row(n) for n in found]
            if ended:
                appended += self._append(ended, stop)
            self._scanned = stop

    def _position(self) -> int:
        return int(self.table.read("SELECT value FROM {meta} WHERE name = ?",
                                   "position")[0]["value"])

    def _leaf_row(self, notification: Any) -> dict[str, Any]:
        event = self.games.mapper.to_domain_event(notification)
        leaf = leaf_of(str(event.originator_id), event.originator_version, event.hash)
        return {**leaf, "leaf_hash": leaf_hash(leaf_bytes(leaf)).hex(),
                "position": notification.id, "ended_at": event.timestamp.isoformat()}

    def _append(self, rows: list[dict[str, Any]], stop: int) -> int:
        table = self.table
        with table.transaction() as cur:
            position = int(table.meta_value(cur, "position"))
            cur.execute(table.sql("SELECT COUNT(*) AS n FROM {table}"))
            size = int(cur.fetchone()["n"])
            new = [r for r in rows if r["position"] > position]  # another appender's are in
            for offset, row in enumerate(new):
                cur.execute(table.sql(
                    "INSERT INTO {table} (idx, game_id, version, hash, leaf_hash, position,"
                    " ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                    (size + offset, row["game_id"], row["version"], row["hash"],
                     row["leaf_hash"], row["position"], row["ended_at"]))
            if stop > position:
                cur.execute(table.sql("UPDATE {meta} SET value = ? WHERE name = ?"),
                            (str(stop), "position"))
        return len(new)

    # -- reading ----------------------------------------------------------------------------

    def tree(self) -> Tree:
        """The tree of every leaf stored so far (the new ones read from the table)."""
        with self._lock:
            rows = self.table.read("SELECT idx, game_id, leaf_hash FROM {table} WHERE idx >= ?"
                                   " ORDER BY idx", self._tree.size)
            for row in rows:
                if int(row["idx"]) != self._tree.size:  # never: the indexes have no gap
                    raise RuntimeError(f"the game log has a gap before leaf {row['idx']}")
                self._index[str(row["game_id"])] = self._tree.append(
                    bytes.fromhex(row["leaf_hash"]))
            return self._tree

    def entry(self, game_id: str | UUID) -> dict[str, Any] | None:
        """A logged game's row: index, leaf (game_id, version, hash), ended_at; None if not."""
        rows = self.table.read("SELECT idx, game_id, version, hash, ended_at FROM {table}"
                               " WHERE game_id = ?", str(game_id))
        if not rows:
            return None
        row = rows[0]
        return {"index": int(row["idx"]), "ended_at": str(row["ended_at"]),
                "leaf": leaf_of(str(row["game_id"]), int(row["version"]), str(row["hash"]))}

    def logged_before(self, leaf: dict[str, Any], until: str | None) -> bool:
        """Whether the game a (verified) document tells of, as far as it tells (its `leaf_of`
        its id, length and last hash), is in the log as over no later than `until` (ISO 8601);
        a game just over is caught up first."""
        found = self.entry(leaf["game_id"])
        if found is None:
            self.catch_up()  # the subscriber may not have appended it yet
            found = self.entry(leaf["game_id"])
        if found is None or found["leaf"] != leaf or until is None:
            return False
        return datetime.fromisoformat(found["ended_at"]) <= datetime.fromisoformat(until)

    def checkpoint(self, size: int | None = None) -> dict[str, Any]:
        """The signed checkpoint of the tree now (or of its first `size` leaves)."""
        tree = self.tree()
        size = tree.size if size is None else size
        body = {"origin": self.origin, "size": size, "root": tree.root(size).hex(),
                "timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
                "key_id": self.key.key_id}
        return {**body, "signature": self.key.sign(canonical(body).encode("utf-8"))}

    def note(self, size: int | None = None) -> str:
        """The checkpoint of the tree now (or of its first `size` leaves) as a C2SP signed note
        (tlog-checkpoint.md): origin, size and base64 root, signed by the server's key under the
        key name of the origin. Ed25519 signs deterministically: a size has one note."""
        tree = self.tree()
        size = tree.size if size is None else size
        return self.key.sign_note(checkpoint_text(self.origin, size, tree.root(size)),
                                  self.origin)

    def tile(self, level: int, n: int, width: int = TILE_WIDTH) -> bytes | None:
        """The hashes of tile `n` at `level`, `width` of them (tlog-tiles.md): hash i is the MTH of
        the 256**level leaves from (n * 256 + i) * 256**level; None if the log is not yet that big."""
        tree = self.tree()
        span = TILE_WIDTH ** level
        first = n * TILE_WIDTH
        if (first + width) * span > tree.size:
            return None
        return b"".join(tree.subtree((first + i) * span, span) for i in range(width))

    def entries(self, n: int, width: int = TILE_WIDTH) -> bytes | None:
        """The entry bundle `n`, `width` entries: each leaf as the tree hashes it (the canonical
        JSON of its game id, version and hash) behind its two-byte big-endian length; None if
        the log is not yet that big."""
        first = n * TILE_WIDTH
        if first + width > self.tree().size:
            return None
        rows = self.table.read("SELECT idx, game_id, version, hash FROM {table}"
                               " WHERE idx >= ? AND idx < ? ORDER BY idx", first, first + width)
        if [int(r["idx"]) for r in rows] != list(range(first, first + width)):
            raise RuntimeError(f"the game log has a gap in leaves {first} to {first + width}")
        return entry_bundle(leaf_bytes(leaf_of(str(r["game_id"]), int(r["version"]),
                                               str(r["hash"]))) for r in rows)

    def inclusion(self, game_id: str | UUID, size: int | None = None) -> dict[str, Any] | None:
        """The proof that a game is in the tree of `size` leaves; None if it is not in it."""
        tree = self.tree()
        size = tree.size if size is None else size
        found = self.entry(game_id)
        if found is None or found["index"] >= size:
            return None
        proof = tree.inclusion_proof(found["index"], size)
        return {"index": found["index"], "size": size, "leaf": found["leaf"],
                "proof": [p.hex() for p in proof]}

    def consistency(self, first: int, second: int | None = None) -> dict[str, Any]:
        """The proof that the tree of `first` leaves is a prefix of the tree of `second`."""
        tree = self.tree()
        second = tree.size if second is None else second
        proof = tree.consistency_proof(first, second)  # ValueError outside 0 <= first <= second
        return {"first": first, "second": second, "proof": [p.hex() for p in proof]}

    def for_export(self, game_id: str | UUID) -> dict[str, Any] | None:
        """What the export of a game that is over carries: its proof against a signed
        checkpoint (the game caught up first if the subscriber has not appended it yet)."""
        proof = self.inclusion(game_id)
        if proof is None and self.catch_up():
            proof = self.inclusion(game_id)
        if proof is None:
            return None
        return {"index": proof["index"], "proof": proof["proof"],
                "checkpoint": self.checkpoint(proof["size"])}


class Appender:
    """A daemon thread that catches the log up whenever it is woken, and once at once.

    It subscribes to the store's log follower: handed the new notifications, it wakes the
    thread only when one of them ends a game (their topics say it; nothing is read). Its
    worker's owner (api/worker.py) closes it before the store: `close` stops the thread and
    waits for a catch-up under way, which must never run on connections being closed.
    """

    def __init__(self, game_log: GameLog) -> None:
        self._wanted = threading.Event()
        self._stop = threading.Event()
        self._log = weakref.ref(game_log)
        self._unsubscribe: Callable[[], None] | None = None  # from the follower, once subscribed
        weakref.finalize(game_log, self.stop)
        games = game_log.games
        self._endings = frozenset(game_log.topics)
        self.position = games.follower.head()  # the follower's subscriber protocol
        self._thread = threading.Thread(target=self._run, daemon=True, name="gruft-gamelog")
        self._wanted.set()  # a store that predates the log logs its games already over first
        self._thread.start()
        self._unsubscribe = games.follower.subscribe(self)

    def receive(self, notifications: Sequence[Any]) -> None:
        """New notifications (from the follower): wake the thread if one ends a game."""
        if any(note.topic in self._endings for note in notifications):
            self._wanted.set()
        self.position = notifications[-1].id

    def stop(self) -> None:
        """End the thread after its current catch-up."""
        self._stop.set()
        self._wanted.set()
        if self._unsubscribe is not None:
            self._unsubscribe()

    def close(self, timeout: float = 30.0) -> None:
        """Stop, and wait until the thread has ended (after a catch-up under way)."""
        self.stop()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            self._wanted.wait()
            self._wanted.clear()
            game_log = self._log()
            if game_log is None:
                return
            try:
                if self._stop.is_set():
                    return
                game_log.catch_up()
                failures = 0
            except Exception:  # a store outage: try again on the next wake, a little later
                failures += 1
                log.exception("the game log could not catch up")
                self._stop.wait(min(30.0, 0.5 * failures))
                self._wanted.set()
            del game_log
