"""Rules at the table: each game's rules page in the app, every ruling a refusal cites an anchor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api import create_app
from domain import available_games

ROOT = Path(__file__).resolve().parents[2]
RULE_ID = re.compile(r'"((?:VQ|VP|VA|VR)-\d+)"')


def cited(key: str) -> set[str]:
    """The ruling ids a game's code cites (its refusals' `rule`)."""
    folder = ROOT / "domain" / key.replace("-", "_")
    return {m for f in folder.glob("*.py") for m in RULE_ID.findall(f.read_text())}


@pytest.mark.parametrize("key", available_games())
def test_every_ruling_the_code_cites_is_an_anchor_of_its_rules_page(client, key):
    answer = client.get(f"/rules/{key}")
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    html = answer.get_data(as_text=True)
    rulings = cited(key)
    assert rulings, f"{key} cites no ruling"
    for rule in rulings:
        assert f'<a id="{rule.lower()}"></a>' in html, rule
    # Check the rules are marked as English inside a page in the reader's language
    assert '<article class="rules-text" lang="en">' in html
    assert "script-src 'self'" in answer.headers["Content-Security-Policy"]


def test_links_of_a_rules_page_lead_to_pages_of_the_app_or_nowhere(client):
    html = client.get("/rules/voodoo-prince").get_data(as_text=True)
    article = html.split('<article class="rules-text" lang="en">')[1]
    # Check no link points into the source tree the server does not serve
    assert "../" not in article and ".md" not in re.sub(r"<code>.*?</code>", "", article)
    # Check the source paths stay as words
    assert 'class="source-ref"><code>domain/voodoo_prince/</code>' in article


def test_the_page_around_the_rules_follows_the_readers_language(client):
    html = client.get("/rules/vampiring?lang=de").get_data(as_text=True)
    assert '<html lang="de">' in html and "Regeln" in html


def test_an_unknown_game_has_no_rules_page(client):
    assert client.get("/rules/chess").status_code == 404
    answer = client.get("/rules/chess", headers={"Accept": "application/json"})
    assert answer.get_json()["error"]["code"] == "not_found"
    assert client.get("/rules/..%2Fapi").status_code == 404


def test_the_play_page_links_its_games_rules(client):
    answer = client.post("/games", json={"game": "vampir", "players": ["Ann", "Bob", "Cid"]})
    html = client.get(f"/games/{answer.get_json()['game_id']}/play").get_data(as_text=True)
    assert 'id="rules-link" href="/rules/vampir"' in html


def test_the_rulings_a_rules_page_names_link_to_their_text(client):
    html = client.get("/rules/voodoo-prince").get_data(as_text=True)
    # Check a ruling named in another's text links to it; a ruling's own head stays words
    assert '(<a class="ruling-ref" href="#vp-10">VP-10</a>)' in html
    assert '<strong>VP-5</strong>' in html
    linked = set(re.findall(r'class="ruling-ref" href="#([a-z]+-\d+)"', html))
    assert linked and all(f'<a id="{rule}"></a>' in html for rule in linked)


def test_an_install_without_its_rules_pages_says_so(sqlite_env, tmp_path, monkeypatch, caplog):
    # Issue 31, item 1: a wheel once shipped no rules page; every /rules/<game> said "No such
    # game" and nothing was logged. A known game's missing page now says what is missing.
    from api import rules

    monkeypatch.setattr(rules, "RULES_DIR", tmp_path / "no-rules")
    with caplog.at_level("WARNING", logger="gruft.api"):
        app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env})
    try:
        # Check the app said at start which pages it cannot serve, and where it looked
        said = [r.getMessage() for r in caplog.records if "no rules page" in r.getMessage()]
        assert len(said) == 1 and all(key in said[0] for key in available_games())
        assert str(tmp_path / "no-rules") in said[0]
        client = app.test_client()
        missing = client.get("/rules/vampiring")
        html = missing.get_data(as_text=True)
        assert missing.status_code == 404 and missing.mimetype == "text/html"
        assert "No such game" not in html
        assert "No rules page" in html and "VampiRing are not installed" in html
        assert "Keine Regelseite" in client.get("/rules/vampiring?lang=de").get_data(as_text=True)
        # Check an unknown game is still no such game
        assert "No such game" in client.get("/rules/chess?lang=en").get_data(as_text=True)
    finally:
        app.extensions["gruft"].close()
