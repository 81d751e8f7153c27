"""A dispute report (`gruft report`) opened from a file in headless Chromium: it asks for nothing
but itself, runs no script, and shows every part."""

from __future__ import annotations

import json

import pytest

from cli import main as gruft
from service.audit.signing import SigningKey
from tests.replays.test_report import annotate, played

pytestmark = pytest.mark.browser


def test_the_report_loads_nothing_else(browser, tmp_path):
    signer = SigningKey.load_or_create(tmp_path)
    doc = annotate(played("vampiring", 4, signer), signer, [(5, "ruling", "Move stands (VR-4)")])
    source, page_file = tmp_path / "game.json", tmp_path / "report.html"
    source.write_text(json.dumps(doc), "utf-8")
    assert gruft(["report", str(source), "--step", "5", "--out", str(page_file)]) == 2
    context = browser.new_context(java_script_enabled=False)
    tab = context.new_page()
    asked: list[str] = []
    tab.on("request", lambda request: asked.append(request.url))
    tab.goto(page_file.as_uri())
    assert asked == [page_file.as_uri()]
    for part in ("#verification", "#table", "#events", "#annotations"):
        assert tab.locator(part).is_visible(), part
    assert tab.locator(".seat").count() == 3
    assert "Move stands (VR-4)" in tab.text_content("#annotations")
    context.close()
