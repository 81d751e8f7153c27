"""The layout's import rules: no cycle between modules, and dependencies pointing inward.

Read from the source with ``ast`` (every import, at module level or inside a function), so a
late import that hides a cycle from Python's loader is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("domain", "service", "api", "replays", "bots", "bench", "cli",
            "serving")

# package -> the packages of ours it may import (bench and cli may import anything):
# domain <- bots <- service <- replays <- api <- serving, each importing only what lies inward
ALLOWED = {
    "domain": {"domain"},
    "bots": {"bots", "domain"},  # the strategies: they read the rules only
    "service": {"service", "domain", "bots"},  # its runners play the bots
    "replays": {"replays", "service", "domain"},
    "api": {"api", "service", "domain", "replays"},
    # the serving runtime: gunicorn's hooks and the WSGI entry around the API
    "serving": {"serving", "api", "service", "domain", "replays", "bots"},
    "bench": set(PACKAGES),
    "cli": set(PACKAGES),
}
# the rules need no storage, web framework or I/O library
DOMAIN_FORBIDDEN = ("flask", "sqlite3", "psycopg", "eventsourcing.postgres",
                    "eventsourcing.sqlite", "eventsourcing.persistence",
                    "eventsourcing.application", "socket", "requests")


def modules() -> dict[str, Path]:
    """Every module of ours by dotted name (a package by its ``__init__``)."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The dotted names `name` imports (relative imports resolved), ours or not."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                # `from package import module` depends on that module, not on the package
                sub = f"{base}.{alias.name}"
                names.add(sub if sub in known else base)
    return names


def ours(imported: str, known: dict[str, Path]) -> str | None:
    """The module of ours an imported name lives in (longest match), or None."""
    parts = imported.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


def graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports."""
    known = modules()
    edges = {}
    for name, path in known.items():
        targets = {ours(i, known) for i in imported_names(name, path, known)}
        edges[name] = {t for t in targets if t is not None and t != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_packages_and_their_imports():
    edges = graph()
    # Check the walk found every package and reads late and package-relative imports alike
    assert {name.split(".")[0] for name in edges} == set(PACKAGES)
    assert "service.app" in edges["service.readmodels.projection"]
    assert "api.games" in edges["api"]  # imported inside create_app
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_between_modules():
    assert cycles(graph()) == []


def test_imports_point_inward():
    against = sorted(f"{a} -> {b}" for a, targets in graph().items() for b in targets
                     if b.split(".")[0] not in ALLOWED[a.split(".")[0]])
    assert against == []


def test_the_write_side_does_not_import_the_read_side():
    edges = graph()
    reached, todo = set(), ["service.app"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(edges[module])
    assert not {m for m in reached if m.startswith("service.readmodels")}


def test_the_domain_does_no_storage_web_or_io():
    known = modules()
    used = sorted(f"{name} imports {imported}" for name, path in known.items()
                  if name.startswith("domain")
                  for imported in imported_names(name, path, known)
                  if imported.startswith(DOMAIN_FORBIDDEN))
    assert used == []
