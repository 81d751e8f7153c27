"""Choosing the language (issue 25): ?lang=, then the remembered choice, then Accept-Language,
then English; the JSON answers keep their shapes, codes and rules in every language."""

from __future__ import annotations

import pytest

from api.i18n import COOKIE, LANGUAGES


def new_game(client) -> dict:
    return client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Bob"],
                                       "seed": 1}).get_json()


def test_no_language_asked_is_english(client) -> None:
    # Check a page and an answer for a client that names no language are English, as before.
    page = client.get("/")
    assert '<html lang="en">' in page.text and "Start a new game" in page.text
    assert COOKIE not in page.headers.get("Set-Cookie", "")


@pytest.mark.parametrize(("asked", "lang", "words"), [
    ("de-DE,de;q=0.9,en;q=0.5", "de", "Neues Spiel beginnen"),
    ("fr-CH, fr;q=0.9", "fr", "Commencer une nouvelle partie"),
    ("it", "it", "Inizia una nuova partita"),
    ("es-419,es;q=0.8", "es", "Empezar una partida nueva"),
    ("pt-BR,pt;q=0.9", "en", "Start a new game"),  # a language we do not have: English
])
def test_accept_language_chooses(client, asked: str, lang: str, words: str) -> None:
    # Check the browser's languages choose the page's.
    page = client.get("/", headers={"Accept-Language": asked})
    assert f'<html lang="{lang}">' in page.text and words in page.text


def test_lang_parameter_wins_and_is_remembered(client) -> None:
    # Check ?lang= beats Accept-Language, and the choice is kept for the next page.
    page = client.get("/?lang=it", headers={"Accept-Language": "de"})
    assert '<html lang="it">' in page.text
    assert f"{COOKIE}=it" in page.headers["Set-Cookie"]
    again = client.get("/", headers={"Accept-Language": "de"})
    assert '<html lang="it">' in again.text
    # Check the switcher offers every language, the current one marked, on the same page.
    for code in LANGUAGES:
        assert f'hreflang="{code}"' in again.text
    assert 'data-lang="it" title="Italiano" aria-current="true"' in again.text


def test_unknown_lang_parameter_is_ignored(client) -> None:
    # Fail to choose a language we do not have: English, nothing remembered.
    page = client.get("/?lang=xx")
    assert page.status_code == 200 and '<html lang="en">' in page.text
    assert COOKIE not in page.headers.get("Set-Cookie", "")


def test_json_routes_accept_lang(client) -> None:
    # Check ?lang= is no unknown query parameter for a route that refuses unknown ones.
    created = new_game(client)
    answer = client.get("/games?lang=de&game=voodoo-prince")
    assert answer.status_code == 200 and answer.get_json()["games"]
    view = client.get(f"/games/{created['game_id']}/view?lang=fr&player=Ann",
                      headers={"Authorization": f"Bearer {created['host_token']}"})
    assert view.status_code == 200 and view.get_json()["you"] == "Ann"


def test_the_list_s_status_filter_speaks_each_visitor_s_language(app) -> None:
    # Check a German visitor, then an English one, then a German one again in one process
    # (one worker) each read the status filter's options in their own language (issue 31,
    # item 4: Jinja folded `{{ "finished" | status_words }}` at compile time, in the first
    # visitor's language).
    client = app.test_client()
    first = client.get("/", headers={"Accept-Language": "de"})
    assert '<option value="finished">beendet</option>' in first.text
    second = app.test_client().get("/", headers={"Accept-Language": "en"})
    assert '<option value="finished">finished</option>' in second.text
    assert '<option value="in_progress">in progress</option>' in second.text
    third = app.test_client().get("/?lang=de")
    assert '<option value="finished">beendet</option>' in third.text


def test_no_page_filter_is_folded_at_compile_time(app) -> None:
    # Check every filter gruft adds to the pages takes the context, so that Jinja never runs it
    # once on a constant when it compiles a template (issue 31, item 4).
    from jinja2.utils import _PassArg

    ours = {name: f for name, f in app.jinja_env.filters.items()
            if f.__module__.partition(".")[0] in ("api", "service", "domain")}
    assert "status_words" in ours
    for name, f in ours.items():
        assert _PassArg.from_obj(f) is _PassArg.context, name
