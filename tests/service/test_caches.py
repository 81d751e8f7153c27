"""Every cache in the code is declared in service/caches.py, with its bound and the one way an
entry goes (issue 21, item 4); the byte-bounded ones keep to their bound; and each cache bounded
by a count or by bytes keeps the bound declared there (built with its defaults and filled past
it), its code naming the declaration rather than a number of its own.

A cache is found by how it is made: eventsourcing's LRUCache, an OrderedDict, our BytesLRU,
functools' cache and lru_cache, a repository's `cache_maxsize`, sqlite3's `cached_statements`,
a private mapping kept at module or class level or made in `__init__` (it outlives the call that
fills it), and anything named a cache.
Mappings that look like caches and are not (they hold what is open now, not copies of what is
stored) are listed in NOT_CACHES, each with why.
"""

from __future__ import annotations

import ast
import importlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from uuid import uuid4

import pytest

from api.messages import SharedMessages
from api.replays import Documents
from api.viewer import Described
from domain.core import Game
from service import caches as declared
from service.app import Games
from service.audit import signing
from service.audit.receipts import Receipts
from service.caches import (
    ANNOUNCED,
    CACHES,
    CLOCK_GAMES,
    FRESHNESS,
    MIRROR,
    TAILS,
    BytesLRU,
    Cache,
)
from service.readmodels.projection import GameViews
from service.store import internals
from service.store.freshness import Freshness

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "api", "domain")
MAKERS = {"LRUCache", "OrderedDict", "BytesLRU", "lru_cache", "cache"}
KEYWORDS = {"cache_maxsize", "cached_statements"}
NOT_CACHES = {
    "service.runners.machinery:DueRunner._due": "the games a runner looks at next, and when",
    "service.runners.machinery:_MemoryLock._locks": "one lock per in-memory store's name",
    "service.runners.clock_runner:ClockRunner._own": "the version the clock runner itself "
                                                     "stored last, by clocked game in play",
    "api.verifying:Gate._held": "the verifications under way now, per address",
    "api.holds:Holds._by": "the streams and long polls open now, per address",
    "service.live.stream_writer:StreamWriter._games": "the streams open now, per game",
    "service.live.stream_writer:StreamWriter._due": "games announced and not yet written",
    "service.live.watches:Live._slots": "the games watched now (gone with their last watch)",
    "service.store.follower:Follower._retry_at": "one per subscriber",
    "service.store.follower:Follower._due_at": "one per patient subscriber",
    "service.live.presence:Presence._local": "this process's open streams' seats, per game",
    "service.live.presence:Presence.open": "the same (a game's first open stream)",
    "service.live.presence:Presence._told": "what listeners last heard, per game with a seat present",
}


def sites() -> set[str]:
    """`module:Qualified.name` of every place that makes or keeps something cache-like."""
    found: set[str] = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "service" / "caches.py":
                continue  # BytesLRU's own entries
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            Finder(module, found).visit(ast.parse(path.read_text(), str(path)))
    return found


class Finder(ast.NodeVisitor):
    def __init__(self, module: str, found: set[str]) -> None:
        self.module, self.found, self.scope = module, found, []

    def site(self, name: str | None = None) -> None:
        self.found.add(f"{self.module}:{'.'.join(self.scope + ([name] if name else []))}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scope.append(node.name)
        for item in node.body:  # class level: kept as long as the class is
            if is_private_mapping(item):
                self.site(target_name(item))
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if any(maker(d) in MAKERS for d in node.decorator_list):
            self.site(node.name)
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_Module(self, node: ast.Module) -> None:
        for item in node.body:  # module level: kept as long as the process
            if is_private_mapping(item):
                self.site(target_name(item))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if any(k.arg in KEYWORDS for k in node.keywords):
            self.site()
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        name = target_name(node)
        value = node.value
        if name and value is not None and self.scope and (
                maker(value) in MAKERS - {"cache", "lru_cache"}
                or ("cache" in name.lower() and is_mapping(value))
                or (self.scope[-1] == "__init__" and name.startswith("_") and is_mapping(value))):
            owner = self.scope[:-1] if self.scope[-1] == "__init__" else self.scope
            self.found.add(f"{self.module}:{'.'.join(owner + [name])}"
                           if self.scope[-1] == "__init__" else
                           f"{self.module}:{'.'.join(owner)}")
        if value is not None and is_setdefault_cache(value):
            self.site()
        self.generic_visit(node)

    visit_AnnAssign = visit_Assign  # noqa: N815


def maker(node: ast.AST) -> str | None:
    """The name a call or decorator is made by (`functools.lru_cache(64)` -> lru_cache)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def is_mapping(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Dict) and not node.keys or maker(node) in {
        "dict", "OrderedDict", "LRUCache", "BytesLRU", "Counter", "defaultdict",
        "WeakKeyDictionary", "WeakValueDictionary"} and isinstance(
        node, ast.Call) and not node.args


def is_private_mapping(node: ast.AST) -> bool:
    """`_name = {}` (or an empty dict-like made): state, where a public name is a constant."""
    return (isinstance(node, ast.Assign | ast.AnnAssign) and is_mapping(node.value)
            and (target_name(node) or "").startswith("_"))


def is_setdefault_cache(node: ast.AST) -> bool:
    """`self.__dict__.setdefault("_x_cache", {})`: a mapping kept on the object."""
    return (isinstance(node, ast.Call) and maker(node) == "setdefault" and len(node.args) == 2
            and is_mapping(node.args[1]))


def target_name(node: ast.Assign | ast.AnnAssign) -> str | None:
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else None


def test_every_cache_is_declared_and_every_declared_cache_exists():
    found = sites()
    declared = {cache.where for cache in CACHES}
    assert not found - declared - set(NOT_CACHES), "caches not declared in service/caches.py"
    assert not declared - found, "declared in service/caches.py but not found in the code"
    assert not set(NOT_CACHES) - found, "NOT_CACHES names what is no longer there"


def test_each_cache_has_one_bound_and_says_how_an_entry_goes():
    for cache in CACHES:
        assert cache.invalidated and cache.holds, cache.where
    with pytest.raises(ValueError, match="one bound"):
        Cache(where="m:x", holds="x", invalidated="never", entries=1, bytes=1)


def test_a_bytes_lru_keeps_to_its_bytes():
    cache: BytesLRU[int, bytes] = BytesLRU(TAILS, len)
    cache.bound = 1000
    for key in range(50):
        cache.put(key, b"x" * (key * 7 % 300))
        assert cache.bytes <= 1000
    assert cache.get(49) == b"x" * (49 * 7 % 300)  # the newest is kept
    with pytest.raises(KeyError, match="^0$"):  # the oldest went first
        cache.get(0)
    cache.put(99, b"x" * 1001)  # larger than the bound: not kept, the others stay
    with pytest.raises(KeyError, match="^99$"):
        cache.get(99)
    assert cache.bytes == sum(len(cache.get(k)) for k in range(50) if k in cache._entries)


# -- each cache keeps the bound declared -------------------------------------------------------

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
BOUNDED = {name: cache for name, cache in vars(declared).items()
           if isinstance(cache, Cache) and (cache.entries is not None or cache.bytes is not None)}


@pytest.fixture(scope="module")
def games():
    app = Games(env=POPO)  # every default: the bounds as a worker keeps them
    yield app
    app.close()


def fresh_games(cache: Cache) -> list:
    """One more game id than `cache` may keep."""
    assert cache.entries is not None
    return [uuid4() for _ in range(cache.entries + 1)]


def announced(games: Games) -> int:
    games.live.announce((game_id, 1) for game_id in fresh_games(ANNOUNCED))
    return len(games.live._known)


def heard(_games: Games) -> int:
    forgotten: list = []
    freshness = Freshness(lambda: True, forgotten.append, 0)
    notes = [SimpleNamespace(id=n, topic="domain.x", originator_id=game_id, originator_version=1)
             for n, game_id in enumerate(fresh_games(FRESHNESS), 1)]
    freshness.receive(notes)
    assert forgotten == [notes[0].originator_id]  # the least recently heard, from the cache too
    return len(freshness._newest)


def mirrored(_games: Games) -> int:
    views = GameViews(None)  # type: ignore[arg-type]  # _follow keeps its copies, no view
    for game_id in fresh_games(MIRROR):
        views._follow(SimpleNamespace(originator_id=game_id, originator_version=Game.INITIAL_VERSION,
                                      mutate=lambda _: SimpleNamespace(finished=False)))
    return len(views._mirror)


def statements(games: Games, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    asked: list[int] = []

    def connect(*args, **kwargs):
        asked.append(kwargs["cached_statements"])
        return sqlite3.connect(*args, **kwargs)

    monkeypatch.setattr(internals, "sqlite3", SimpleNamespace(**{**vars(sqlite3), "connect": connect}))
    on_file = Games(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                         "SQLITE_DBNAME": str(tmp_path / "games.sqlite"),
                         "GRUFT_DATA_DIR": str(tmp_path)})
    try:
        on_file.recorder.select_notifications(start=1, limit=1)  # a connection, at least
    finally:
        on_file.close()
    assert asked and len(set(asked)) == 1, asked
    return asked[0]


def kept_by_the_clock_runner(_games: Games) -> int:
    from service.runners.clock_runner import ClockRunner

    runner = ClockRunner(lambda: None)
    for game_id in fresh_games(CLOCK_GAMES):
        runner._look_again(game_id, 60.0, (Game.__new__(Game), None))
    return len(runner._seen)


# what each bounded cache keeps, measured on the code as it is built
KEPT: dict[str, Callable[..., int]] = {
    "GAMES": lambda games: games.repository.cache.maxsize,
    "TAILS": lambda games: games.delivery._tails.bound,
    "STREAM_MESSAGES": lambda games: SharedMessages()._texts.bound,
    "ANNOUNCED": announced,
    "FRESHNESS": heard,
    "REMATCHES": lambda games: games.reads._rematches.maxsize,
    "NARRATORS": lambda games: games.reads._learned.maxsize,
    "EXPORTS": lambda games: Documents()._sent.bound,
    "VIEWER_EVENTS": lambda games: Described()._texts.bound,
    "VIEWER_PAGES": lambda games: Described()._pages.bound,
    "RECEIPTS": lambda games: Receipts(lambda data: "sig", "key")._signed.maxsize,
    "REVEALED": lambda games: games.reads.seals._revealed.maxsize,
    "CREDENTIALS": lambda games: games.access._credentials.maxsize,
    "BOT_SEATS": lambda games: games.access._bot_seats.maxsize,
    "KEY_IDS": lambda games: signing.key_id.cache_info().maxsize,
    "MIRROR": mirrored,
    "STATEMENTS": statements,
    "CLOCK_GAMES": kept_by_the_clock_runner,
}


@pytest.mark.parametrize("name", BOUNDED)
def test_each_cache_keeps_the_bound_declared(name, games, tmp_path, monkeypatch):
    assert name in KEPT, f"{name}: say in KEPT how the bound its code keeps is measured"
    cache, measure = BOUNDED[name], KEPT[name]
    extra = {"tmp_path": tmp_path, "monkeypatch": monkeypatch} if measure is statements else {}
    assert measure(games, **extra) == (cache.entries if cache.bytes is None else cache.bytes)


OPERATORS = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
             ast.LShift: int.__lshift__, ast.Pow: int.__pow__}


def whole_number(node: ast.AST) -> int | None:
    """The integer an expression of integer literals is (`8 << 20`), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = whole_number(node.left), whole_number(node.right)
        if left is not None and right is not None:
            return OPERATORS[type(node.op)](left, right)
    return None


def imports_of(module: str) -> dict[str, set[str]]:
    """The names `module` imports, by the module they come from."""
    tree = ast.parse(Path(importlib.import_module(module).__file__).read_text())
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.setdefault(node.module, set()).update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("name", BOUNDED)
def test_the_code_keeping_a_cache_names_its_declaration_not_a_number(name):
    """Its module imports the declaration (a setting's default is set from it in
    service/settings.py) and holds no number of its own equal to the bound. domain/ imports
    nothing outside it: a cache there keeps its number, and service/caches.py declares it from
    that."""
    cache = BOUNDED[name]
    module = cache.where.split(":")[0]
    if module.startswith("domain."):
        assert module in imports_of("service.caches"), f"declare {name} from {module}'s number"
        return
    reader = "service.settings" if cache.setting else module
    assert name in imports_of(reader).get("service.caches", set()), (
        f"{reader} does not take the bound of {name} from service.caches")
    bound = cache.entries if cache.bytes is None else cache.bytes
    source = Path(importlib.import_module(module).__file__).read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            assert whole_number(node.value) != bound, (
                f"{module}:{target_name(node)} = {bound} beside service.caches.{name}")


def test_the_games_setting_changes_their_bound_and_never_unbinds_it():
    # (its default, the declared bound, is measured above)
    for setting, kept in (("7", 7), ("", None), ("0", None), ("-1", None)):  # None: no cache
        app = Games(env={**POPO, "AGGREGATE_CACHE_MAXSIZE": setting})
        try:
            cache = app.repository.cache
            assert (None if cache is None else cache.maxsize) == kept, setting
        finally:
            app.close()
