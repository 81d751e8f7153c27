"""Headers (issue 23, item 7): every answer says nosniff; /docs has a Content-Security-Policy
that forbids framing. The probe found neither."""

from __future__ import annotations

from tests.api.test_contract import bearer, create


def test_every_json_answer_says_nosniff(client):
    created = create(client, seed=1)
    game = f"/games/{created['game_id']}"
    answers = [client.get(game), client.get("/games"), client.get("/openapi.json"),
               client.get("/games/nope"), client.post(game + "/commands", json={"x": 1},
                                                      headers=bearer(created["host_token"])),
               client.delete("/games"), client.post("/replays/verify", data=b"[",
                                                    content_type="application/json")]
    for answer in answers:
        # Check each, refusals included, is JSON that no browser may sniff as something else.
        assert answer.mimetype == "application/json", answer
        assert answer.headers["X-Content-Type-Options"] == "nosniff", answer


def test_the_docs_page_has_a_policy_and_may_not_be_framed(client):
    answer = client.get("/docs")
    assert answer.status_code == 200
    policy = dict(part.strip().split(" ", 1) for part in
                  answer.headers["Content-Security-Policy"].split(";"))
    # Check nothing frames it, and it runs only the server's own scripts (none inline).
    assert policy["frame-ancestors"] == "'none'"
    assert policy["default-src"] == "'none'" and policy["script-src"] == "'self'"
    assert "<script>" not in answer.get_data(as_text=True)
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/docs/start.js").status_code == 200
