"""The documentation stands alone: its links resolve, every ruling the code cites is written down,
and nothing in the repository points at a file outside it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RULES = DOCS / "rules"
README = ROOT / "README.md"
README_MAX_LINES = 250

# Ruling prefix -> the rules page that defines its rulings.
RULE_PAGES = {"VQ": "vampire-queen.md", "VP": "voodoo-prince.md", "VA": "vampir.md",
              "VR": "vampiring.md"}
RULING = re.compile(r"\b(VQ|VP|VA|VR)-(\d+)\b")
# A ruling's entry on its page: a list item that starts with the bold id (after its anchor).
ENTRY = re.compile(r"^\s*[-*]\s+(?:<a id=\"[^\"]*\"></a>)?\*\*((?:VQ|VP|VA|VR)-\d+)\*\*", re.M)
# Where the code lives (what is looked through for cited rulings), and the files looked at.
CODE_FOLDERS = ("domain", "service", "api", "replays", "bots", "bench", "cli", "tests")
CODE_SUFFIXES = {".py", ".js", ".html"}

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*([^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")

# Paths outside the repository, spelled in pieces so this file does not match itself.
OUTSIDE = [
    re.compile(re.escape("..") + "/" + "shared"),
    re.compile("shared" + "/" + r"(rules|API|seeds|STYLE)"),
    re.compile(r"\b" + "API" + r"\.md\b"),  # the contract's source; ours is docs/api.md
    re.compile("seeds" + r"/\d{3}_"),  # the original rulebooks
]
# Outside docs/, a rules page is named by its path from the root (docs/rules/...).
BARE_RULES_PAGE = re.compile(r"(?<![\w/.-])" + "rules" + r"/(vampire-queen|voodoo-prince|vampiring|vampir)\.md")


def markdown_files() -> list[Path]:
    """README.md and every page under docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def prose(text: str) -> str:
    """Markdown without its code: fenced blocks and inline code cannot hold links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor a link may name on a page: its headings' and its explicit <a id>s."""
    text = FENCE.sub("", page.read_text("utf-8"))
    found: set[str] = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def relative_links(page: Path) -> list[str]:
    """The link targets of a page that stay inside the repository (no scheme, no mailto)."""
    targets = LINK.findall(prose(page.read_text("utf-8")))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I)]


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links of a page whose file, folder or anchor does not exist in `root`."""
    broken = []
    for target in relative_links(page):
        path_part, _, anchor = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.exists() or root not in (resolved, *resolved.parents):
            broken.append(f"{target} (no such file in the repository)")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target} (no heading or anchor #{anchor})")
    return broken


def cited_rulings() -> dict[str, set[str]]:
    """Ruling id -> the files of the code and tests that cite it."""
    cited: dict[str, set[str]] = {}
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in CODE_SUFFIXES or "docs" in path.relative_to(ROOT).parts[:2]:
                continue
            for prefix, number in RULING.findall(path.read_text("utf-8", errors="replace")):
                cited.setdefault(f"{prefix}-{int(number)}", set()).add(
                    str(path.relative_to(ROOT)))
    return cited


def entries(page: Path) -> list[str]:
    """The ruling ids a rules page defines, in the order it defines them."""
    return ENTRY.findall(page.read_text("utf-8"))


def tracked_files() -> list[Path]:
    """Every file git tracks in this checkout (that still exists)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                            capture_output=True).stdout.decode("utf-8").split("\0")
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


# -- the tests ------------------------------------------------------------------------------

@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    # Check every link to a file, a folder or a heading of the repository leads somewhere.
    assert broken_links(page) == []


def test_the_link_checker_sees_a_broken_link(tmp_path):
    (tmp_path / "here.md").write_text("# Here\n\n## Next step\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](here.md#next-step) [gone](missing.md) [bad](here.md#nowhere)\n"
                    "`[code](skipped.md)` [web](https://example.org/x.md) [self](#top)\n"
                    "```\n[fenced](skipped-too.md)\n```\n# Top\n")
    # Check only the missing file and the missing anchor are reported.
    assert broken_links(page, root=tmp_path) == ["missing.md (no such file in the repository)",
                                  "here.md#nowhere (no heading or anchor #nowhere)"]


def test_slugs_follow_githubs_headings():
    # Check the anchors that the docs link to are computed as GitHub computes them.
    assert slug("Measuring: `gruft bench`") == "measuring-gruft-bench"
    assert slug("Export, verify, import") == "export-verify-import"
    assert slug("1. Create a game from a stacked deal") == "1-create-a-game-from-a-stacked-deal"


@pytest.mark.parametrize("prefix", sorted(RULE_PAGES))
def test_each_rules_page_defines_its_rulings_once_in_order(prefix):
    defined = [r for r in entries(RULES / RULE_PAGES[prefix]) if r.startswith(prefix + "-")]
    # Check the page numbers its rulings 1, 2, 3, … without a gap or a repeat.
    assert defined == [f"{prefix}-{n}" for n in range(1, len(defined) + 1)]
    assert defined, f"{RULE_PAGES[prefix]} defines no ruling"


def test_every_ruling_the_code_cites_is_on_its_rules_page():
    cited = cited_rulings()
    # Check the code cites rulings at all (the scan looks in the right places).
    assert {"VQ-7", "VP-5", "VA-7", "VR-4"} <= set(cited)
    missing = {ruling: sorted(files) for ruling, files in cited.items()
               if ruling not in entries(RULES / RULE_PAGES[ruling.split("-")[0]])}
    # Check each cited ruling has its entry in docs/rules/<game>.md.
    assert missing == {}


def test_every_ruling_anchor_matches_its_id():
    for page in RULES.glob("*.md"):
        text = page.read_text("utf-8")
        # Check each entry's anchor is its id in lower case, so #vq-7 links to VQ-7.
        for anchor, ruling in re.findall(r"<a id=\"([^\"]+)\"></a>\*\*([A-Z]+-\d+)\*\*", text):
            assert anchor == ruling.lower(), page.name


def test_nothing_tracked_refers_to_a_path_outside_the_repository():
    this = Path(__file__).resolve()
    hits = []
    for path in tracked_files():
        if path.resolve() == this or path.suffix in {".png", ".pem", ".sqlite"}:
            continue
        text = path.read_text("utf-8", errors="replace")
        patterns = list(OUTSIDE)
        if DOCS not in path.parents:
            patterns.append(BARE_RULES_PAGE)
        for number, line in enumerate(text.splitlines(), start=1):
            if any(p.search(line) for p in patterns):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    # Check the repository stands alone: no README, doc, code, comment or test points outside.
    assert hits == []


def test_the_readme_is_a_front_door():
    text = README.read_text("utf-8")
    # Check it stays short, shows the viewer, and starts with the two commands.
    assert len(text.splitlines()) <= README_MAX_LINES
    assert "(docs/viewer.png)" in text
    assert "make serve" in text and "make test" in text


def test_every_rules_page_has_the_tables_clock_ruling():
    # CL-1 (domain/core/clocks.py RULE): the table's ruling every game's refusal out_of_time
    # cites, defined on each game's page in both languages, by the same anchor.
    from domain.core.clocks import RULE

    pages = sorted(RULES.glob("*.md")) + sorted((RULES / "de").glob("*.md"))
    assert len(pages) == 8
    for page in pages:
        assert f'<a id="{RULE.lower()}"></a>**{RULE}**' in page.read_text("utf-8"), page.name
