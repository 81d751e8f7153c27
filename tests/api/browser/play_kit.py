"""Helpers of the play page's browser tests: games over real HTTP, one browser context per seat."""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain import game_class

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]
ROOT = "#play"
READY = '#moves[data-state="ready"]'


def post(base_url: str, path: str, body: dict[str, Any], token: str | None = None
         ) -> tuple[int, dict[str, Any]]:
    """A JSON POST to the live server; the status and the decoded answer."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base_url + path, data=json.dumps(body).encode(),
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def get(base_url: str, path: str, token: str | None = None) -> dict[str, Any]:
    """A JSON GET from the live server (200 expected)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(base_url + path, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def create(base_url: str, key: str, players: int | None = None, seed: int = 11,
           **extra: Any) -> dict[str, Any]:
    """A short game of `key` with its fewest players, created through POST /games."""
    cls = game_class(key)
    names = NAMES[: players or cls.MIN_PLAYERS]
    status, answer = post(base_url, "/games", {"game": key, "players": names, "seed": seed,
                                               "options": dict(cls.SHORT_OPTIONS), **extra})
    assert status == 201, answer
    answer["players"] = names
    return answer


# What axe-core may not find on any page (issue 31, item 6): a violation of these impacts, or of
# the rules the issue found broken beside them.
AXE_IMPACTS = ("serious", "critical")
AXE_RULES = ("heading-order", "empty-table-header")


def axe_problems(axe: Any, page: Any) -> list[str]:
    """axe-core's violations on the page as it is now (AXE_IMPACTS, AXE_RULES), each with its
    elements and what fails, in words; empty when there is none."""
    found = axe.run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at "
            + "; ".join(" ".join(n["target"]) + ": "
                        + (n.get("failureSummary") or "").replace("\n", " ") for n in v["nodes"])
            for v in found if v["impact"] in AXE_IMPACTS or v["id"] in AXE_RULES]


def wait_until(page, condition: Callable[[], bool], timeout_ms: int = 15_000,
               what: str = "the expected state") -> None:
    """Poll a condition (the page's CSP forbids Playwright's string predicates)."""
    for _ in range(timeout_ms // 50):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"the page never reached {what}")


def root(page, name: str) -> str | None:
    """An attribute of the page's root element (data-status, data-version, data-live, …)."""
    return page.get_attribute(ROOT, name)


READY_JS = """() => {
  const root = document.querySelector("#play");
  const box = document.querySelector('#moves[data-state="ready"]');
  if (!root || !box || box.dataset.version !== root.dataset.version) return [];
  return [...box.querySelectorAll("button[data-move]")].filter((b) => !b.disabled).map((b) => b.dataset.move);
}"""


def ready_moves(page) -> list[str]:
    """The data-move of every button when this seat's moves are ready for the version shown."""
    return page.evaluate(READY_JS)  # one round trip: this runs for every seat on every round


@dataclass
class Seat:
    """One player's browser context and tab."""

    name: str
    context: Any
    page: Any
    loads: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    clicks: int = 0


def open_page(browser, url: str, name: str, viewport: dict[str, int] | None = None) -> Seat:
    """A fresh context (its own sessionStorage) on a play page; counts loads and script errors."""
    context = browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    page = context.new_page()
    seat = Seat(name, context, page)
    page.on("load", lambda: seat.loads.append(page.url))
    page.on("pageerror", lambda exc: seat.errors.append(str(exc)))
    page.on("console", lambda msg: seat.errors.append(msg.text) if msg.type == "error" else None)
    page.goto(url)
    wait_until(page, lambda: root(page, "data-version") not in (None, ""), what="its first view")
    return seat


def click_move(seat: Seat, rng: random.Random) -> bool:
    """Click a random legal move button if this seat has any now; whether it clicked."""
    moves = ready_moves(seat.page)
    if not moves:
        return False
    index = rng.randrange(len(moves))
    button = seat.page.locator(f"{READY} button[data-move]").nth(index)
    try:
        button.click(timeout=2_000)
        if '"type": "move"' in moves[index] or '"type":"move"' in moves[index]:
            # VampiRing (VR-4): a tap only chooses and previews the move; Confirm sends it
            seat.page.locator("#confirm:not([disabled])").click(timeout=2_000)
            seat.clicks += 1
    except Exception:  # re-drawn under the pointer: the next round looks again
        return False
    seat.clicks += 1
    return True


def play_out(seats: list[Seat], watchers: list[Seat], rng: random.Random,
             each_round: Callable[[], None] = lambda: None, limit: int = 3000) -> None:
    """Every seat clicks a legal move when it may, until every page shows the game finished."""
    pages = [s.page for s in seats + watchers]
    for _ in range(limit):
        if all(root(p, "data-status") == "finished" for p in pages):
            return
        clicked = False
        for seat in seats:
            clicked = click_move(seat, rng) or clicked
        each_round()
        if not clicked:
            seats[0].page.wait_for_timeout(40)
    raise AssertionError("the game did not finish on every page")
