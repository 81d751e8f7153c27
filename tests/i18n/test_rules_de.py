"""The rules in German (issue 25): docs/rules/de/ for the four games, the rulings by the same ids,
shown to a German reader on the rules page the play page links to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain import available_games

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
ANCHOR = re.compile(r'<a id="((?:vq|vp|va|vr)-\d+)"></a>\*\*([A-Z]+-\d+)\*\*')
FENCE = re.compile(r"```.*?```", re.S)


@pytest.mark.parametrize("key", available_games())
def test_the_german_page_has_every_ruling_by_the_same_id(key: str) -> None:
    english = (RULES / f"{key}.md").read_text("utf-8")
    german = (RULES / "de" / f"{key}.md").read_text("utf-8")
    assert ANCHOR.findall(german) == ANCHOR.findall(english)
    # The same stacked-deal examples, word for word.
    assert FENCE.findall(german) == FENCE.findall(english)


@pytest.mark.parametrize("key", available_games())
def test_a_german_reader_gets_the_german_rules(client, key: str) -> None:
    page = client.get(f"/rules/{key}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert '<article class="rules-text" lang="de">' in page and "Wie gruft" in page
    english = client.get(f"/rules/{key}?lang=fr").get_data(as_text=True)  # no French text yet
    assert '<article class="rules-text" lang="en">' in english and "How gruft plays" in english
    assert "Wie gruft" not in english


def test_the_german_play_page_links_to_the_german_rules(client) -> None:
    created = client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Ben"],
                                          "seed": 1}).get_json()
    token = created["player_tokens"]["Ann"]
    page = client.get(f"/games/{created['game_id']}/play?token={token}&lang=de")
    link = re.search(r'id="rules-link" href="([^"]+)"', page.get_data(as_text=True)).group(1)
    assert '<html lang="de">' in page.get_data(as_text=True)
    rules = client.get(link).get_data(as_text=True)  # the cookie the play page set goes along
    assert '<article class="rules-text" lang="de">' in rules and "Stich" in rules
