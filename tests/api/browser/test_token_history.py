"""No long-lived token in any address a browser keeps, nor in any log line (issue 23, item 6).

The probe: the play and viewer pages took `?token=` and cleaned the address bar, but Chromium's
History database still held `/play?token=…`. Here a served gruft (2 workers) hands out invitation
links, Chromium with a profile on disk opens them (a seat's, the host's, one issued again), a play
page and a viewer, and then its History database is read: it holds no token and no credential
the pages were given, and every invitation code it holds is dead. No line of the server's output
(request log, gunicorn's error log) holds a token, a credential or a code.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from urllib.parse import unquote

from tests.api.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.api.browser.play_kit import wait_until
from tests.kit import call, served_gruft

SEATS = ("Ann", "Bob")


def role(tab) -> tuple[str | None, str | None]:
    return tab.get_attribute("#play", "data-role"), tab.get_attribute("#play", "data-you")


def kept_seat(tab, game: str) -> dict:
    """The seat this tab keeps (sessionStorage), the credential included."""
    return json.loads(tab.evaluate(f"() => sessionStorage.getItem('gruft.play.{game}')"))


def open_invitation(context, url: str, expected: tuple[str, str | None], game: str) -> tuple:
    """A new tab opened at `url`; waits until it shows the expected seat; (tab, credential)."""
    tab = context.new_page()
    tab.goto(url)
    wait_until(tab, lambda: role(tab) == expected, what=f"the page as {expected}")
    assert "invite=" not in tab.url and "token=" not in tab.url
    return tab, kept_seat(tab, game)["token"]


def history(profile: Path) -> tuple[list[str], bytes]:
    """The addresses in Chromium's History database, and the whole file (a copy is read)."""
    copy = profile.parent / "History-copy"
    shutil.copy(profile / "Default" / "History", copy)
    with sqlite3.connect(copy) as db:
        urls = [row[0] for row in db.execute("SELECT url FROM urls")]
    return urls, copy.read_bytes()


def test_no_token_in_the_browsers_history_or_the_servers_logs(playwright, sqlite_env, tmp_path):
    log = tmp_path / "serve.log"
    profile = tmp_path / "profile"
    with served_gruft(sqlite_env, log, workers=2) as port:
        base = f"http://127.0.0.1:{port}"
        status, created = call(port, "POST", "/games", {"game": "vampiring",
                                                        "players": list(SEATS)})
        assert status == 201, created
        game, host_token = created["game_id"], created["host_token"]
        secrets = {host_token, *created["player_tokens"].values()}
        status, links = call(port, "POST", f"/games/{game}/invitations",
                             {"players": list(SEATS)}, host_token)
        assert status == 200, links
        codes = [unquote(u.split("?invite=")[1]) for u in
                 [links["host"]["url"], *(i["url"] for i in links["invitations"])]]
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            # Check each link opens its seat, and keeps its credential out of the address.
            hosting, credential = open_invitation(context, links["host"]["url"], ("host", None),
                                                  game)
            secrets.add(credential)
            tabs = {}
            for invitation in links["invitations"]:
                player = invitation["player"]
                tabs[player], credential = open_invitation(context, invitation["url"],
                                                           ("player", player), game)
                secrets.add(credential)
            wait_until(tabs["Ann"], lambda: tabs["Ann"].locator("button[data-move]").count() > 0,
                       what="Ann's moves")
            # Check the host issues Ann's invitation again from the page: the new link works
            # once, and the credential Ann's first link gave stops working.
            field = hosting.locator('li[data-player="Ann"] .invite-url')
            hosting.click('[data-reissue="Ann"]')
            wait_until(hosting, lambda: field.count() == 1, what="Ann's new link")
            again = field.input_value()
            codes.append(unquote(again.split("?invite=")[1]))
            assert call(port, "GET", f"/games/{game}/view",
                        token=kept_seat(tabs["Ann"], game)["token"])[0] == 401
            tab, credential = open_invitation(context, again, ("player", "Ann"), game)
            secrets.add(credential)
            # Check the host opens the replay of the game in play from the host's page (the
            # token posted in a form, not put in the viewer's address).
            with hosting.expect_popup() as opened:
                hosting.click("[data-host-replay]")
            replay = opened.value
            replay.wait_for_selector("#status")
            assert replay.get_attribute("#status", "class") == "status status-in_progress"
            assert "token" not in replay.url
            # A spectator's address (it carries no token anyway).
            tab.goto(f"{base}/games/{game}/play")
            tab.goto(f"{base}/")
        finally:
            context.close()  # Chromium writes its History database out
        urls, whole = history(profile)
        # Check the addresses were recorded, codes and all, and that no secret is in the file.
        assert any("?invite=" in u for u in urls), urls
        for secret in secrets:
            assert secret.encode() not in whole, "a token in Chromium's History"
        # Check every code the History holds is dead.
        held = {unquote(m) for u in urls for m in re.findall(r"invite=([^&#]+)", u)}
        assert held
        for code in held:
            status, _ = call(port, "POST", f"/games/{game}/invitations/accept", {"code": code})
            assert status == 401
    # Check no line the server wrote holds a token, a credential or a code.
    text = log.read_text()
    assert f"/games/{game}/invitations/accept" in text  # the request log was written
    for secret in [*secrets, *codes]:
        assert secret not in text, "a secret in the server's log"
