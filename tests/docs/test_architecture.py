"""docs/architecture.md stays true to the code: every module it names exists, and every module
of `service/` is named in it (issue 30, item 6)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
# a path of ours in backticks or in the text: `service/store/follower.py`, tests/conftest.py
PATH = re.compile(r"(?<![\w.-])(?<!\w/)((?:domain|service|api|replays|bots|bench|cli|serving|tests)"
                  r"(?:/[\w.-]+)*/(?:[\w-]+\.py|[\w-]+/))")


def named_paths(text: str) -> set[str]:
    return set(PATH.findall(text))


def test_every_module_the_architecture_names_exists():
    missing = sorted(p for p in named_paths(DOC.read_text()) if not (ROOT / p).exists())
    assert missing == []


def test_every_module_of_the_service_is_named_in_the_architecture():
    named = named_paths(DOC.read_text())
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "service").rglob("*.py")
                     if p.name != "__init__.py")
    assert [m for m in modules if m not in named] == []


def test_the_checks_see_a_missing_module_and_an_unnamed_one():
    # Check the pattern finds paths in backticks, in links and in the text, and not inside
    # longer paths (tests/service/test_live.py names no service/test_live.py).
    text = ("`service/store/follower.py`, (see service/app.py), [x](../serving/wsgi.py), "
            "tests/service/test_live.py, service/runners/")
    assert named_paths(text) == {"service/store/follower.py", "service/app.py",
                                 "serving/wsgi.py", "tests/service/test_live.py",
                                 "service/runners/"}
    assert not (ROOT / "service/nowhere.py").exists()
