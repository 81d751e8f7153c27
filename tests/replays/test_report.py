"""`gruft report DOC --step n`: one self-contained HTML page to settle a dispute at a step."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path
from uuid import UUID

import pytest

from cli import main as gruft
from domain import describe_events, game_class
from domain.core import record_hash
from replays.document import unsigned
from service.audit.signing import SigningKey, key_id
from tests.kit import played_document

PLAYERS = ["Ann", "Ben", "Cy"]


def played(key: str, seed: int, signer: SigningKey, options: dict | None = None) -> dict:
    """A finished game played at random through the rules, as a signed document."""
    cls = game_class(key)
    game = cls.start(PLAYERS, seed=seed, options=options or cls.SHORT_OPTIONS, salt="5a" * 32)
    return played_document(game, random.Random(seed), signer)


def annotate(doc: dict, signer: SigningKey, notes: list[tuple[int, str, str]]) -> dict:
    """The document with the arbiter's annotations, chained as docs/api.md says, re-signed."""
    prev, out = doc["seed_commitment"], []
    for i, (version, kind, text) in enumerate(notes):
        record = {"id": f"n{i}", "version": version, "kind": kind, "text": text, "author": "host",
                  "timestamp": "2026-11-23T18:00:00+00:00",
                  "event_hash": doc["events"][version - 1]["hash"], "prev_hash": prev}
        record["hash"] = prev = record_hash(prev, record)
        out.append(record)
    doc = {**doc, "annotations": out}
    doc.pop("signature")
    doc["signature"] = {"alg": "ed25519", "key": signer.public_pem,
                        "value": signer.sign(unsigned(doc))}
    return doc


class Page(HTMLParser):
    """What the tests read of the page: texts by section, attributes, every link and source."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.sections: dict[str, list[str]] = {}
        self.elements: list[tuple[str, dict]] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag not in ("meta", "br", "link", "img", "input"):
            self.stack.append((tag, attrs))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        self.texts.append(data)
        for _, attrs in self.stack:
            if attrs.get("id"):
                self.sections.setdefault(attrs["id"], []).append(data)

    def text(self, section: str) -> str:
        return " ".join(" ".join(self.sections.get(section, [])).split())

    def having(self, tag: str, **wanted: str) -> list[dict]:
        return [a for t, a in self.elements if t == tag and all(a.get(k) == v for k, v in wanted.items())]


@pytest.fixture
def signer(tmp_path):
    return SigningKey.load_or_create(tmp_path)


def report(tmp_path: Path, doc: dict, step: int, *extra: str) -> tuple[int, str]:
    source = tmp_path / "game.json"
    source.write_text(json.dumps(doc), "utf-8")
    out = tmp_path / "report.html"
    if out.exists():
        out.unlink()
    code = gruft(["report", str(source), "--step", str(step), "--out", str(out), *extra])
    return code, out.read_text("utf-8") if out.exists() else ""


def parsed(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def test_a_report_has_every_part_and_is_self_contained(tmp_path, signer):
    doc = played("voodoo-prince", 11, signer, {"rounds": 1})
    words = describe_events("voodoo-prince", doc["events"], PLAYERS, doc["options"])
    # A card played, near the words of a ruling (a voodoo 0, a colour not followed: VP-5, VP-7)
    step = next(r["version"] for r in doc["events"][8:-8] if r["type"] == "CardPlayed"
                and any("(VP-" in w["text"] for w in words[r["version"] - 6:r["version"] + 5]))
    doc = annotate(doc, signer, [(step, "note", "Ben says <Ann> revoked & lied"),
                                 (step + 2, "ruling", "The play stands (VP-5)"),
                                 (2, "note", "far from the step")])
    pem = tmp_path / "key.pem"
    pem.write_text(signer.public_pem, "ascii")
    code, html = report(tmp_path, doc, step, "--key", str(pem))
    assert code == 0
    page = parsed(html)

    # Verification, with the key's id, checked against the trusted key
    assert page.having("section", id="verification")[0]["data-verdict"] == "valid"
    assert page.text("key-id") == key_id(signer.public_pem)
    assert page.having("span", id="signature")[0]["data-signature"] == "verified"
    assert "trusted key" in page.text("signature")

    # The table after the step from every seat: each sees their own hand, nobody another's
    cls = game_class("voodoo-prince")
    game = None
    for record in doc["events"][:step]:
        game = cls.event_from_record(UUID(doc["game_id"]), record).mutate(game)
    for player in PLAYERS:
        seat = page.having("section", **{"data-player": player})
        assert len(seat) == 1
    seats_text = page.text("table")
    for player in PLAYERS:
        for card in game.private_state(player)["hand"]:
            assert card in seats_text
    assert page.having("div", **{"class": "public"})

    # The events around it, in words, with the step marked and the rulings they cite
    rows = [int(a["data-version"]) for a in page.having("tr")
            if a.get("class", "").startswith("event")]
    assert rows == list(range(step - 5, step + 6))
    events_text = page.text("events")
    for item in words[step - 6:step + 5]:
        assert " ".join(item["text"].split()) in events_text
    assert page.having("tr", **{"data-version": str(step), "class": "event current"})
    cited = {r for w in words[step - 6:step + 5] for t in [w["text"], *w.get("seen", {}).values()]
             for r in re.findall(r"VP-\d+", t)}
    assert cited, "this window of the game cites a ruling"
    assert set(" ".join(page.sections.get("events", [])).split()) >= cited
    assert len(page.having("span", **{"class": "ruling"})) >= len(cited)

    # The annotations, as text (never markup), the ruling marked as one
    notes = page.text("annotations")
    assert "Ben says <Ann> revoked & lied" in notes and "The play stands (VP-5)" in notes
    assert "far from the step" in notes
    assert "<Ann>" not in html  # escaped in the page's source
    assert page.having("tr", **{"class": "kind-ruling", "data-version": str(step + 2)})

    # Self-contained: no script, no external source or link, style inline
    assert not page.having("script") and not page.having("link")
    for _, attrs in page.elements:
        for name in ("src", "href"):
            assert not str(attrs.get(name, "")).startswith(("http:", "https:", "//")), attrs
    assert page.having("style") is not None and "<style>" in html


def test_without_a_trusted_key_the_report_says_the_signature_was_not_checked(tmp_path, signer):
    doc = played("vampire-queen", 3, signer)
    code, html = report(tmp_path, doc, 4)
    assert code == 2  # as gruft verify: unverified
    page = parsed(html)
    assert page.having("section", id="verification")[0]["data-verdict"] == "unverified"
    assert "NOT checked against a trusted key" in page.text("signature")
    assert page.text("key-id") == key_id(signer.public_pem)
    assert "made no annotation" in page.text("annotations")


def test_an_edited_document_is_reported_invalid_and_still_shown(tmp_path, signer):
    doc = played("vampir", 5, signer)
    edited = json.loads(json.dumps(doc))
    moved = next(r for r in edited["events"] if r["type"] == "Discarded")
    other = "castle" if moved["data"]["location"] != "castle" else "pub"
    moved["data"]["location"] = other
    code, html = report(tmp_path, edited, moved["version"])
    assert code == 1
    page = parsed(html)
    assert page.having("section", id="verification")[0]["data-verdict"] == "invalid"
    assert f"version {moved['version']}" in page.text("verification")
    assert page.text("events")  # the events are told regardless


def test_every_game_reports_every_seat(tmp_path, signer):
    for key in ("vampiring", "vampire-queen"):
        doc = played(key, 8, signer)
        step = len(doc["events"]) // 2
        code, html = report(tmp_path, doc, step)
        assert code == 2
        page = parsed(html)
        assert [a["data-player"] for a in page.having("section") if "data-player" in a] == PLAYERS


def test_a_bad_step_or_file_writes_nothing(tmp_path, signer, capsys):
    doc = played("vampire-queen", 3, signer)
    code, html = report(tmp_path, doc, len(doc["events"]) + 1)
    assert code == 2 and html == ""
    assert "--step must be" in capsys.readouterr().err
    code, html = report(tmp_path, {"format": "nonsense"}, 1)
    assert code == 2 and html == ""
    code, html = report(tmp_path, {**doc, "game": "no-such-game"}, 1)
    assert code == 2 and html == ""
    # An unknown game whose events also carry a bad timestamp: still no document (2), never a
    # traceback (the shape check, the document's schema, names the game it does not know).
    events = [dict(e) for e in doc["events"]]
    events[3]["timestamp"] = "garbage"
    code, html = report(tmp_path, {**doc, "game": "no-such-game", "events": events}, 1)
    assert code == 2 and html == ""
    assert '"no-such-game" is not one of' in capsys.readouterr().err
