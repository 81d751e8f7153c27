"""One build step pyproject.toml cannot say: the games' rules pages go into the package.

`GET /rules/<game>` serves docs/rules/ (api/rules.py), which lies outside every package; a
built package (a wheel, or an install from the source tree) carries a copy as
`api/rules_pages/`, which api/rules.py reads where there is no source tree beside the code
(issue 31, item 1). An editable install reads docs/rules/ itself and gets no copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RULES = Path(__file__).resolve().parent / "docs" / "rules"


class BuildWithRules(build_py):
    """setuptools' build_py, then docs/rules/**.md copied into the built `api/rules_pages/`."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "api" / "rules_pages"
        shutil.rmtree(target, ignore_errors=True)
        for page in sorted(RULES.rglob("*.md")):
            copy = target / page.relative_to(RULES)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, copy)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        pages = [str(Path(self.build_lib) / "api" / "rules_pages" / page.relative_to(RULES))
                 for page in sorted(RULES.rglob("*.md"))]
        return [*super().get_outputs(include_bytecode), *pages]


setup(cmdclass={"build_py": BuildWithRules})
