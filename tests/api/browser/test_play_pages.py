"""The play page's parts in headless Chromium: refusals with their ruling, VampiRing's preview,
the create form and the host's invitations, a person against bots, the host's abort, and a
phone's width (the replay viewer's too).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from werkzeug.serving import make_server

from domain import available_games
from tests.api.browser.conftest import QuietHandler
from tests.api.browser.play_kit import (
    READY,
    create,
    get,
    open_page,
    play_out,
    post,
    ready_moves,
    root,
    wait_until,
)

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def play_url(site, game: dict[str, Any], player: str | None = None) -> str:
    url = f"{site.base_url}/games/{game['game_id']}/play"
    return f"{url}?token={game['player_tokens'][player]}" if player else url


def close(*seats) -> None:
    for seat in seats:
        seat.context.close()


# -- refusals ---------------------------------------------------------------------------------

def test_vq6_a_refused_play_is_shown_with_its_ruling_and_changes_nothing(browser, live_site):
    game = create(live_site.base_url, "vampire-queen", seed=9)
    view = get(live_site.base_url, f"/games/{game['game_id']}")
    me = view["to_act"][0]
    seat = open_page(browser, play_url(live_site, game, me), me)
    page = seat.page
    try:
        wait_until(page, lambda: bool(ready_moves(page)), what="my moves")
        version = root(page, "data-version")
        # Pick two vampires of different values in my hand: not a set (VQ-6)
        hand = page.eval_on_selector_all("#my-hand button.hand-card", "els => els.map(e => e.dataset.card)")
        numbers = [i for i, c in enumerate(hand) if c.isdigit()]
        first = numbers[0]
        second = next(i for i in numbers if hand[i] != hand[first])
        page.locator("#my-hand button.hand-card").nth(first).click()
        page.locator("#my-hand button.hand-card").nth(second).click()
        assert page.get_attribute("#my-hand button.hand-card >> nth=0", "aria-pressed") is not None
        page.click("#play-selected")
        # Check the refusal names its ruling and the game did not move
        wait_until(page, lambda: page.is_visible("#refusal"), what="the refusal")
        assert page.get_attribute("#refusal", "data-rule") == "VQ-6"
        assert "VQ-6" in page.text_content("#refusal")
        assert page.get_attribute("#refusal", "data-code") == "illegal_move"
        assert get(live_site.base_url, f"/games/{game['game_id']}")["version"] == int(version)
        # Check the ruling links to its text on the game's rules page, opened beside the table
        with seat.context.expect_page() as opened:
            page.click("#refusal a.rule-link")
        rules = opened.value
        rules.wait_for_load_state()
        assert rules.url.endswith("/rules/vampire-queen#vq-6")
        assert "VQ-6" in rules.text_content("li:has(> a#vq-6)")
        rules.close()
        # Check the seat can still play: a legal button clears the refusal and is taken
        wait_until(page, lambda: bool(ready_moves(page)), what="my moves again")
        page.locator(f"{READY} button[data-move]").first.click()
        wait_until(page, lambda: root(page, "data-version") != version, what="the next version")
        assert page.is_hidden("#refusal")
        # The browser reports the refused request itself; nothing else went wrong
        assert [e for e in seat.errors if "422" not in e] == []
    finally:
        close(seat)


# -- VampiRing: try a move, see the landings, confirm ------------------------------------------

def test_vr5_vampiring_marks_where_the_three_vampires_would_land_then_confirms(browser, live_site):
    game = create(live_site.base_url, "vampiring", seed=4)
    me, other = game["players"]
    seat = open_page(browser, play_url(live_site, game, me), me, viewport=PHONE)
    page = seat.page
    try:
        wait_until(page, lambda: bool(ready_moves(page)), what="my moves")
        legal = get(live_site.base_url, f"/games/{game['game_id']}/legal-moves",
                    game["player_tokens"][me])
        assert len(legal["previews"]) == len(legal["moves"]) == 4
        # Check nothing is confirmed before both choices are made
        assert page.is_disabled("#confirm")
        for metamorphosis in ("a", "b"):
            for direction in ("cw", "ccw"):
                page.click(f'[data-pick="metamorphosis"][data-value="{metamorphosis}"]')
                page.click(f'[data-pick="direction"][data-value="{direction}"]')
                move = {"type": "move", "metamorphosis": metamorphosis, "direction": direction}
                preview = legal["previews"][legal["moves"].index(move)]["vampires"]
                # Check a dark pawn marks each vampire's landing card, in its new shape
                marks = page.eval_on_selector_all(
                    "#table .vampire.landing",
                    "els => els.map(e => [e.dataset.id, e.dataset.shape, "
                    "e.closest('.ring-card').dataset.position])")
                assert sorted(marks) == sorted([vid, v["shape"], str(v["position"])]
                                               for vid, v in preview.items())
        # Check the blood shows remaining, lost last turn and lost before
        assert page.get_attribute(f'#table .blood[data-player="{me}"]', "data-blood") == "8"
        assert page.get_attribute(f'#table .blood[data-player="{me}"]', "data-lost-last") == "0"
        # Confirm the last one tried (b, anticlockwise): exactly that move is sent
        page.click("#confirm")
        wait_until(page, lambda: root(page, "data-version") == "3", what="my move stored")
        mine = get(live_site.base_url, f"/games/{game['game_id']}/view", game["player_tokens"][me])
        assert mine["private"]["move"] == {"metamorphosis": "b", "direction": "ccw"}
        assert page.query_selector_all("#table .vampire.landing") == []
        assert "Waiting for" in page.text_content("#prompt")
        assert not seat.errors
    finally:
        close(seat)


@pytest.mark.parametrize("lang", ["en", "de", "fr", "it", "es"])
def test_vr4_no_vampiring_move_is_sent_by_one_tap_and_every_label_uses_the_tables_letters(
        browser, live_site, lang):
    game = create(live_site.base_url, "vampiring", seed=4)
    me = game["players"][0]
    seat = open_page(browser, f"{play_url(live_site, game, me)}&lang={lang}", me, viewport=PHONE)
    page = seat.page
    try:
        wait_until(page, lambda: len(ready_moves(page)) == 4, what="my four moves")
        version = root(page, "data-version")
        # Check the picker shows no "null" before a move is chosen, and Confirm waits.
        assert "null" not in page.text_content("#picker")
        assert page.is_disabled("#confirm")
        # The table's own letter for each shape, as its legend and its vampires show them.
        letters = dict(page.eval_on_selector_all(
            "#table .vampire[data-shape]", "els => els.map(e => [e.dataset.shape, e.textContent])"))
        assert set(letters) == {"M", "W", "B"}
        if lang == "es":  # Hombre, Lobo, Murciélago: the bat's letter is M
            assert letters == {"M": "H", "W": "L", "B": "M"}
        change = {"a": {"M": "W", "W": "B", "B": "M"}, "b": {"M": "B", "B": "W", "W": "M"}}
        buttons = page.locator(f"{READY} button[data-move]")
        for index in range(4):
            button = buttons.nth(index)
            move = json_move(button.get_attribute("data-move"))
            words = " ".join(f"{letters[a]}→{letters[b]}" for a, b in change[move["metamorphosis"]].items())
            assert words in button.text_content(), (lang, button.text_content())
            # Check one tap only chooses the move and shows where it lands: nothing is sent.
            button.click()
            wait_until(page, lambda m=move: page.get_attribute(
                f'[data-pick="metamorphosis"][data-value="{m["metamorphosis"]}"]', "aria-pressed") == "true"
                and page.get_attribute(f'[data-pick="direction"][data-value="{m["direction"]}"]',
                                       "aria-pressed") == "true", what="the move chosen in the picker")
            assert page.query_selector_all("#table .vampire.landing") != []
            assert page.is_enabled("#confirm")
            assert "null" not in page.text_content("#picker")
            assert get(live_site.base_url, f"/games/{game['game_id']}")["version"] == int(version)
        assert root(page, "data-version") == version
        # Check the landing pawns carry the table's letters too, and Confirm sends the last one.
        pawns = page.eval_on_selector_all("#table .vampire.landing",
                                          "els => els.map(e => [e.dataset.shape, e.textContent])")
        assert all(letters[shape] == text for shape, text in pawns)
        page.click("#confirm")
        wait_until(page, lambda: root(page, "data-version") != version, what="my move stored")
        mine = get(live_site.base_url, f"/games/{game['game_id']}/view", game["player_tokens"][me])
        assert mine["private"]["move"] == {k: move[k] for k in ("metamorphosis", "direction")}
        assert not seat.errors
    finally:
        close(seat)


def json_move(text: str) -> dict[str, Any]:
    import json

    return json.loads(text)


# -- the log in words ----------------------------------------------------------------------------

def test_the_log_is_told_in_words_each_seat_reading_only_its_own_secret_move(browser, live_site):
    game = create(live_site.base_url, "vampiring", seed=6)
    ann = open_page(browser, play_url(live_site, game, "Ann"), "Ann")
    bob = open_page(browser, play_url(live_site, game, "Bob"), "Bob")
    try:
        wait_until(ann.page, lambda: bool(ready_moves(ann.page)), what="Ann's moves")
        ann.page.click('[data-pick="metamorphosis"][data-value="b"]')
        ann.page.click('[data-pick="direction"][data-value="ccw"]')
        ann.page.click("#confirm")
        told = '#events li[data-type="MoveSubmitted"][data-told="true"] .ev-text'
        for seat in (ann, bob):
            wait_until(seat.page, lambda s=seat: s.page.query_selector(told) is not None,
                       what=f"{seat.name}'s log telling Ann's move")
        # Check Ann reads her own move in words, Bob only that she moved
        assert "secretly chooses metamorphosis b" in ann.page.text_content(told)
        assert bob.page.text_content(told) == "Ann submits a secret move (VR-4)."
        # Check the start of the game is told too (the log's first page, fetched on opening)
        first = '#events li[data-version="1"][data-told="true"] .ev-text'
        assert "sit down to VampiRing" in bob.page.text_content(first)
        # Check the ring's cards are explained, each linked to its ruling
        assert len(bob.page.query_selector_all("#card-help .vr-legend li")) == 9
        garlic = bob.page.text_content('#card-help li[data-card="garlic"]')
        assert "twice" in garlic and "VR-7" in garlic
        assert bob.page.get_attribute('#card-help li[data-card="garlic"] a', "href") == "/rules/vampiring#vr-7"
        assert "twice" in bob.page.get_attribute('#table .ring-card[data-card="garlic"]', "title")
    finally:
        close(ann, bob)


# -- the create form, the host's page, the invitations ----------------------------------------

def test_the_create_form_starts_a_game_whose_host_page_lists_each_invitation(
        browser, live_site, caplog):
    caplog.set_level(logging.INFO, logger="gruft.access")
    host = browser.new_context(viewport={"width": 1280, "height": 900})
    page = host.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    opened = []
    try:
        page.goto(f"{live_site.base_url}/")
        page.select_option("#new-game-key", "voodoo-prince")
        page.fill("#new-seat-count", "2")
        page.dispatch_event("#new-seat-count", "change")
        page.check("#new-short")
        page.fill('[data-seat="0"]', "Nora")
        page.fill('[data-seat="1"]', "Olaf")
        # Check the options are the game's (rounds, the short game's value)
        assert page.input_value('[data-option="rounds"]') == "1"
        page.click("#create")
        wait_until(page, lambda: "/play" in page.url, what="the host page")
        game_id = page.url.split("/games/")[1].split("/")[0]
        view = get(live_site.base_url, f"/games/{game_id}")
        assert view["players"] == ["Nora", "Olaf"] and view["options"]["rounds"] == 1
        # Check the host page lists one invitation per seat, each with its QR code
        wait_until(page, lambda: len(page.query_selector_all("[data-invite]")) == 2,
                   what="the invitations")
        assert root(page, "data-role") == "host"
        links = {a.get_attribute("data-invite"): a.get_attribute("href")
                 for a in page.query_selector_all("[data-invite]")}
        assert set(links) == {"Nora", "Olaf"}
        for name in links:
            qr = page.get_attribute(f'img[data-qr="{name}"]', "src")
            assert qr.startswith("data:image/svg+xml")
        assert "token" not in page.url
        # Check each link opens that seat in a browser of its own, the code gone from its address
        for name, url in links.items():
            assert "?invite=" in url and "token" not in url
            seat = open_page(browser, url, name)
            opened.append(seat)
            assert root(seat.page, "data-you") == name and "invite" not in seat.page.url
        # Check the host page shows the host's own link (a code, no token), which opens the
        # host page elsewhere
        kept = page.input_value("[data-host-link]")
        assert f"/games/{game_id}/play?invite=" in kept
        elsewhere = open_page(browser, kept, "host")
        opened.append(elsewhere)
        assert root(elsewhere.page, "data-role") == "host"
        assert elsewhere.page.is_visible("#abort-form")
        # Check no code reached the access log
        tokens = [url.split("invite=")[1] for url in [*links.values(), kept]]
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert f"/games/{game_id}/play" in logged
        assert not any(token in logged for token in tokens)
        assert not errors
    finally:
        close(*opened)
        host.close()


def test_a_host_page_opened_at_0_0_0_0_warns_its_links_reach_no_phone(browser, live_site):
    # Issue 33, item 3: `gruft serve --host 0.0.0.0` printed http://0.0.0.0:PORT, and a page
    # opened there made every invitation and QR code http://0.0.0.0/…, with no warning.
    game = create(live_site.base_url, "vampir", seed=5)
    unspecified = live_site.base_url.replace("127.0.0.1", "0.0.0.0")
    host = open_page(browser, f"{unspecified}/games/{game['game_id']}/play"
                              f"?token={game['host_token']}", "host", viewport=PHONE)
    try:
        page = host.page
        # (the seats' links are made in the browser that created the game: here the host's own)
        wait_until(page, lambda: page.is_visible("[data-host-link]"), what="the host's own link")
        assert "//0.0.0.0:" in page.input_value("[data-host-link]")
        # Check the warning is shown, the loopback one (another reason) not
        assert page.is_visible("#unreachable-note") and page.is_hidden("#loopback-note")
        assert "0.0.0.0" in page.inner_text("#unreachable-note")
        assert not host.errors
    finally:
        close(host)


def test_the_create_form_keeps_a_name_typed_right_after_changing_the_player_count(
        browser, live_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{live_site.base_url}/")
        page.select_option("#new-game-key", "vampir")
        # Type the count, then click straight into a name: the click blurs (and so changes) the
        # count, and the name typed must land in the field clicked
        page.click("#new-seat-count")
        page.keyboard.press("Control+A")
        page.keyboard.type("4")
        page.click('[data-seat="0"]')
        page.keyboard.press("Control+A")
        page.keyboard.type("Zoe")
        assert page.input_value('[data-seat="0"]') == "Zoe"
        assert len(page.query_selector_all("[data-seat]")) == 4
        # Check a name typed in a seat taken away comes back with the seat
        page.fill('[data-seat="3"]', "Yan")
        page.fill("#new-seat-count", "3")
        page.dispatch_event("#new-seat-count", "change")
        page.fill("#new-seat-count", "4")
        page.dispatch_event("#new-seat-count", "change")
        names = [page.input_value(f'[data-seat="{i}"]') for i in range(4)]
        assert names == ["Zoe", "Bob", "Cid", "Yan"]
        page.click("#create")
        wait_until(page, lambda: "/play" in page.url, what="the host page")
        game_id = page.url.split("/games/")[1].split("/")[0]
        assert get(live_site.base_url, f"/games/{game_id}")["players"] == names
    finally:
        context.close()


def test_a_bad_invitation_link_shows_the_table_to_watch_and_drops_the_token(browser, live_site):
    game = create(live_site.base_url, "vampir", seed=2)
    seat = open_page(browser, f"{play_url(live_site, game)}?token=not-a-token", "nobody")
    try:
        assert "token" not in seat.page.url
        assert root(seat.page, "data-role") == "spectator"
        assert "not valid" in seat.page.text_content("#problem")
    finally:
        close(seat)


def test_a_reopened_address_says_how_to_play_and_offers_this_browsers_seat(browser, live_site):
    game = create(live_site.base_url, "vampir", seed=4)
    stranger = open_page(browser, play_url(live_site, game), "stranger")
    ann = open_page(browser, play_url(live_site, game, "Ann"), "Ann")
    try:
        # Check a stranger's bare address says how to play instead of a bare table
        assert stranger.page.is_visible("#spectator-hint")
        assert "invitation link" in stranger.page.text_content("#spectator-hint")
        assert not stranger.page.is_visible("#back-to-seat")
        # Check the address reopened in a new tab of Ann's browser offers her seat back
        tab = ann.context.new_page()
        tab.goto(play_url(live_site, game))
        wait_until(tab, lambda: tab.is_visible("#back-to-seat"), what="the offer of Ann's seat")
        assert root(tab, "data-role") == "spectator"
        tab.click("#back-to-seat")
        wait_until(tab, lambda: root(tab, "data-you") == "Ann", what="Ann's seat again")
        assert "token" not in tab.url and not tab.is_visible("#spectator-hint")
    finally:
        close(stranger, ann)


def test_the_host_aborts_and_every_page_shows_it(browser, live_site):
    game = create(live_site.base_url, "voodoo-prince", seed=3)
    host = open_page(browser, f"{play_url(live_site, game)}?token={game['host_token']}", "host")
    spectator = open_page(browser, play_url(live_site, game), "spectator")
    try:
        assert root(host.page, "data-role") == "host"
        host.page.fill("#abort-reason", "the café closes")
        host.page.click("#abort")
        for seat in (host, spectator):
            wait_until(seat.page, lambda s=seat: root(s.page, "data-status") == "aborted",
                       what="the aborted game")
            assert "aborted" in seat.page.text_content("#result")
        # Check a game that is over offers no abort, also on a host page opened afterwards
        assert not host.page.is_visible("#abort-form")
        again = open_page(browser, f"{play_url(live_site, game)}?token={game['host_token']}", "host")
        assert root(again.page, "data-role") == "host" and not again.page.is_visible("#abort-form")
        close(again)
    finally:
        close(host, spectator)


# -- one person against the server's bots ---------------------------------------------------------

@pytest.fixture
def bot_site(sqlite_env) -> Iterator[Any]:
    """The served app with its bot runner (serving.wsgi), over real HTTP, bots moving at once."""
    from serving.wsgi import create_app

    app = create_app({"TESTING": True, "GRUFT_ENV": {**sqlite_env, "GRUFT_BOT_DELAY": "0"}})
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    app.base_url = f"http://127.0.0.1:{server.server_port}"
    yield app
    server.shutdown()
    app.extensions["gruft"].close()


def test_one_person_plays_a_whole_game_against_two_bots(browser, bot_site):
    game = create(bot_site.base_url, "voodoo-prince", players=3, seed=8,
                  bots={"Bob": "heuristic", "Cid": "random"})
    seat = open_page(browser, f"{bot_site.base_url}/games/{game['game_id']}/play"
                              f"?token={game['player_tokens']['Ann']}", "Ann")
    try:
        play_out([seat], [], random.Random(8))
        view = get(bot_site.base_url, f"/games/{game['game_id']}")
        assert view["status"] == "finished" and root(seat.page, "data-version") == str(view["version"])
        assert seat.clicks > 0 and len(seat.loads) == 1 and not seat.errors
    finally:
        close(seat)


# -- a fork: its own host page with its links, its bot seats kept ----------------------------------

def test_the_host_forks_at_a_step_and_the_forks_page_shows_its_links_and_bot_seats(browser, bot_site):
    game = create(bot_site.base_url, "vampir", players=3, seed=12, bots={"Cid": "heuristic"})
    base, gid = bot_site.base_url, game["game_id"]
    # The game ends (Ann and Bob by the host, Cid by the server's bot); a public step to fork at
    rng = random.Random(12)
    while get(base, f"/games/{gid}")["status"] == "in_progress":
        view = get(base, f"/games/{gid}")
        people = [p for p in view["to_act"] if p != "Cid"]
        if not people:
            continue
        moves = get(base, f"/games/{gid}/legal-moves?player={people[0]}", game["host_token"])["moves"]
        post(base, f"/games/{gid}/commands", {**rng.choice(moves), "player": people[0]},
             game["host_token"])
    host = browser.new_context(viewport={"width": 1280, "height": 900})
    page = host.new_page()
    try:
        page.goto(f"{base}/games/{gid}/viewer?token={game['host_token']}&step=5")
        wait_until(page, lambda: page.is_visible("#fork-here"), what="the fork button")
        page.click("#fork-here")
        wait_until(page, lambda: "/play" in page.url and gid not in page.url, what="the fork's page")
        fork_id = page.url.split("/games/")[1].split("/")[0]
        assert get(base, f"/games/{fork_id}")["parent"]["version"] == 5
        # Check the fork's host page lists a link for each person and marks the bot seat
        wait_until(page, lambda: len(page.query_selector_all("[data-invite]")) == 2, what="the links")
        assert {a.get_attribute("data-invite") for a in page.query_selector_all("[data-invite]")} == {"Ann", "Bob"}
        assert "server" in page.text_content('.invite.bot[data-player="Cid"]')
        # Check a spectator of the viewer is offered no fork
        other = browser.new_context().new_page()
        other.goto(f"{base}/games/{gid}/viewer")
        other.wait_for_load_state()
        assert other.is_hidden("#fork-here")
        other.context.close()
    finally:
        host.close()


# -- times in the viewer's own zone ------------------------------------------------------------------

def test_the_game_lists_times_are_the_viewers_own_naming_their_zone(browser, live_site):
    context = browser.new_context(timezone_id="America/New_York", locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{live_site.base_url}/")
        cell = page.locator("tr.game-row time").first
        wait_until(page, lambda: "UTC" not in cell.text_content(), what="the local time")
        written = cell.get_attribute("datetime")  # the server's UTC time
        shown = cell.text_content()
        # Check the time is New York's (UTC-5 in winter, UTC-4 in summer) and says so
        assert "EST" in shown or "EDT" in shown, shown
        assert cell.get_attribute("title").startswith("America/New_York")
        hour_utc = int(written[11:13])
        assert any(f"{(hour_utc - k) % 12 or 12}:" in shown for k in (4, 5)), (written, shown)
    finally:
        context.close()


# -- a phone's width ------------------------------------------------------------------------------

@pytest.mark.parametrize("key", available_games())
def test_the_play_page_fits_a_phone(browser, live_site, key):
    game = create(live_site.base_url, key, seed=6)
    me = get(live_site.base_url, f"/games/{game['game_id']}")["to_act"][0]
    seat = open_page(browser, play_url(live_site, game, me), me, viewport=PHONE)
    page = seat.page
    try:
        wait_until(page, lambda: bool(ready_moves(page)), what="my moves")
        # Check nothing is wider than the phone, and my moves are on the first screen
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        box = page.locator(f"{READY} button[data-move]").first.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["y"] < PHONE["height"]
    finally:
        close(seat)


def test_the_replay_viewer_opened_at_a_step_on_a_phone_shows_the_table_at_the_top(
        browser, live_site):
    stored = live_site.finished["vampir"]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{live_site.base_url}/games/{stored.game_id}/viewer?step=25")
        page.wait_for_selector('#table[data-step="25"]')
        # Check the page is not scrolled away, the controls sit at the top, and the step's
        # caption and table follow them at once, in the first half of the screen
        assert page.evaluate("window.scrollY") == 0
        controls = page.locator(".controls").bounding_box()
        caption = page.locator("#caption").bounding_box()
        table = page.locator("#table").bounding_box()
        assert controls["y"] < 150 and controls["height"] < 150
        assert caption["y"] < PHONE["height"] / 2
        assert 0 <= table["y"] - (caption["y"] + caption["height"]) < 40
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()
