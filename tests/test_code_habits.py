"""Habits the code keeps (issue 21, item 6): measured figures live in docs/performance.md, where
the run that measured them is said, not in comments, where they go stale; outside the domain an
event type is named by its class, so renaming one breaks at import, not in a stored game."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from domain import GAMES
from domain.core import Game

ROOT = Path(__file__).resolve().parents[1]
# a duration measured in micro- or milliseconds of CPU: "~21 µs", "4.6 us", "0.3 ms CPU"
FIGURE = re.compile(r"\d\s?(µs|us)\b|\d\s?ms (of )?CPU")


def lines_matching(pattern: re.Pattern[str], folders: tuple[str, ...]) -> list[str]:
    """Every line of the folders' Python that the pattern finds, as path:line: text."""
    return [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
            for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line)]


def test_no_measured_figure_in_the_code():
    found = lines_matching(FIGURE, ("api", "service", "bots", "replays", "domain", "cli"))
    assert not found, "move these figures to docs/performance.md:\n" + "\n".join(found)


def event_type_names() -> set[str]:
    """Every event class's name, of the shared lifecycle and of each game."""
    return {name for cls in (Game, *GAMES.values()) for name in cls.event_types()}


def test_outside_the_domain_event_types_are_named_by_their_classes():
    names = event_type_names()
    assert {"GameAborted", "TurnResolved", "Created"} <= names
    literal = re.compile('"(' + "|".join(sorted(names)) + ')"')
    found = lines_matching(literal, ("api", "service", "bots", "replays", "cli", "bench"))
    assert not found, "name these event types by their classes:\n" + "\n".join(found)


def suite_files(pattern: str = "*.py") -> list[Path]:
    """The suite's Python files (its fixtures' generators included)."""
    return sorted((ROOT / "tests").rglob(pattern))


def fixture_names(tree: ast.Module) -> set[str]:
    """The names of the fixtures a module defines (`@pytest.fixture`, with or without
    arguments)."""
    def is_fixture(decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return isinstance(target, ast.Attribute) and target.attr == "fixture"

    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and any(is_fixture(d) for d in node.decorator_list)}


def test_the_shared_fixtures_are_used_not_copied():
    shared = fixture_names(ast.parse((ROOT / "tests" / "conftest.py").read_text("utf-8")))
    assert {"app", "client", "sqlite_env"} <= shared
    copied = [f"{path.relative_to(ROOT)}: {name}" for path in suite_files()
              if path.name != "conftest.py" or path.parent != ROOT / "tests"
              for name in fixture_names(ast.parse(path.read_text("utf-8"))) & shared]
    assert not copied, ("tests/conftest.py provides these (set an app's config with "
                        "@pytest.mark.app_config):\n" + "\n".join(copied))


def test_every_pytest_raises_names_what_it_expects():
    # `pytest.raises(BadSetup)` passes on any setup error, the one the test is about or not.
    bare = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in suite_files()
            for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "raises" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "pytest" and not any(k.arg == "match" for k in node.keywords)]
    assert not bare, "name the ruling or message each expects (match=):\n" + "\n".join(bare)
