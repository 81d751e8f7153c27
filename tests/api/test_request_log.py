"""One structured line per request; never a token, a query string or a hidden card."""

import json
import logging


def test_one_line_per_request_without_secrets(client, caplog):
    caplog.set_level(logging.INFO, logger="gruft.access")
    created = client.post("/games", json={"game": "voodoo-prince", "players": ["Ann", "Ben"]}
                          ).get_json()
    gid, token = created["game_id"], created["player_tokens"]["Ann"]
    hand = client.get(f"/games/{gid}/view", headers={"Authorization": f"Bearer {token}"}
                      ).get_json()["private"]["hand"]
    client.get(f"/games/{gid}/viewer?token={created['host_token']}")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "gruft.access"]
    assert [(line["method"], line["status"]) for line in lines[:2]] == [("POST", 201), ("GET", 200)]
    assert lines[1] == {"method": "GET", "path": f"/games/{gid}/view", "status": 200,
                        "ms": lines[1]["ms"], "game_id": gid}
    text = caplog.text
    assert token not in text and created["host_token"] not in text
    assert "token=" not in text and not any(f'"{card}"' in text for card in hand)
