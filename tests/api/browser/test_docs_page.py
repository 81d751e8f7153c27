"""The Swagger UI page under its Content-Security-Policy (issue 23, item 7), in Chromium: it
still draws every operation, and the browser reports no violation of the policy."""

from __future__ import annotations

from tests.api.browser.site import Site


def test_the_docs_page_works_under_its_policy(page, live_site: Site, page_errors: list[str]):
    page.goto(f"{live_site.base_url}/docs")
    # Check Swagger UI drew the API's operations from /openapi.json.
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/replays/verify" in path for path in paths), paths
    # Check nothing was blocked (the page fixture fails the test on any console error).
    assert not [e for e in page_errors if "Content Security Policy" in e], page_errors
