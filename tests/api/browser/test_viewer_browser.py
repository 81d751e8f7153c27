"""The replay viewer in a real headless Chromium: stepping, the table as the events say, controls.

Each game kind is opened finished, stepped forward and back, and its table checked against the
stored events; screenshots go to the test's temporary directory.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain import available_games
from domain.core import HOST
from tests.api.browser.site import Site, StoredGame, store_random_game

pytestmark = pytest.mark.browser


# -- helpers --------------------------------------------------------------------------------

def records_of(site: Site, game: StoredGame) -> list[dict[str, Any]]:
    """Every stored event of the game, unredacted."""
    return site.app.extensions["gruft"].games.reads.records(game.game_id)


def first(records: list[dict], type_: str, when=lambda i, r: True) -> int:
    """The version of the first event of a type (and condition)."""
    for i, record in enumerate(records):
        if record["type"] == type_ and when(i, record):
            return record["version"]
    raise AssertionError(f"no {type_} event in this game")


def open_viewer(page, site: Site, game: StoredGame, step: int = 0, **query: str) -> None:
    """Open the game's viewer (at ?step=) and wait until its table shows that step."""
    params = {**({"step": str(step)} if step else {}), **query}
    tail = "&".join(f"{k}={v}" for k, v in params.items())
    page.goto(f"{site.base_url}/games/{game.game_id}/viewer" + (f"?{tail}" if tail else ""))
    wait_step(page, step)


def wait_step(page, n: int) -> None:
    """Wait until the table is drawn for step n."""
    page.wait_for_selector(f'#table[data-step="{n}"]')
    assert page.text_content("#step-current") == str(n)


def wait_until(page, condition, timeout_ms: int = 10_000) -> None:
    """Poll a condition on the page (the page's CSP forbids Playwright's string functions)."""
    for _ in range(timeout_ms // 50):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page never reached the expected state")


def jump(page, n: int) -> None:
    """Jump to step n by clicking its line in the event list."""
    page.click(f'.events li[data-version="{n}"]')
    wait_step(page, n)


def cards(page, selector: str) -> list[str]:
    """The card codes shown under a selector."""
    return page.eval_on_selector_all(f"{selector} [data-card]", "els => els.map(e => e.dataset.card)")


def attr(page, selector: str, name: str) -> str | None:
    """An attribute of the one element a selector names."""
    return page.get_attribute(selector, name)


def seat(player: str) -> str:
    return f'#table .seat[data-player="{player}"]'


# -- each game: the table changes as the events say -------------------------------------------

def check_voodoo_prince(page, records: list[dict]) -> int:
    # A card that stays on the table: the next event is another card, not the trick's end.
    played = first(records, "CardPlayed", lambda i, r: records[i + 1]["type"] == "CardPlayed")
    data = records[played - 1]["data"]
    hand = seat(data["player"]) + " .hand"
    jump(page, played - 1)
    assert data["card"] in cards(page, hand)
    assert data["card"] not in cards(page, "#table .trick.current")
    page.click("#next")
    wait_step(page, played)
    assert data["card"] in cards(page, "#table .trick.current")
    assert data["card"] not in cards(page, hand)

    won = first(records, "TrickWon")
    data = records[won - 1]["data"]
    tricks = seat(data["winner"]) + " [data-tricks]"
    jump(page, won - 1)
    before = int(attr(page, tricks, "data-tricks"))
    assert len(cards(page, "#table .trick.current")) == len(data["trick"])
    page.keyboard.press("ArrowRight")
    wait_step(page, won)
    assert int(attr(page, tricks, "data-tricks")) == before + data["count"]
    assert cards(page, "#table .trick.current") == []
    assert cards(page, "#table .trick.last") == [e["card"] for e in data["trick"]]
    return won


def check_vampire_queen(page, records: list[dict]) -> int:
    played = first(records, "Played", lambda i, r: r["data"]["cards"][0] not in ("S15", "S20"))
    data = records[played - 1]["data"]
    hand = seat(data["player"]) + " .hand"
    jump(page, played - 1)
    size = int(attr(page, hand, "data-hand-size"))
    page.keyboard.press("ArrowRight")
    wait_step(page, played)
    assert int(attr(page, hand, "data-hand-size")) == size - len(data["cards"])
    play = f'#table .plays li[data-player="{data["player"]}"][data-action="play"]'
    assert cards(page, play) == data["cards"]

    ended = first(records, "RoundEnded")
    jump(page, ended - 1)
    assert page.locator("#table .plays li").count() >= 1
    page.keyboard.press("ArrowRight")
    wait_step(page, ended)
    assert page.locator("#table .plays li").count() == 0

    # A slayer round: the table says its slayer in words, never its code (issue 25).
    led = [r for r in records if r["type"] == "Played" and r["data"]["cards"][0] in ("S15", "S20")]
    assert led, "this game never led a slayer"  # a finished game of several phases does
    jump(page, led[0]["version"])
    code = led[0]["data"]["cards"][0]
    text = page.inner_text("#table")
    assert f"slayer round (vampire slayer {code[1:]} led)" in text
    assert code not in text
    taken = first(records, "RoundEnded", lambda i, r: r["version"] > led[0]["version"])
    jump(page, taken)  # who took it may not lead it straight away (VQ-14)
    taker = records[taken - 1]["data"]["taker"]
    text = page.inner_text("#table")
    assert f"{taker} may not lead the vampire slayer {code[1:]} this round (VQ-14)" in text
    assert code not in text
    return played


def check_vampir(page, records: list[dict]) -> int:
    discarded = first(records, "Discarded")
    data = records[discarded - 1]["data"]
    where = f'#table .location[data-location="{data["location"]}"]'
    hand = seat(data["player"]) + " .hand"
    jump(page, discarded - 1)
    count, size = int(attr(page, where, "data-count")), int(attr(page, hand, "data-hand-size"))
    page.keyboard.press("ArrowRight")
    wait_step(page, discarded)
    assert int(attr(page, where, "data-count")) == count + 1
    assert cards(page, where)[-1] == data["card"]
    assert int(attr(page, hand, "data-hand-size")) == size - 1

    if not any(r["type"] == "Collected" for r in records):
        return discarded  # this random game never collected; the discard was checked
    collected = first(records, "Collected")
    data = records[collected - 1]["data"]
    jump(page, collected)
    assert attr(page, f'#table .location[data-location="{data["location"]}"]', "data-count") == "0"
    hunt = seat(data["player"]) + f' .hunt[data-colour="{data["location"]}"]'
    assert sorted(cards(page, hunt)) == sorted(data["taken"] + data["cards"])
    return collected


def check_vampiring(page, records: list[dict]) -> int:
    resolved = first(records, "TurnResolved")
    data = records[resolved - 1]["data"]
    jump(page, resolved - 1)
    page.keyboard.press("ArrowRight")
    wait_step(page, resolved)
    for player, family in data["vampires"].items():
        assert attr(page, f'#table .blood[data-player="{player}"]', "data-blood") == \
            str(data["blood"][player])
        if player in data["eliminated"]:
            continue
        for vid, vampire in family.items():
            token = (f'#table .ring-card[data-position="{vampire["position"]}"] '
                     f'.vampire[data-player="{player}"][data-id="{vid}"]')
            assert attr(page, token, "data-shape") == vampire["shape"]
    return resolved


CHECKS = {"voodoo-prince": check_voodoo_prince, "vampire-queen": check_vampire_queen,
          "vampir": check_vampir, "vampiring": check_vampiring}


@pytest.mark.parametrize("key", available_games())
def test_step_through_a_finished_game(page, live_site: Site, key: str, tmp_path):
    game = live_site.finished[key]
    records = records_of(live_site, game)
    total = len(records)

    # Check the page opens at step 0 with the players' names and the number of steps
    open_viewer(page, live_site, game)
    assert page.text_content("#step-total") == str(total)
    assert page.inner_text("#players").split() == game.players
    assert page.is_disabled("#prev") and page.is_disabled("#first")

    # Check forward and back, by button and by key, with the event highlighted and described
    page.click("#next")
    wait_step(page, 1)
    assert "sit down to" in page.text_content("#caption")
    assert page.get_attribute(".events li.current", "data-version") == "1"
    page.keyboard.press("ArrowRight")
    wait_step(page, 2)
    assert page.get_attribute(".events li.current", "data-version") == "2"
    page.keyboard.press("ArrowLeft")
    wait_step(page, 1)

    # Check the table changes as the events say
    step = CHECKS[key](page, records) if key in CHECKS else 1
    page.screenshot(path=str(tmp_path / f"{key}-step-{step}.png"))

    # Check the last step shows the winners, and the address names the step to share
    page.keyboard.press("End")
    wait_step(page, total)
    assert page.is_disabled("#next") and page.is_disabled("#last")
    winners = records[-1]["data"]["winners"]
    shown = page.eval_on_selector_all(".scoreboard li.winner", "els => els.map(e => e.dataset.player)")
    assert shown == winners
    assert f"step={total}" in page.url


def test_slider_play_and_pause(page, live_site: Site):
    game = live_site.finished["voodoo-prince"]
    open_viewer(page, live_site, game, step=3)

    # Check the slider moves the replay, by value and by its own arrow keys
    page.eval_on_selector("#slider", "(s) => { s.value = '12'; s.dispatchEvent(new Event('input')); }")
    wait_step(page, 12)
    page.focus("#slider")
    page.keyboard.press("ArrowRight")
    wait_step(page, 13)

    # Check play advances at the chosen speed until paused, then stays
    page.select_option("#speed", "8")
    page.click("#play")
    wait_until(page, lambda: int(page.text_content("#step-current")) >= 16)
    page.click("#play")
    stopped = int(page.text_content("#step-current"))
    page.wait_for_timeout(600)
    assert int(page.text_content("#step-current")) == stopped
    assert page.get_attribute("#play", "aria-label") == "Play"

    # Check Home goes back to the start
    page.locator("body").press("Home")
    wait_step(page, 0)


def test_perspective_shows_one_players_view(page, live_site: Site):
    game = live_site.finished["voodoo-prince"]
    records = records_of(live_site, game)
    step = first(records, "CardPlayed") + 1
    open_viewer(page, live_site, game, step=step)
    me, *others = game.players

    # Check everything shows every hand face up
    for player in game.players:
        assert page.locator(seat(player) + " .hand .card.back").count() == 0

    # Check a player's perspective: their own hand face up, the others' face down, same sizes
    sizes = {p: int(attr(page, seat(p) + " .hand", "data-hand-size")) for p in game.players}
    page.select_option("#perspective", me)
    page.wait_for_selector(seat(me) + ".me")
    assert page.locator(seat(me) + " .hand .card.back").count() == 0
    for other in others:
        assert cards(page, seat(other) + " .hand") == []
        assert page.locator(seat(other) + " .hand .card.back").count() == sizes[other]
    assert f"as={me}" in page.url

    # Check the perspective survives a reload of the shared address
    page.reload()
    wait_step(page, step)
    assert page.input_value("#perspective") == me
    assert page.locator(seat(others[0]) + " .hand .card.back").count() == sizes[others[0]]


def test_perspective_words_and_secret_moves(page, live_site: Site):
    # Check another player's draw reads without its cards (Vampir)
    game = live_site.finished["vampir"]
    records = records_of(live_site, game)
    drew = next(r for r in records if r["type"] == "Drew")
    viewer = next(p for p in game.players if p != drew["data"]["player"])
    open_viewer(page, live_site, game, step=drew["version"], **{"as": viewer})
    line = page.text_content(f'.events li[data-version="{drew["version"]}"]')
    assert "draws 2 cards" in line
    assert not any(card in line for card in drew["data"]["cards"])
    # Check a submitted move is secret to the others until the turn resolves (VampiRing)
    game = live_site.finished["vampiring"]
    records = records_of(live_site, game)
    moved = next(r for r in records if r["type"] == "MoveSubmitted")
    mover = moved["data"]["player"]
    viewer = next(p for p in game.players if p != mover)
    open_viewer(page, live_site, game, step=moved["version"], **{"as": viewer})
    assert page.locator(seat(mover) + " .move.secret").count() == 1
    page.select_option("#perspective", mover)
    page.wait_for_selector(seat(mover) + " .move[data-move]")
    move = moved["data"]
    assert attr(page, seat(mover) + " .move", "data-move") == \
        f"{move['metamorphosis']}/{move['direction']}"


def test_host_watches_a_game_in_progress(page, page_errors: list[str], live_site: Site):
    games = live_site.app.extensions["gruft"].games
    game = store_random_game(games, "voodoo-prince", seed=12, moves=5)

    # Fail to open it without the host's token: the page says why
    answer = page.goto(f"{live_site.base_url}/games/{game.game_id}/viewer")
    assert answer.status == 403
    assert "host" in page.text_content("main")
    page_errors.clear()  # the browser logs the 403 itself

    # Check the host opens it with ?token=, the token leaves the address, steps still load
    page.goto(f"{live_site.base_url}/games/{game.game_id}/viewer?token={game.host_token}&step=2")
    wait_step(page, 2)
    assert "token" not in page.url and "step=2" in page.url
    page.click("#next")
    wait_step(page, 3)
    assert page.locator("#problem").is_hidden()

    # Check the page says so when the game moves on while it is open
    total = int(page.text_content("#step-total"))
    player = games.game(game.game_id).to_act[0]
    move = games.reads.legal_moves(game.game_id, HOST, player)["moves"][0]
    games.run_command(game.game_id, HOST, {**move, "player": player})
    page.keyboard.press("End")
    wait_step(page, total)
    assert "moved on" in page.text_content("#problem")


def test_the_game_list_links_to_the_viewer(page, live_site: Site):
    page.goto(live_site.base_url + "/")
    for game in live_site.finished.values():
        assert page.locator(f'tr[data-game-id="{game.game_id}"] a.watch').count() == 1
    game = live_site.finished["voodoo-prince"]
    page.click(f'tr[data-game-id="{game.game_id}"] a.watch')
    wait_step(page, 0)
    assert page.text_content(".game-title") == "Voodoo Prince"
