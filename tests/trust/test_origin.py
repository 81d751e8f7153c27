"""Who annotated, and whose game it is (issue 22 item 2): annotations carry their author's name;
a re-imported copy carries its `origin`, and what is annotated on the copy is never presented as
the original's — in the document, the viewer page and `gruft report`."""

from __future__ import annotations

import copy
import json
import random

import pytest

from cli import main as gruft
from replays.document import made_on_copy
from tests.kit import SHORT_OPTIONS, play_over_rest, seats

VOID = "The result above is void, Cy is awarded the game."


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def original(client):
    """A finished Vampir game whose arbiter, Olga, made one ruling: its creation answer."""
    created = client.post("/games", json={"game": "vampir", "players": seats("vampir"),
                                          "seed": 3, "options": SHORT_OPTIONS["vampir"]}).get_json()
    play_over_rest(client, created, random.Random(3))
    answer = client.post(f"/games/{created['game_id']}/annotations", headers=bearer(
        created["host_token"]), json={"version": 2, "kind": "ruling", "text": "Deal checked.",
                                      "author": "Olga"})
    assert answer.status_code == 201
    return created


def test_an_annotation_carries_its_authors_name(client, original):
    gid, host = original["game_id"], bearer(original["host_token"])
    (ruling,) = client.get(f"/games/{gid}/annotations").get_json()["annotations"]
    assert ruling["author"] == "Olga" and ruling["game_id"] == gid
    # Check the host by default, and a name seated as players' are (trimmed).
    note = client.post(f"/games/{gid}/annotations", headers=host,
                       json={"version": 3, "text": "A note."}).get_json()
    assert note["author"] == "host"
    named = client.post(f"/games/{gid}/annotations", headers=host,
                        json={"version": 3, "text": "Another.", "author": "  Pia "}).get_json()
    assert named["author"] == "Pia"
    # Fail an author who is no name: 400, nothing stored.
    before = client.get(f"/games/{gid}/annotations").get_json()
    for author in ("", "x" * 41, "Bad\u0000name", "Zero\u200bwidth", 7):
        answer = client.post(f"/games/{gid}/annotations", headers=host,
                             json={"version": 3, "text": "No.", "author": author})
        assert answer.status_code == 400, author
    assert client.get(f"/games/{gid}/annotations").get_json() == before
    # Check the export carries the names, chained and signed: it verifies, an edit does not.
    doc = client.get(f"/games/{gid}/export").get_json()
    assert [a["author"] for a in doc["annotations"]] == ["Olga", "host", "Pia"]
    verdict = client.post("/replays/verify", json=doc).get_json()
    assert verdict["valid"], verdict
    edited = copy.deepcopy(doc)
    edited["annotations"][0]["author"] = "Mallory"
    assert not client.post("/replays/verify", json=edited).get_json()["valid"]


def test_a_ruling_made_on_a_copy_is_never_the_originals(client, original, tmp_path):
    gid = original["game_id"]
    document = client.get(f"/games/{gid}/export").get_json()
    # Mallory imports Ann's finished game, hosts the copy and rules the result void, as "Olga".
    copied = client.post("/games/import", json=document).get_json()
    cid = copied["game_id"]
    assert client.post(f"/games/{cid}/annotations", headers=bearer(copied["host_token"]),
                       json={"version": document["events"][-1]["version"], "kind": "ruling",
                             "text": VOID, "author": "Olga"}).status_code == 201
    export = client.get(f"/games/{cid}/export").get_json()
    # Check the copy's document names its origin and tells its own ruling from the original's.
    signer = client.get("/signing-key").get_json()["key_id"]
    assert export["origin"] == {"game_id": gid, "key_id": signer}
    olgas, void = export["annotations"]
    assert olgas["game_id"] == gid and not made_on_copy(export, olgas)
    assert void["game_id"] == cid and made_on_copy(export, void)
    assert client.post("/replays/verify", json=export).get_json()["valid"]
    # Fail to pass the void ruling off as the original's: moving it to the original's game id
    # breaks the annotations' chain, dropping the origin breaks the signature.
    moved = copy.deepcopy(export)
    moved["annotations"][1]["game_id"] = gid
    verdict = client.post("/replays/verify", json=moved).get_json()
    assert "annotation_broken" in {p["code"] for p in verdict["problems"]}
    dropped = copy.deepcopy(export)
    dropped.pop("origin")
    assert client.post("/replays/verify", json=dropped).get_json()["signature"] == "invalid"
    # Check the original's own record is untouched: one ruling, no origin.
    assert "origin" not in client.get(f"/games/{gid}/export").get_json()
    assert len(client.get(f"/games/{gid}/annotations").get_json()["annotations"]) == 1
    # Check the viewer page says it is a copy and marks the copy's own ruling.
    page = client.get(f"/games/{cid}/viewer").get_data(as_text=True)
    assert 'id="origin"' in page and f'data-game-id="{gid}"' in page
    data = json.loads(page.split('id="viewer-data">', 1)[1].split("</script>", 1)[0])
    assert data["origin"]["game_id"] == gid
    assert [n["game_id"] for n in data["annotations"]] == [gid, cid]
    # Check gruft report says so too, marking the copy's ruling and not the original's.
    source, out = tmp_path / "copy.json", tmp_path / "report.html"
    source.write_text(json.dumps(export), "utf-8")
    gruft(["report", str(source), "--step", "3", "--out", str(out)])
    html = out.read_text("utf-8")
    assert 'id="origin"' in html and gid in html
    rows = html.split('<section id="annotations">', 1)[1].split("<tr ")[1:]
    assert "made on this copy" not in rows[0] and "made on this copy" in rows[1]
    assert VOID in rows[1]


def test_a_copy_of_a_copy_keeps_the_whole_origin(client, original):
    document = client.get(f"/games/{original['game_id']}/export").get_json()
    first = client.post("/games/import", json=document).get_json()
    again = client.get(f"/games/{first['game_id']}/export").get_json()
    second = client.post("/games/import", json=again).get_json()
    export = client.get(f"/games/{second['game_id']}/export").get_json()
    assert export["origin"]["game_id"] == first["game_id"]
    assert export["origin"]["origin"]["game_id"] == original["game_id"]
