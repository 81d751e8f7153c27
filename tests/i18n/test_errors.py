"""Errors in the reader's language (issue 25): the `message` of every JSON error is translated,
while `code`, `rule` and the JSON keys are the same in every language; and every error the
Python code raises carries a marked template, so the catalogs can translate it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from api.holds import POLL, STREAM, Holds
from api.i18n import LANGUAGES, error_text
from domain.core.json_words import DECODER, decode_problem
from domain.core.words import N_, Phrase
from service.catalogs import translations

ROOT = Path(__file__).resolve().parents[2]


def create(client, key: str, players: list[str], **extra) -> dict:
    body = {"game": key, "players": players, "seed": 5, **extra}
    answer = client.post("/games", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def refuse(client, game: dict, command: dict, lang: str | None, player: str) -> tuple[int, dict]:
    headers = {"Authorization": f"Bearer {game['player_tokens'][player]}"}
    if lang:
        headers["Accept-Language"] = lang
    answer = client.post(f"/games/{game['game_id']}/commands", json=command, headers=headers)
    return answer.status_code, answer.get_json()


def vampire_queen(client):
    game = create(client, "vampire-queen", ["Ann", "Ben", "Cy"])
    return game, {"type": "pass"}, game["view"]["to_act"][0], "VQ-4"  # the start player leads


def voodoo_prince(client):
    game = create(client, "voodoo-prince", ["Ann", "Ben"])
    # In round 1 trump is drawn, not chosen (the refusal names the colour: a word translated).
    return game, {"type": "choose_trump", "trump": "R"}, game["view"]["to_act"][0], "VP-2"


def vampir(client):
    game = create(client, "vampir", ["Ann", "Ben", "Cy"])
    return game, {"type": "discard", "card": "W"}, game["view"]["to_act"][0], "VA-2"


def vampiring(client):
    game = create(client, "vampiring", ["Ann", "Ben"])
    move = {"type": "move", "metamorphosis": "a", "direction": "cw"}
    code, _ = refuse(client, game, move, None, "Ann")
    assert code == 200
    return game, move, "Ann", "VR-4"  # a move is final: a second one is refused


@pytest.mark.parametrize("setup", [vampire_queen, voodoo_prince, vampir, vampiring],
                         ids=lambda f: f.__name__)
def test_a_refusal_in_every_language(client, setup) -> None:
    game, command, player, rule = setup(client)
    # Check the English answer first: no language asked.
    status, english = refuse(client, game, command, None, player)
    assert status == 422 and english["error"]["rule"] == rule
    version = client.get(f"/games/{game['game_id']}").get_json()["version"]
    messages = {"en": english["error"]["message"]}
    for lang in LANGUAGES[1:]:
        # Fail the same command in each language: the same code, rule and keys; its words.
        again, answer = refuse(client, game, command, f"{lang};q=0.9, en;q=0.5", player)
        assert again == status
        assert answer.keys() == english.keys() and answer["error"].keys() == english["error"].keys()
        assert answer["error"]["code"] == english["error"]["code"]
        assert answer["error"]["rule"] == rule
        messages[lang] = answer["error"]["message"]
    assert len(set(messages.values())) == len(LANGUAGES), messages
    # Check nothing changed, and ?lang= says the same as Accept-Language.
    assert client.get(f"/games/{game['game_id']}").get_json()["version"] == version
    headers = {"Authorization": f"Bearer {game['player_tokens'][player]}"}
    by_parameter = client.post(f"/games/{game['game_id']}/commands?lang=de", json=command,
                               headers=headers).get_json()
    assert by_parameter["error"]["message"] == messages["de"]


def test_words_of_the_game_are_translated_inside_a_refusal(client) -> None:
    game, command, player, _ = voodoo_prince(client)
    trump = game["view"]["state"]["trump"]
    colours = {"R": ("red", "Rot"), "B": ("blue", "Blau"), "G": ("green", "Grün"),
               "Y": ("yellow", "Gelb"), "P": ("purple", "Lila")}
    english, german = colours[trump]
    assert english in refuse(client, game, command, None, player)[1]["error"]["message"]
    said = refuse(client, game, command, "de", player)[1]["error"]["message"]
    assert said.startswith("In Runde 1 wird Trumpf aufgedeckt") and english not in said
    assert german in said


def test_service_and_validation_errors_are_translated(client) -> None:
    # Check a missing game (a service error) in French and in English.
    gone = client.get("/games/00000000-0000-4000-8000-000000000000",
                      headers={"Accept-Language": "fr"})
    assert gone.status_code == 404 and gone.get_json()["error"]["code"] == "not_found"
    assert gone.get_json()["error"]["message"].startswith("aucune partie")
    assert client.get("/games/00000000-0000-4000-8000-000000000000").get_json()[
        "error"]["message"].startswith("no game")
    # Fail to create a game with a body marshmallow refuses: its messages in Italian.
    bad = client.post("/games?lang=it", json={"game": "chess", "players": ["Ann"], "x": 1})
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "bad_request"
    message = bad.get_json()["error"]["message"]
    assert "Campo sconosciuto." in message and "Deve essere uno di:" in message
    assert "game" in message and "x" in message  # the fields keep their names
    # Check an unknown route's answer is translated too (werkzeug's own description).
    lost = client.get("/no/such/page", headers={"Accept-Language": "es"})
    assert lost.status_code == 404 and lost.get_json()["error"]["message"].startswith("La URL")


def test_an_english_client_reads_what_it_read_before(client) -> None:
    # Check the English messages are the original sentences, word for word.
    game, command, player, _ = vampire_queen(client)
    message = refuse(client, game, command, None, player)[1]["error"]["message"]
    assert message == f"{player} is the start player and must lead; only later players may pass."


# -- every error raised in Python carries a marked template ----------------------------------

ERRORS = {"Refusal": 1, "NotYourTurn": 1, "GameFinished": 1, "BadCommand": 0, "BadSetup": 0,
          "Aborted": 0, "Unauthorized": 0, "Forbidden": 0, "GameNotFound": 0, "Conflict": 0}
SOURCES = ["domain", "service", "api", "replays"]


def unmarked_errors(source: str) -> list[int]:
    """Lines where an error of the domain or service is made with a message not in N_(…)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in ERRORS and len(node.args) > ERRORS[node.func.id]):
            message = node.args[ERRORS[node.func.id]]
            if isinstance(message, ast.Constant | ast.JoinedStr | ast.BinOp) or isinstance(message, ast.Call) and not (
                    isinstance(message.func, ast.Name) and message.func.id == "N_"):
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("folder", SOURCES)
def test_every_error_message_is_marked(folder: str) -> None:
    # Check each error raised under the folder says a marked template, not a made-up string.
    found = {str(path.relative_to(ROOT)): unmarked_errors(path.read_text())
             for path in sorted((ROOT / folder).rglob("*.py"))}
    unmarked = {path: lines for path, lines in found.items() if lines}
    assert not unmarked, f"errors whose message is not N_(…): {unmarked}"


def test_the_error_check_finds_unmarked_messages() -> None:
    assert unmarked_errors('raise Refusal("VQ-4", f"{p} must lead")') == [1]
    assert unmarked_errors('raise BadCommand("a plain string")') == [1]
    assert unmarked_errors('raise Refusal("VQ-4", N_("%(p)s must lead"), p=p)') == []
    assert unmarked_errors("raise Refusal(rule, refusal, player=player)") == []


def test_a_body_the_server_cannot_read_is_refused_in_the_readers_language(client):
    # A key twice in one object (issue 22's strict reading): the same 400 and code in every
    # language, the message in the reader's; the key itself as it was sent.
    body = b'{"game": "vampir", "game": "vampiring", "players": ["A", "B", "C"]}'
    answers = {lang: client.post(f"/games?lang={lang}", data=body,
                                 content_type="application/json") for lang in ("en", "de", "fr")}
    assert {a.status_code for a in answers.values()} == {400}
    assert len({a.get_json()["error"]["code"] for a in answers.values()}) == 1
    messages = {lang: a.get_json()["error"]["message"] for lang, a in answers.items()}
    assert messages["en"] == ("Invalid JSON body: the key 'game' appears twice in one object")
    assert messages["de"] == ("Ungültiger JSON-Inhalt: der Schlüssel 'game' kommt in einem "
                              "Objekt zweimal vor")
    assert messages["fr"].startswith("Corps JSON invalide : la clé 'game'")


# -- Python's JSON reader and the document's JSON Schema, in the reader's language -----------

# Bodies Python's reader stops at, each for another of its messages.
UNREADABLE = ['{"game" "vampir"}', '{"game": "vampir" "players": []}', '{"game": "vampir",}',
              '{game: 1}', '["A", "B"', '{"game": "vam', '{"game": "a\tb"}', '{"game": "\\q"}',
              '{"game": "\\u12"}', '{} {}']


def json_error(body: str) -> json.JSONDecodeError:
    with pytest.raises(json.JSONDecodeError, match=r"line 1 column \d+") as caught:
        json.loads(body)
    return caught.value


@pytest.mark.parametrize("body", UNREADABLE)
def test_python_s_json_complaint_in_every_language(client, body: str) -> None:
    python = json_error(body)
    answers = {lang: client.post(f"/games?lang={lang}", data=body.encode(),
                                 content_type="application/json") for lang in LANGUAGES}
    # The same 400, code and keys in every language; English: Python's own words, as before.
    assert {a.status_code for a in answers.values()} == {400}
    errors = {lang: a.get_json()["error"] for lang, a in answers.items()}
    assert {tuple(e) for e in errors.values()} == {("code", "message")}
    assert {e["code"] for e in errors.values()} == {"bad_request"}
    assert errors["en"]["message"] == f"Invalid JSON body: {python}"
    # ... and in each other language, its words, where it stopped as numbers.
    for lang in LANGUAGES[1:]:
        message = errors[lang]["message"]
        assert python.msg.split(":")[0] not in message, (lang, message)
        assert f" {python.lineno} " in message and f" {python.colno} " in message
        assert message.endswith(f" {python.pos})")
    assert len({e["message"] for e in errors.values()}) == len(LANGUAGES)


def test_python_s_json_complaint_word_for_word() -> None:
    german = translations("de").gettext
    said = Phrase(N_("Invalid JSON body: %(problem)s"),
                  problem=decode_problem(json_error('{"a": 1 "b": 2}'))).said(german)
    assert said == "Ungültiger JSON-Inhalt: Trennzeichen ',' erwartet: Zeile 1 Spalte 9 (Zeichen 8)"
    french = decode_problem(json_error('[1, 2')).said(translations("fr").gettext)
    assert french == "séparateur ',' attendu : ligne 1 colonne 6 (caractère 5)"


@pytest.mark.parametrize("msg", [*DECODER, "Invalid control character '\\x01' at",
                                 "Invalid \\escape: 'q'"])
def test_every_message_of_python_s_reader_is_listed(msg: str) -> None:
    # Check each of the messages CPython's reader has (3.11 .. 3.14, C and Python) is said in
    # Python's English word for word, and in another language; where it stopped the same.
    python = json.JSONDecodeError(msg, "[\n 1,\n  2 x", 10)
    problem = decode_problem(python)
    if msg in DECODER:
        assert str(problem) == str(python)
    assert problem.template in DECODER.values()
    for lang in LANGUAGES[1:]:
        said = problem.said(translations(lang).gettext)
        assert said != str(problem), (lang, said)
        assert f" {python.lineno} " in said and f" {python.colno} " in said
        assert said.endswith(f" {python.pos})")


def test_a_message_python_may_add_later_is_said_with_its_words() -> None:
    python = json.JSONDecodeError("Something new", '{"a":\n 1}', 7)
    problem = decode_problem(python)
    assert str(problem) == "the JSON text cannot be read (Something new): line 2 column 2 (char 7)"
    said = problem.said(translations("it").gettext)
    assert said == ("il testo JSON non è leggibile (Something new): riga 2 colonna 2 "
                    "(carattere 7)")


def test_the_last_plain_english_of_a_bad_request_is_translated_too(client) -> None:
    # A NUL in the address (api.inputs), a clock's bank that is not a number (api.schemas).
    nul = {lang: client.get(f"/games?lang={lang}&player=a%00b") for lang in ("en", "de")}
    assert {a.status_code for a in nul.values()} == {400}
    assert nul["en"].get_json()["error"] == {"code": "bad_request",
                                             "message": "the URL holds a NUL byte (%00)"}
    assert nul["de"].get_json()["error"] == {"code": "bad_request",
                                             "message": "die URL enthält ein NUL-Byte (%00)"}
    body = {"game": "vampir", "players": ["A", "B", "C"], "clock": {"bank": "x", "increment": 1}}
    clocks = {lang: client.post(f"/games?lang={lang}", json=body) for lang in ("en", "fr")}
    assert {a.status_code for a in clocks.values()} == {400}
    assert "a number of seconds" in clocks["en"].get_json()["error"]["message"]
    assert "un nombre de secondes" in clocks["fr"].get_json()["error"]["message"]
    assert "clock.bank" in clocks["fr"].get_json()["error"]["message"]


def test_a_busy_verifier_answers_in_the_readers_language(app, client) -> None:
    # Past an address's share (429) and past the worker's (503): the same status and code in
    # every language, the words the reader's; English as before.
    body = json.dumps(json.loads((ROOT / "tests/replays/golden/vampir.json").read_text())).encode()
    gate = app.extensions["gruft"].verifier.gate

    def refused(lang: str) -> tuple[int, dict]:
        answer = client.post(f"/replays/verify?lang={lang}", data=body,
                             content_type="application/json")
        return answer.status_code, answer.get_json()["error"]

    with gate.slot("127.0.0.1"):
        said = {lang: refused(lang) for lang in ("en", "de")}
    assert said["en"] == (429, {"code": "rate_limited", "message": (
        "this address is verifying 1 document(s) already; send the next when one is answered")})
    assert said["de"] == (429, {"code": "rate_limited", "message": (
        "diese Adresse lässt schon 1 Dokument(e) prüfen; schicke das nächste, wenn eines "
        "beantwortet ist")})
    others = [gate.slot(f"10.0.0.{i}") for i in range(gate.capacity)]
    for slot in others:
        slot.__enter__()
    try:
        said = {lang: refused(lang) for lang in ("en", "fr")}
    finally:
        for slot in others:
            slot.__exit__(None, None, None)
    assert said["en"] == (503, {"code": "unavailable", "message": (
        "the server is verifying as many documents as it takes at once; nothing was done, "
        "try again")})
    assert said["fr"][0] == 503 and said["fr"][1]["code"] == "unavailable"
    assert said["fr"][1]["message"].startswith("le serveur vérifie déjà autant de documents")


@pytest.mark.parametrize("kind", [STREAM, POLL])
def test_a_worker_holding_its_share_of_streams_answers_in_the_readers_language(app,
                                                                              kind) -> None:
    holds = Holds()
    for lang in ("en", "it"):
        with app.test_request_context(f"/?lang={lang}"):
            with pytest.raises(TooManyRequests, match=f"this address holds 0 {kind}s open") as share:
                holds.take(kind, "10.0.0.1", None, 0)
            with pytest.raises(ServiceUnavailable, match="this worker holds as many streams and "
                                                         "long polls as it may") as worker:
                holds.take(kind, "10.0.0.1", 0, None)
            said = error_text(share.value.description), error_text(worker.value.description)
        if lang == "en":
            assert said[0] == (f"this address holds 0 {kind}s open on this worker already, as "
                               "many as one address may; close one or try again later")
            assert said[1] == ("this worker holds as many streams and long polls as it may; "
                               "try again shortly")
        else:
            assert said[0].startswith("questo indirizzo tiene già aperti 0 ")
            assert said[1].startswith("questo worker tiene aperti")
