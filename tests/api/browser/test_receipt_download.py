"""The play page keeps its seat's latest receipt and offers it as a download (issue 22 item 4):
the receipt of the seat's own command, then a newer one the stream brings when the host moves
for the seat; the downloaded file is the server's signed receipt of that version."""

from __future__ import annotations

import json

import pytest

from service.audit.receipts import signed_part
from service.audit.signing import check_signature
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

pytestmark = pytest.mark.browser


def test_the_play_page_offers_the_seats_latest_receipt(browser, live_site, tmp_path):
    base = live_site.base_url
    game = create(base, "voodoo-prince", seed=5)
    gid = game["game_id"]
    me = get(base, f"/games/{gid}")["to_act"][0]
    seat = open_page(browser, f"{base}/games/{gid}/play?token={game['player_tokens'][me]}", me)
    page = seat.page
    try:
        # Check no receipt is offered before the seat's first accepted command.
        assert page.is_hidden("#receipt")
        wait_until(page, lambda: bool(ready_moves(page)), what="my moves")
        page.locator(f"{READY} button[data-move]").first.click()
        wait_until(page, lambda: page.is_visible("#receipt"), what="the receipt offered")
        first = int(page.get_attribute("#receipt", "data-version"))
        # Check the host moving for this seat brings a newer receipt through the stream.
        host = game["host_token"]
        while get(base, f"/games/{gid}")["to_act"] != [me]:
            other = get(base, f"/games/{gid}")["to_act"][0]
            move = get(base, f"/games/{gid}/legal-moves?player={other}", host)["moves"][0]
            assert post(base, f"/games/{gid}/commands", {**move, "player": other}, host)[0] == 200
        move = get(base, f"/games/{gid}/legal-moves?player={me}", host)["moves"][0]
        status, answer = post(base, f"/games/{gid}/commands", {**move, "player": me}, host)
        assert status == 200
        latest = answer["receipt"]
        wait_until(page, lambda: root(page, "data-version") == str(answer["version"]),
                   what="the host's move shown")
        wait_until(page, lambda: page.get_attribute("#receipt", "data-version")
                   == str(latest["version"]), what="the newer receipt")
        assert latest["version"] > first
        # Check the download is that receipt, signed by the server's key.
        with page.expect_download() as download:
            page.click("#receipt")
        path = tmp_path / "receipt.json"
        download.value.save_as(path)
        kept = json.loads(path.read_text("utf-8"))
        assert kept == latest
        key = get(base, "/signing-key")["key"]
        assert check_signature(key, signed_part(kept), kept["signature"])
        assert seat.errors == []
    finally:
        seat.context.close()
