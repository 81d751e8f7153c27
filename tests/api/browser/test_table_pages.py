"""The table in Chromium against a real `gruft serve` process: seats handed to the bot and taken
back, presence, the organiser playing a seat, and the network cut for real (a proxy that resets
connections or lets nothing through) with the page recovering by itself (docs/api.md, the table).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.browser.netcut import Proxy
from tests.api.browser.play_kit import (
    READY,
    create,
    get,
    open_page,
    post,
    ready_moves,
    root,
    wait_until,
)
from tests.kit import served_gruft

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[str]:
    """`gruft serve` on a fresh SQLite file (its bot runner moving at once, a stream's heartbeat
    every second); its base URL."""
    root_dir = tmp_path_factory.mktemp("table")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
           "SQLITE_DBNAME": str(root_dir / "games.sqlite"), "GRUFT_DATA_DIR": str(root_dir / "data"),
           "GRUFT_BOT_DELAY": "0", "GRUFT_STREAM_KEEPALIVE": "1"}
    with served_gruft(env, root_dir / "serve.log", threads=16) as port:
        yield f"http://127.0.0.1:{port}"


def page_of(base: str, game: dict[str, Any], token: str | None = None) -> str:
    url = f"{base}/games/{game['game_id']}/play"
    return f"{url}?token={token}" if token else url


def seat_attr(page, player: str, name: str) -> str | None:
    """An attribute of a seat in the page's seats strip."""
    node = page.query_selector(f'#seats li[data-player="{player}"]')
    return node.get_attribute(name) if node else None


def events(base: str, game: dict[str, Any]) -> list[dict[str, Any]]:
    return get(base, f"/games/{game['game_id']}/events?limit=1000")["events"]


def close(*seats) -> None:
    for seat in seats:
        seat.context.close()


# -- seats handed to the bot and taken back -------------------------------------------------------

def test_the_host_hands_a_seat_to_the_bot_and_its_player_takes_it_back(browser, served):
    game = create(served, "voodoo-prince", seed=21)
    host = open_page(browser, page_of(served, game, game["host_token"]), "host")
    ann = open_page(browser, page_of(served, game, game["player_tokens"]["Ann"]), "Ann")
    bob = None
    try:
        # Check the host may hand any seat over; Ann only her own
        wait_until(host.page, lambda: host.page.is_visible('[data-hand="Bob"]'), what="Bob's control")
        assert ann.page.query_selector('[data-hand="Bob"]') is None
        assert ann.page.is_visible('[data-hand="Ann"]')
        host.page.click('[data-hand="Bob"]')
        for seat in (host, ann):
            wait_until(seat.page, lambda s=seat: seat_attr(s.page, "Bob", "data-bot") == "heuristic",
                       what=f"Bob's seat played by the bot on {seat.name}'s page")
        # Check the bot plays Bob's seat while Ann plays hers
        played = lambda: [e for e in events(served, game)  # noqa: E731
                          if e.get("by") == "bot" and e["data"].get("player") == "Bob"]
        for _ in range(400):
            if played():
                break
            moves = ready_moves(ann.page)
            if moves:
                ann.page.locator(f"{READY} button[data-move]").first.click()
            ann.page.wait_for_timeout(50)
        assert played(), "the bot never moved for Bob"
        handed = [e for e in events(served, game) if e["type"] == "SeatHanded"]
        assert [(e["data"], e["by"]) for e in handed] == [({"player": "Bob", "bot": "heuristic"}, "host")]
        # Check Bob, back at the table, takes his seat back from his own page
        bob = open_page(browser, page_of(served, game, game["player_tokens"]["Bob"]), "Bob")
        assert "bot" in bob.page.text_content("#prompt")
        bob.page.click('[data-hand="Bob"]')
        for seat in (host, ann, bob):
            wait_until(seat.page, lambda s=seat: seat_attr(s.page, "Bob", "data-bot") == "",
                       what=f"Bob's seat his again on {seat.name}'s page")
        handed = [e for e in events(served, game) if e["type"] == "SeatHanded"]
        assert [(e["data"]["bot"], e["by"]) for e in handed] == [("heuristic", "host"), (None, "seat")]
        # Check Bob plays his own moves again: when his turn comes, his page offers them
        for _ in range(400):
            view = get(served, f"/games/{game['game_id']}")
            if "Bob" in view["to_act"] or view["status"] != "in_progress":
                break
            if ready_moves(ann.page):
                ann.page.locator(f"{READY} button[data-move]").first.click()
            ann.page.wait_for_timeout(50)
        if view["status"] == "in_progress":
            wait_until(bob.page, lambda: bool(ready_moves(bob.page)), what="Bob's own moves")
        assert not (host.errors or ann.errors or bob.errors)
    finally:
        close(host, ann, *([bob] if bob else []))


# -- presence ---------------------------------------------------------------------------------------

def test_every_page_shows_who_has_the_game_open(browser, served):
    game = create(served, "vampir", seed=22)
    host = open_page(browser, page_of(served, game, game["host_token"]), "host")
    spectator = open_page(browser, page_of(served, game), "spectator")
    ann = open_page(browser, page_of(served, game, game["player_tokens"]["Ann"]), "Ann")
    try:
        for seat in (host, spectator, ann):
            wait_until(seat.page, lambda s=seat: seat_attr(s.page, "Ann", "data-present") == "true",
                       what=f"Ann present on {seat.name}'s page")
            # the host watching and a spectator are no seat
            assert seat_attr(seat.page, "Bob", "data-present") == "false"
        # Check a seat that closes its page is shown gone, and one that opens it, there
        ann.context.close()
        bob = open_page(browser, page_of(served, game, game["player_tokens"]["Bob"]), "Bob")
        for seat in (host, spectator, bob):
            wait_until(seat.page, lambda s=seat: seat_attr(s.page, "Ann", "data-present") == "false"
                       and seat_attr(s.page, "Bob", "data-present") == "true",
                       what=f"Ann gone and Bob there on {seat.name}'s page")
        close(bob)
    finally:
        close(host, spectator)


# -- the organiser plays a seat ---------------------------------------------------------------------

def test_the_organiser_plays_a_seat_and_sees_only_its_secrets(browser, served):
    game = create(served, "vampiring", players=3, seed=23, host_seat="Ann")
    organiser = open_page(browser, page_of(served, game, game["host_token"]), "organiser")
    page = organiser.page
    try:
        # Check the organiser's page is Ann's seat, with the host's panel and link
        assert root(page, "data-role") == "host" and root(page, "data-you") == "Ann"
        assert page.is_visible("#host-panel")
        # (created over the API, this browser holds no links: the organiser makes them here)
        page.click("[data-reissue-all]")
        wait_until(page, lambda: page.is_visible("[data-host-link]"), what="the host's own link")

        def invited() -> set[str]:
            return {a.get_attribute("data-invite") for a in page.query_selector_all("[data-invite]")}

        # no invitation for the organiser's own seat
        wait_until(page, lambda: invited() == {"Bob", "Cid"}, what="links for Bob and Cid only")
        # Check Bob's secret move stays secret on it, in the table and in the log's words
        status, _ = post(served, f"/games/{game['game_id']}/commands",
                         {"type": "move", "metamorphosis": "b", "direction": "cw"},
                         game["player_tokens"]["Bob"])
        assert status == 200
        told = '#events li[data-type="MoveSubmitted"][data-told="true"] .ev-text'
        wait_until(page, lambda: page.query_selector(told) is not None, what="Bob's move told")
        assert page.text_content(told) == "Bob submits a secret move (VR-4)."
        text = page.text_content("#play")
        assert "metamorphosis b" not in text
        # Check the organiser plays Ann's seat from it, recorded as the seat's own move
        wait_until(page, lambda: bool(ready_moves(page)), what="Ann's moves")
        page.click('[data-pick="metamorphosis"][data-value="a"]')
        page.click('[data-pick="direction"][data-value="ccw"]')
        page.click("#confirm")
        wait_until(page, lambda: any(e["type"] == "MoveSubmitted" and e["data"]["player"] == "Ann"
                                     for e in events(served, game)), what="Ann's move stored")
        mine = [e for e in events(served, game) if e["type"] == "MoveSubmitted"
                and e["data"]["player"] == "Ann"]
        assert mine[0]["by"] == "seat"
        assert not organiser.errors
    finally:
        close(organiser)


# -- the network cut for real -------------------------------------------------------------------

PROMPTS_JS = """() => {
  window.__seen = [];
  const note = () => window.__seen.push([document.querySelector("#play").dataset.live,
    document.querySelector("#prompt").textContent, document.querySelector("#moves").dataset.state]);
  new MutationObserver(note).observe(document.querySelector("#play"),
    { subtree: true, childList: true, characterData: true, attributes: true });
  note();
}"""


@pytest.mark.parametrize("cut", ["reset", "black_hole"])
def test_a_page_cut_off_recovers_by_itself_never_showing_anothers_turn(browser, served, cut):
    game = create(served, "vampiring", seed=24)
    proxy = Proxy(int(served.rsplit(":", 1)[1]))
    ann = open_page(browser, page_of(proxy.url, game, game["player_tokens"]["Ann"]), "Ann")
    page = ann.page
    try:
        # Ann moves: the page waits for Bob
        wait_until(page, lambda: bool(ready_moves(page)), what="Ann's moves")
        page.click('[data-pick="metamorphosis"][data-value="a"]')
        page.click('[data-pick="direction"][data-value="cw"]')
        page.click("#confirm")
        wait_until(page, lambda: "Bob" in page.text_content("#prompt"), what="waiting for Bob")
        page.evaluate(PROMPTS_JS)
        # The network goes; meanwhile Bob moves and the turn resolves: it is Ann's turn again
        getattr(proxy, cut)()
        wait_until(page, lambda: root(page, "data-live") == "offline", timeout_ms=20_000,
                   what="the page saying it is offline")
        status, answer = post(served, f"/games/{game['game_id']}/commands",
                              {"type": "move", "metamorphosis": "b", "direction": "ccw"},
                              game["player_tokens"]["Bob"])
        assert status == 200 and "Ann" in answer["to_act"]
        version = answer["version"]
        assert root(page, "data-live") == "offline"
        # The network comes back: the page finds it by itself, with Ann's turn at the version
        proxy.restore()
        wait_until(page, lambda: root(page, "data-version") == str(version) and bool(ready_moves(page)),
                   timeout_ms=30_000, what="Ann's turn after the network came back")
        assert root(page, "data-live") == "stream" and page.is_hidden("#offline")
        seen = page.evaluate("() => window.__seen")
        # Check that while it was cut off it offered no move and claimed nobody's turn
        offline = [s for s in seen if s[0] == "offline"]
        assert offline, seen
        assert all(s[2] == "offline" and "Waiting for" not in s[1] for s in offline), offline
        # Check it never again showed Bob's turn as the current one once back
        last = max(i for i, s in enumerate(seen) if s[0] == "offline")
        back = seen[last + 1:]
        assert not any("Waiting for Bob" in s[1] for s in back), back
        assert len(ann.loads) == 1  # recovered by itself, never reloaded
        assert [e for e in ann.errors if "ERR_" not in e and "Failed to load" not in e] == []
    finally:
        close(ann)
        proxy.close()


# -- clocks -------------------------------------------------------------------------------------

def test_the_create_form_sets_a_clock_and_the_organisers_seat(browser, served):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{served}/")
        page.select_option("#new-game-key", "voodoo-prince")
        page.fill("#new-seat-count", "2")
        page.dispatch_event("#new-seat-count", "change")
        page.fill('[data-seat="0"]', "Nora")
        page.dispatch_event('[data-seat="0"]', "input")
        page.select_option("#new-clock", "2")  # the second preset: 10 min + 10 s a move
        page.select_option("#new-host-seat", "Nora")
        page.click("#create")
        wait_until(page, lambda: "/play" in page.url, what="the host page")
        game_id = page.url.split("/games/")[1].split("/")[0]
        view = get(served, f"/games/{game_id}")
        assert set(view["clocks"]) == {"Nora", "Bob"}
        assert max(c["remaining"] for c in view["clocks"].values()) <= 600
        # Check the organiser's page is Nora's seat, with the host's panel
        wait_until(page, lambda: root(page, "data-version") not in (None, ""), what="the view")
        assert root(page, "data-role") == "host" and root(page, "data-you") == "Nora"
        assert page.is_visible("#host-panel") and page.is_visible("#my-hand")
    finally:
        context.close()


def test_a_clock_waits_for_the_table_then_the_seat_awaited_counts_down_on_every_page(browser, served):
    game = create(served, "voodoo-prince", seed=25, clock={"bank": 300, "increment": 5})
    first = get(served, f"/games/{game['game_id']}")["to_act"][0]
    other = next(p for p in game["players"] if p != first)
    mine = open_page(browser, page_of(served, game, game["player_tokens"][first]), first,
                     viewport=PHONE)
    spectator = open_page(browser, page_of(served, game), "spectator")
    theirs = None
    try:
        # Check, with one of the two players at the table, every page says the clocks wait for
        # it and no bank runs (the seat offers no button: only the host starts them).
        for seat in (mine, spectator):
            wait_until(seat.page, lambda p=seat.page: seat_attr(p, first, "data-present") == "true",
                       what=f"{first} at the table on {seat.name}'s page")
            assert seat.page.is_visible("#clock-note")
            assert "clocks start" in seat.page.text_content("#clock-note")
            assert seat.page.is_hidden("#start-clocks")
            assert seat_attr(seat.page, first, "data-running") == "false"
            assert seat_attr(seat.page, first, "data-remaining") == "300"
        assert not any(e["type"] == "ClocksStarted" for e in events(served, game))
        # Check the other player's page opening starts them (by the server), on every page.
        theirs = open_page(browser, page_of(served, game, game["player_tokens"][other]), other,
                           viewport=PHONE)
        for seat in (mine, spectator, theirs):
            wait_until(seat.page, lambda p=seat.page: p.is_hidden("#clock-note")
                       and seat_attr(p, first, "data-running") == "true",
                       what=f"the clocks started on {seat.name}'s page")
        started = [e for e in events(served, game) if e["type"] == "ClocksStarted"]
        assert [(e["by"], e["data"]) for e in started] == [("server", {"reason": "present"})]
        for seat in (mine, spectator):
            page = seat.page
            wait_until(page, lambda p=page: seat_attr(p, first, "data-running") == "true",
                       what="the running clock")
            start = int(seat_attr(page, first, "data-remaining"))
            assert start <= 300
            wait_until(page, lambda p=page, s=start: int(seat_attr(p, first, "data-remaining")) < s,
                       what="the clock counting down")
            # the other seat's clock stands still at its full bank
            assert seat_attr(page, other, "data-running") == "false"
            assert seat_attr(page, other, "data-remaining") == "300"
        # Check a move stops its clock and starts the next seat's
        wait_until(mine.page, lambda: bool(ready_moves(mine.page)), what="my moves")
        mine.page.locator(f"{READY} button[data-move]").first.click()
        for seat in (mine, spectator):
            wait_until(seat.page, lambda p=seat.page: seat_attr(p, other, "data-running") == "true"
                       and seat_attr(p, first, "data-running") == "false", what="the clocks turned")
        assert not (mine.errors or spectator.errors or theirs.errors)
    finally:
        close(mine, spectator, *([theirs] if theirs else []))


# -- the rematch ----------------------------------------------------------------------------------

def finish(base: str, game: dict[str, Any]) -> None:
    """Play a game to its end through the API with the host token (random legal moves)."""
    rng = random.Random(game["game_id"])
    gid, token = game["game_id"], game["host_token"]
    while (view := get(base, f"/games/{gid}"))["status"] == "in_progress":
        player = rng.choice(view["to_act"])
        moves = get(base, f"/games/{gid}/legal-moves?player={player}", token)["moves"]
        status, _ = post(base, f"/games/{gid}/commands", {**rng.choice(moves), "player": player},
                         token)
        assert status == 200


def test_a_rematch_is_moved_on_to_by_every_seat(browser, served):
    game = create(served, "voodoo-prince", seed=26)
    host = open_page(browser, page_of(served, game, game["host_token"]), "host")
    seats = [open_page(browser, page_of(served, game, game["player_tokens"][p]), p)
             for p in game["players"]]
    spectator = open_page(browser, page_of(served, game), "spectator")
    try:
        # The host makes this game's links on the page (kept in the browser)
        host.page.click("[data-reissue-all]")
        wait_until(host.page, lambda: len(host.page.query_selector_all("[data-invite]")) == 2,
                   what="the first game's links")
        finish(served, game)
        for seat in (host, *seats):
            wait_until(seat.page, lambda s=seat: s.page.is_visible("#rematch-start"),
                       what=f"the rematch offered on {seat.name}'s page")
        wait_until(spectator.page, lambda: root(spectator.page, "data-status") == "finished",
                   what="the spectator's page over")
        assert spectator.page.query_selector("#rematch-start") is None  # a spectator has no seat
        # The host starts it and moves on to the rematch's host page
        host.page.click("#rematch-start")
        wait_until(host.page, lambda: game["game_id"] not in host.page.url, what="the host moving on")
        rematch_id = host.page.url.split("/games/")[1].split("/")[0]
        assert get(served, f"/games/{game['game_id']}")["rematch"] == rematch_id
        assert get(served, f"/games/{rematch_id}")["players"] == game["players"][1:] + game["players"][:1]
        wait_until(host.page, lambda: root(host.page, "data-role") == "host"
                   and len(host.page.query_selector_all("[data-invite]")) == 2, what="the host's links")
        # Check the host's links are the rematch's own, each opening its seat there
        links = {a.get_attribute("data-invite"): a.get_attribute("href")
                 for a in host.page.query_selector_all("[data-invite]")}
        assert all(f"/games/{rematch_id}/play" in url for url in links.values()), links
        # Check every seat's page learns of it and moves on, as the same seat
        for seat in seats:
            wait_until(seat.page, lambda s=seat: s.page.is_visible("#rematch-go"),
                       what=f"the rematch on {seat.name}'s page")
            seat.page.click("#rematch-go")
            wait_until(seat.page, lambda s=seat: rematch_id in s.page.url
                       and root(s.page, "data-you") == s.name, what=f"{seat.name} in the rematch")
            assert "token" not in seat.page.url
        wait_until(spectator.page, lambda: spectator.page.is_visible("#rematch-watch"), what="a link")
        # Check the rematch is played from those pages: its first seat has its moves
        first = get(served, f"/games/{rematch_id}")["to_act"][0]
        page = next(s.page for s in seats if s.name == first)
        wait_until(page, lambda: bool(ready_moves(page)), what=f"{first}'s moves in the rematch")
        page.locator(f"{READY} button[data-move]").first.click()
        wait_until(page, lambda: get(served, f"/games/{rematch_id}")["version"] > 2
                   and all(root(s.page, "data-version") == str(get(served, f"/games/{rematch_id}")["version"])
                           for s in seats), what="the move shown on every seat's page")
        assert not any(s.errors for s in (host, *seats))
    finally:
        close(host, *seats, spectator)


def test_a_clock_runs_out_and_the_servers_bot_moves_for_that_seat(browser, served):
    game = create(served, "voodoo-prince", seed=27, clock={"bank": 2, "increment": 30})
    first = get(served, f"/games/{game['game_id']}")["to_act"][0]
    mine = open_page(browser, page_of(served, game, game["player_tokens"][first]), first)
    watcher = open_page(browser, page_of(served, game), "spectator")
    host = open_page(browser, page_of(served, game, game["host_token"]), "host", viewport=PHONE)
    page = mine.page
    try:
        # The other seat is away: the host starts the clocks from the host's page
        wait_until(host.page, lambda: host.page.is_visible("#start-clocks"), what="the host's button")
        host.page.click("#start-clocks")
        wait_until(host.page, lambda: host.page.is_hidden("#clock-note"), what="the clocks started")
        # Nobody moves: the clock runs out, and the bot moves for that seat, shown on every page
        told = '#events li[data-type="ClockExpired"][data-told="true"] .ev-text'
        for seat in (mine, watcher):
            wait_until(seat.page, lambda p=seat.page: p.query_selector(told) is not None,
                       what=f"the clock running out told on {seat.name}'s page")
            assert "clock runs out" in seat.page.text_content(told)
        log = events(served, game)
        expired = next(i for i, e in enumerate(log) if e["type"] == "ClockExpired")
        assert log[expired]["by"] == "clock" and log[expired]["data"]["player"] == first
        move = log[expired + 1]
        assert move["by"] == "bot" and move["data"]["player"] == first
        for seat in (mine, watcher):
            wait_until(seat.page, lambda p=seat.page: int(root(p, "data-version")) >= move["version"],
                       what="the bot's move on the table")
        # Check the seat's clock shows no more than the increment it got for that move
        assert 0 <= int(seat_attr(page, first, "data-remaining")) <= 30
        assert not mine.errors and not host.errors
    finally:
        close(mine, watcher, host)
