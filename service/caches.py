"""Every cache a process keeps, declared in one place: what it holds, its bound, and the one way an
entry stops being used.

A cache that grows with its input is memory an outsider can ask for (issue 23: a stream's
messages, kept by count while each could hold a long game's every event, grew two workers by
440 MiB). So each cache here has a bound that makes its worst case known: a count where every
entry has about the same size, bytes where entries vary (`BytesLRU`), or the finite thing it is
keyed by (the code's statements, the languages). The code that keeps a cache takes its bound
from here (a cache in domain/, which imports nothing outside it, would keep its number there and
be declared here from it: still one number); tests/service/test_caches.py finds every cache in
service/, api/ and domain/ and fails on one not declared here (or declared and gone), and builds
each bounded by a count or bytes to check it keeps the bound declared. The entries' measured
sizes are in docs/performance.md ("What the caches cost").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class Cache:
    """One cache: where it lives, what an entry is, its bound and how an entry goes."""

    where: str  # "module:Class.attribute" or "module:function" of the code that keeps it
    holds: str  # what one entry is, keyed by what
    invalidated: str  # the one way an entry stops being used
    entries: int | None = None  # at most this many entries (entries of about one size)
    bytes: int | None = None  # at most this many bytes (entries that vary in size)
    bounded_by: str | None = None  # else: the finite set its keys come from
    setting: str | None = None  # the setting that changes the bound (docs/deployment.md)

    def __post_init__(self) -> None:
        if (self.entries, self.bytes, self.bounded_by).count(None) != 2:
            raise ValueError(f"{self.where}: one bound, by entries, bytes or key set")


# -- the games and what is delivered from them -----------------------------------------------

GAMES = Cache(
    where="service.app:Games.construct_repository",
    holds="a game's state at its newest version known here, by game id (eventsourcing's "
          "LRUCache in the repository)",
    entries=1_000, setting="AGGREGATE_CACHE_MAXSIZE",
    invalidated="never changed in place: replaced by a copy brought forward with newer events "
                "(a command saved here, the log follower's events, or a read finding more in the "
                "store: service.store.repository.GameRepository.forward and offer)")
CLOCK_GAMES = Cache(
    where="service.runners.clock_runner:ClockRunner._seen",
    holds="a clocked game as the clock runner last looked at it (due within seconds), with the "
          "clock's move chosen ahead of its deadline, by game id",
    entries=5_000,
    invalidated="the log follower's note that another writer changed the game (its Feed), or "
                "the runner's next look at it, which takes it out")
TAILS = Cache(
    where="service.live.delivery:Delivery._tails",
    holds="the newest stored events of a game being streamed (up to TAIL_EVENTS), by game id",
    bytes=8 << 20,
    invalidated="never stale: stored events never change; a tail is extended with the next "
                "events or started afresh when they do not follow on")
STREAM_MESSAGES = Cache(
    where="api.messages:SharedMessages._texts",
    holds="one stream message's text, by game, version, page and viewer",
    bytes=16 << 20,
    invalidated="never stale: a message is keyed by the version it shows; the least recently "
                "used are dropped past the bound")
ANNOUNCED = Cache(
    where="service.live.watches:Live._known",
    holds="the newest version announced of a game, by game id (so each is announced once)",
    entries=4_096,
    invalidated="raised by each newer announcement; the least recently announced forgotten")

PRESENCE_OTHERS = Cache(
    where="service.live.presence:Presence._others",
    holds="the seats other processes have streams open for, by game id",
    bounded_by="the games with a seat's stream open in some process (the presence table's rows)",
    invalidated="replaced whole by each read of the presence table (every READ_SECONDS)")

FRESHNESS = Cache(
    where="service.store.freshness:Freshness._newest",
    holds="the newest stored version the follower heard of, by game id (whether a cached game "
          "may be trusted without reading the store)",
    entries=100_000,
    invalidated="raised by each version the follower hears; past the bound the least recently "
                "heard is dropped, and its game with it from the games' cache")
REMATCHES = Cache(
    where="service.reads:Reads._rematches",
    holds="a finished game's rematch, by game id",
    entries=10_000,
    invalidated="never stale: a rematch, once made, is never changed")
NARRATORS = Cache(
    where="service.reads:Reads._learned",
    holds="what a viewer's narrator had learned (the context later texts need: a trick, a "
          "ring) at up to four versions of a game, by game id, viewer and whether it is revealed",
    entries=1_024,
    invalidated="never stale: a context is keyed by the version it was learned at, and stored "
                "events never change; the least recently used are dropped past the bound")
EXPORTS = Cache(
    where="api.replays:Documents._sent",
    holds="a finished game's export as sent (JSON), by game id, version, signing key and a hash "
          "of its annotations, log proofs and origin",
    bytes=64 << 20,
    invalidated="never stale: keyed by everything the document is made of (a new annotation or "
                "proof makes a new key); the least recently used are dropped past the bound")
VIEWER_EVENTS = Cache(
    where="api.viewer:Described._texts",
    holds="a game's events in words as the replay viewer's page carries them (JSON), by game id, "
          "version and language",
    bytes=64 << 20,
    invalidated="never stale: keyed by the version they describe, and stored events never "
                "change; the least recently used are dropped past the bound")
VIEWER_PAGES = Cache(
    where="api.viewer:Described._pages",
    holds="a replay viewer's page that carries no token (HTML), by game id, version, language, "
          "address and a hash of its data beside the events (annotations, forks)",
    bytes=32 << 20,
    invalidated="never stale: keyed by all the page is made of; the least recently used are "
                "dropped past the bound")
RECEIPTS = Cache(
    where="service.audit.receipts:Receipts._signed",
    holds="a signed receipt, by game id and version",
    entries=10_000,
    invalidated="never stale: a receipt is a signature over a stored event")
REVEALED = Cache(
    where="service.audit.seals:Seals._revealed",
    holds="that a sealed family of games is revealed, by family",
    entries=10_000,
    invalidated="never stale: nothing joins a revealed family")

# -- who may do what ---------------------------------------------------------------------------

CREDENTIALS = Cache(
    where="service.table.access:Access._credentials",
    holds="a game's token hashes (one per seat and the host's), by game id",
    entries=10_000,
    invalidated="never stale: written once with the game and never changed")
BOT_SEATS = Cache(
    where="service.table.access:Access._bot_seats",
    holds="the seats of a game the server's bots play, by game id",
    entries=10_000,
    invalidated="never stale: recorded once with the game and never changed")
KEY_IDS = Cache(
    where="service.audit.signing:key_id",
    holds="a public key's fingerprint, by its PEM text",
    entries=64,
    invalidated="never stale: a fingerprint is a function of the key")

# -- the read models, the game log, the store's connections ------------------------------------

MIRROR = Cache(
    where="service.readmodels.projection:GameViews._mirror",
    holds="a game in progress as the projection last applied it, by game id",
    entries=512,
    invalidated="replaced by each event applied; dropped when the game ends")
SQL_TEXTS = Cache(
    where="service.readmodels.views:ReadModelView.sql",
    holds="a statement's text for this database, by its template",
    bounded_by="the templates written in service/readmodels/views.py",
    invalidated="never stale: a function of the template and the database kind")
SUBTREES = Cache(
    where="service.audit.merkle:Tree._perfect",
    holds="the hash of a complete subtree of the game log's Merkle tree, by its span",
    bounded_by="the log: under two per leaf, and leaves are never changed",
    invalidated="never stale: the leaves under a complete subtree never change")
LOG_INDEX = Cache(
    where="service.audit.gamelog:GameLog._index",
    holds="a logged game's leaf index, by game id (beside its leaf hash in the log's tree)",
    bounded_by="the log: one per game logged",
    invalidated="never stale: the log is append-only, read forward from its table")
STATEMENTS = Cache(
    where="service.store.internals:tune_pool.create_tuned",
    holds="a prepared statement of one SQLite connection, by its text (sqlite3's own cache)",
    entries=128,
    invalidated="sqlite3's: dropped when the schema changes or the connection closes")
PREPARED = Cache(
    where="service.store.postgres:GamesRecorder._prepared",
    holds="the names of the statements prepared on one PostgreSQL connection, by connection",
    bounded_by="the pool's connections (weakly held) and the recorder's statements (a write, "
               "the follower's read, four shapes of a game's read)",
    invalidated="a statement the server no longer has (psycopg's DEALLOCATE ALL) is prepared "
                "again when a run of it fails; a connection gone takes its entry with it")
RULES_PAGES = Cache(
    where="api.rules:rendered",
    holds="a game's rules page as HTML, by game key",
    bounded_by="the games (domain.available_games; others are refused before it)",
    invalidated="never stale: the pages are files of the release")
PARSED_CATALOGS = Cache(
    where="service.catalogs:catalog",
    holds="one language's .po file, parsed, by language (the compiled catalog and the pages' "
          "scripts read it)",
    bounded_by="the languages its callers choose among (the request's locale, gruft report --lang)",
    invalidated="never stale: the catalogs are files of the release")
TRANSLATIONS = Cache(
    where="service.catalogs:translations",
    holds="one language's compiled catalog, by language",
    bounded_by="the languages its callers choose among (the request's locale, gruft report --lang)",
    invalidated="never stale: the catalogs are files of the release")
METRICS = Cache(
    where="service.operator_metrics:_follower",
    holds="the follower's two gauges, made on its first round",
    bounded_by="its two names",
    invalidated="never: made once a process")
SCRIPT_CATALOGS = Cache(
    where="api.i18n:_SCRIPT_CATALOGS",
    holds="the pages' scripts' messages in one language, by language",
    bounded_by="api.i18n.LANGUAGES",
    invalidated="never stale: the catalogs are files of the release")

# -- the rules (pure functions of a class or a player count) -----------------------------------

APPLIERS = Cache(
    where="domain.core.fast_events:_APPLIERS",
    holds="the method body, fields and shape an event class applies, by event class",
    bounded_by="the event classes (filled as each game class is defined)",
    invalidated="never stale: a function of the class")
EVENT_TYPES = Cache(
    where="domain.core.game:_event_types",
    holds="a game class's event type names, by class",
    bounded_by="the game classes",
    invalidated="never stale: a function of the class")
VOODOO_DECKS = Cache(
    where="domain.voodoo_prince.cards:deck",
    holds="Voodoo Prince's deck for a player count, by count",
    bounded_by="the player counts the rules allow (VP-4)",
    invalidated="never stale: a function of the count")
VOODOO_ORDER = Cache(
    where="domain.voodoo_prince.cards:card_order",
    holds="Voodoo Prince's card order for a player count, by count",
    bounded_by="the player counts the rules allow (VP-4)",
    invalidated="never stale: a function of the count")

CACHES: tuple[Cache, ...] = tuple(v for v in list(globals().values()) if isinstance(v, Cache))


class BytesLRU(Generic[K, V]):
    """A least-recently-used cache bounded by the bytes of its entries (as `size` counts them);
    safe across threads. An entry larger than the whole bound is not kept."""

    def __init__(self, declared: Cache, size: Callable[[V], int]) -> None:
        if declared.bytes is None:
            raise ValueError(f"{declared.where} is not bounded by bytes")
        self.bound = declared.bytes
        self._size = size
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0  # what the entries held now count

    def get(self, key: K) -> V:
        """The entry (KeyError when absent), now the most recently used."""
        with self._lock:
            value, _ = self._entries[key]
            self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep `value` under `key`, dropping the least recently used past the bound."""
        cost = self._size(value)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if cost > self.bound:
                return
            self._entries[key] = (value, cost)
            self.bytes += cost
            while self.bytes > self.bound:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped

    def __len__(self) -> int:
        return len(self._entries)
