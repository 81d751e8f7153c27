"""A submitted move is final and secret until the turn resolves (VR-4): views, events, REST."""

from __future__ import annotations

import json

from domain.core import HOST, SPECTATOR, Viewer, event_data

from .kit import command, ring, table

TRIO = ["Blue", "Red", "Yellow"]
SAMPLE = {0: "home:Blue", 6: "home:Red", 13: "home:Yellow"}


def shown_events(t, viewer):
    return [t.game.redact(type(e).__name__, event_data(e), viewer) for e in t.events]


def test_vr4_no_view_and_no_event_shows_a_pending_move_to_anybody_else():
    t = table(TRIO, SAMPLE)
    others = [SPECTATOR, Viewer(player="Red"), Viewer(player="Yellow")]
    before = {v.describe(): t.game.view(v) for v in others}
    # Check Blue submits a move
    t.act("Blue", command("b ccw"))
    # Check every other viewer's view changed only in version, to_act and who submitted
    for viewer in others:
        now = t.game.view(viewer)
        was = before[viewer.describe()]
        assert now["state"]["submitted"] == ["Blue"] and now["to_act"] == ["Red", "Yellow"]
        for key in ("version", "to_act"):
            now.pop(key), was.pop(key)
        now["state"].pop("submitted"), was["state"].pop("submitted")
        assert now == was
    # Check the MoveSubmitted event shows only who submitted to every other viewer
    for viewer in others:
        assert shown_events(t, viewer)[-1] == {"player": "Blue"}
        assert "ccw" not in json.dumps(shown_events(t, viewer))
    # Check Blue, and the host, see Blue's move
    blue = Viewer(player="Blue")
    assert t.game.view(blue)["private"] == {"move": {"metamorphosis": "b", "direction": "ccw"}}
    assert shown_events(t, blue)[-1] == {"player": "Blue", "metamorphosis": "b",
                                         "direction": "ccw"}
    assert shown_events(t, HOST)[-1]["direction"] == "ccw"
    assert t.game.full_state()["pending"] == {"Blue": {"metamorphosis": "b", "direction": "ccw"}}
    # Check Red's and Yellow's own pending moves are not in Blue's view either
    t.act("Red", command("a cw"))
    assert t.game.view(blue)["private"] == {"move": {"metamorphosis": "b", "direction": "ccw"}}
    assert shown_events(t, blue)[-1] == {"player": "Red"}
    # Check the resolution, once the last move is in, shows every move to everybody
    t.act("Yellow", command("a ccw"))
    resolved = shown_events(t, SPECTATOR)[-1]
    assert resolved["moves"] == {"Blue": {"metamorphosis": "b", "direction": "ccw"},
                                 "Red": {"metamorphosis": "a", "direction": "cw"},
                                 "Yellow": {"metamorphosis": "a", "direction": "ccw"}}
    assert t.game.view(SPECTATOR)["state"]["last_turn"]["moves"] == resolved["moves"]
    assert t.game.view(blue)["private"] == {"move": None}


def test_vr4_no_rest_endpoint_reveals_a_pending_move(client):
    created = client.post("/games", json={"game": "vampiring", "players": TRIO, "seed": 9,
                                          "deal": ring(TRIO, SAMPLE)})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    game_id = body["game_id"]
    auth = {p: {"Authorization": f"Bearer {tok}"} for p, tok in body["player_tokens"].items()}
    host = {"Authorization": f"Bearer {body['host_token']}"}
    # Everything a spectator, Red, Yellow, or the host looking at Red's seat can ask for
    lookers = {"spectator": ({}, ""), "Red": (auth["Red"], ""), "Yellow": (auth["Yellow"], ""),
               "host as Red": (host, "?player=Red")}
    paths = ["", "/view", "/legal-moves", "/events", "/replay/3", "/export"]

    def look():
        seen = {}
        for who, (headers, query) in lookers.items():
            for path in paths:
                if who == "host as Red" and path in ("/events", "/replay/3", "/export"):
                    continue  # the host's own log, replay and export show all, by design
                url = f"/games/{game_id}{path}{query if path in ('/view', '/legal-moves') else ''}"
                reply = client.get(url, headers=headers)
                seen[who, path] = (reply.status_code, reply.get_json())
            reply = client.get("/games?game=vampiring", headers=headers)
            seen[who, "/games"] = (reply.status_code, reply.get_json())
        return seen

    before = look()
    # Check Blue submits; the answer shows Blue its own move
    answer = client.post(f"/games/{game_id}/commands", headers=auth["Blue"],
                         json={"type": "move", "metamorphosis": "b", "direction": "ccw"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["events"][-1]["data"]["direction"] == "ccw"
    after = look()
    # Check every answer to every other looker is what it was, but for the version, who is
    # to act, who submitted, and one more event that names only the player
    for key, (status, now) in after.items():
        was_status, was = before[key]
        assert status == was_status, key
        if key[1] in ("/replay/3", "/export"):
            assert status in (401, 403), key  # closed until the end (or to spectators)
            continue
        if key[1] != "/legal-moves":
            text = json.dumps(now)
            assert "metamorphosis" not in text and "ccw" not in text, key
        if key[1] in ("", "/view"):
            assert now.pop("version") == was.pop("version") + 1
            assert now.pop("to_act") == ["Red", "Yellow"] and was.pop("to_act") == TRIO
            assert now["state"].pop("submitted") == ["Blue"] and was["state"].pop("submitted") == []
        elif key[1] == "/events":
            new = now["events"].pop()
            assert (new["type"], new["data"]) == ("MoveSubmitted", {"player": "Blue"})
        elif key[1] == "/games":
            for summary in now["games"] + was["games"]:
                summary.pop("version")
        assert now == was, key
    # Fail to submit again for Blue: the refusal cites VR-4 and names no move
    again = client.post(f"/games/{game_id}/commands", headers=auth["Blue"],
                        json={"type": "move", "metamorphosis": "a", "direction": "cw"})
    assert again.status_code == 422 and again.get_json()["error"]["rule"] == "VR-4"
    assert "ccw" not in again.get_data(as_text=True)
    # Check the host acting for Red and Yellow itself complete the turn; then all is public
    assert client.post(f"/games/{game_id}/commands", headers=host,
                       json={"type": "move", "metamorphosis": "a", "direction": "cw",
                             "player": "Red"}).status_code == 200
    last = client.post(f"/games/{game_id}/commands", headers=auth["Yellow"],
                       json={"type": "move", "metamorphosis": "a", "direction": "cw"})
    assert [e["type"] for e in last.get_json()["events"]] == ["MoveSubmitted", "TurnResolved"]
    events = client.get(f"/games/{game_id}/events").get_json()["events"]
    assert events[-1]["data"]["moves"]["Blue"] == {"metamorphosis": "b", "direction": "ccw"}
