"""Replay verification's problems in the reader's language (issue 25): POST /replays/verify,
the 422 of POST /games/import and `gruft report --lang` say each problem in the reader's
language, while its version and code (and the verdict's other fields) are the same in every
language, and the English is word for word what it was before it was translatable."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import jsonschema_rs
import pytest

from cli import main as gruft
from replays.document import describe, verify
from replays.report import Words, render
from replays.schema_words import KINDS, schema_words, shown
from service.audit.signing import check_signature
from service.catalogs import LANGUAGES, translations

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "replays" / "golden" / "vampire-queen.json"
SIGNATURE_INVALID = (None, "signature_invalid",
                     "the signature does not match the document: something was changed after "
                     "export")


def drop(doc: dict) -> None:
    del doc["events"][83]  # the refusal the re-run meets is a ruling's (VQ-1), translated too


def by_nobody(doc: dict) -> None:
    doc["events"][2]["by"] = "nobody"


def no_result(doc: dict) -> None:
    doc["final"] = {"scores": {}, "winners": []}


# What verification said of these forgeries of the golden document, before its problems were
# translatable (word for word): the English must not change.
FORGERIES = {
    drop: [SIGNATURE_INVALID,
           (84, "chain_broken",
            "event 84 carries version 85: an event was dropped, inserted or reordered"),
           (84, "illegal_move", "It is not Dee's turn; waiting for Cy. (VQ-1)")],
    by_nobody: [SIGNATURE_INVALID,
                (3, "chain_broken", "by is one of seat, host, bot, clock, server"),
                (3, "by_mismatch",
                 "Played is recorded by 'nobody'; it can only be by 'seat' or 'host' or 'bot'")],
    no_result: [SIGNATURE_INVALID,
                (166, "final_mismatch",
                 'the final result says {"scores":{},"winners":[]}, the rules give {"scores":'
                 '{"Ann":95,"Ben":4,"Cy":18,"Dee":37},"winners":["Ben"]}')],
}
forgeries = pytest.mark.parametrize("forge", list(FORGERIES), ids=lambda f: f.__name__)


def forged(forge) -> dict:
    doc = copy.deepcopy(json.loads(GOLDEN.read_text("utf-8")))
    forge(doc)
    return doc


def offline(doc: dict):
    return verify(doc, trusted_keys=[doc["signature"]["key"]], check_signature=check_signature)


def triples(problems: list[dict]) -> list[tuple]:
    return [(p["version"], p["code"], p["message"]) for p in problems]


@forgeries
def test_the_english_is_unchanged(forge) -> None:
    verdict = offline(forged(forge))
    assert triples(verdict.problems) == FORGERIES[forge]
    assert triples(verdict.as_json()["problems"]) == FORGERIES[forge]


@forgeries
@pytest.mark.parametrize("lang", ["de", "fr", "it", "es"])
def test_every_problem_is_said_in_every_language(forge, lang) -> None:
    verdict = offline(forged(forge))
    english, said = verdict.as_json(), verdict.as_json(translations(lang).gettext)
    # Check the same verdict: its keys, fields and every problem's version and code.
    assert said.keys() == english.keys()
    assert {k: v for k, v in said.items() if k != "problems"} == {
        k: v for k, v in english.items() if k != "problems"}
    assert [(p["version"], p["code"]) for p in said["problems"]] == [
        (p["version"], p["code"]) for p in english["problems"]]
    # ... each message in the language, none left English (type() excludes a lazy str).
    for ours, theirs in zip(said["problems"], english["problems"], strict=True):
        assert type(ours["message"]) is str and ours["message"] != theirs["message"]


def test_a_nested_message_is_translated_with_its_problem() -> None:
    # The refusal a re-run meets, and the event's words around it, both in German.
    problems = offline(forged(drop)).as_json(translations("de").gettext)["problems"]
    assert problems[1]["message"] == ("Ereignis 84 trägt die Version 85: ein Ereignis wurde "
                                      "entfernt, eingefügt oder umgestellt")
    refusal = problems[2]["message"]
    assert refusal.endswith(" (VQ-1)") and "Dee" in refusal and "Cy" in refusal
    assert refusal != FORGERIES[drop][2][2]


def post_verify(client, doc: dict, lang: str | None = None, header: str | None = None) -> dict:
    headers = {"Accept-Language": header} if header else {}
    url = "/replays/verify" + (f"?lang={lang}" if lang else "")
    answer = client.post(url, json=doc, headers=headers)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


@forgeries
def test_the_verify_endpoint_answers_in_the_readers_language(client, forge) -> None:
    doc = forged(forge)
    english = post_verify(client, doc)
    # Check a client that names no language reads the English, word for word.
    assert triples(english["problems"]) == FORGERIES[forge]
    german = post_verify(client, doc, lang="de")
    french = post_verify(client, doc, header="fr-CH, fr;q=0.9, en;q=0.5")
    for said in (german, french):
        assert said.keys() == english.keys()
        assert {k: v for k, v in said.items() if k != "problems"} == {
            k: v for k, v in english.items() if k != "problems"}
        assert [(p.keys(), p["version"], p["code"]) for p in said["problems"]] == [
            (p.keys(), p["version"], p["code"]) for p in english["problems"]]
    messages = zip(english["problems"], german["problems"], french["problems"], strict=True)
    for en, de, fr in messages:
        assert len({en["message"], de["message"], fr["message"]}) == 3
    assert german["problems"][0]["message"] == ("die Signatur passt nicht zum Dokument: nach "
                                                "dem Export wurde etwas geändert")


def test_an_import_is_refused_in_the_readers_language(client) -> None:
    doc = forged(drop)
    listed = client.get("/games").get_json()["games"]
    refusals = {lang: client.post("/games/import" + (f"?lang={lang}" if lang else ""), json=doc)
                for lang in (None, "de", "it")}
    assert {r.status_code for r in refusals.values()} == {422}
    errors = {lang: r.get_json()["error"] for lang, r in refusals.items()}
    assert {e["code"] for e in errors.values()} == {"invalid_replay"}
    assert {tuple(e) for e in errors.values()} == {tuple(errors[None])}
    assert errors[None]["message"] == "document: " + SIGNATURE_INVALID[2]
    assert errors["de"]["message"] == ("Dokument: die Signatur passt nicht zum Dokument: nach "
                                       "dem Export wurde etwas geändert")
    assert errors["it"]["message"].startswith("documento: la firma non corrisponde")
    assert client.get("/games").get_json()["games"] == listed  # nothing imported


def test_the_report_lists_the_problems_in_its_language() -> None:
    doc = forged(drop)
    verdict = offline(doc)
    english, german = render(doc, verdict, 1), render(doc, verdict, 1, Words("de"))
    assert ("<code>chain_broken</code> version 84: event 84 carries version 85: an event was "
            "dropped, inserted or reordered</li>") in english
    assert ("<code>chain_broken</code> Version 84: Ereignis 84 trägt die Version 85: ein "
            "Ereignis wurde entfernt, eingefügt oder umgestellt</li>") in german
    assert "<code>signature_invalid</code> Dokument: die Signatur passt nicht" in german


# -- gruft verify --lang ---------------------------------------------------------------------

def cli_files(tmp_path: Path, doc: dict) -> tuple[str, str]:
    """The document and its own key (as --key: only then a valid verdict can be reached)."""
    path, pem = tmp_path / "doc.json", tmp_path / "key.pem"
    path.write_text(json.dumps(doc), "utf-8")
    pem.write_text(doc["signature"]["key"], "ascii")
    return str(path), str(pem)


def english_lines(forge) -> str:
    """The text `gruft verify` printed for a forgery before it could speak another language."""
    problems = FORGERIES[forge]
    return "\n".join([f"INVALID: {len(problems)} problems"] + [
        f"  [{code}] " + (f"version {version}: " if version else "document: ") + message
        for version, code, message in problems]) + "\n"


@forgeries
def test_gruft_verify_says_today_s_english_without_lang_or_with_en(forge, tmp_path,
                                                                    capsys) -> None:
    path, pem = cli_files(tmp_path, forged(forge))
    for lang in ([], ["--lang", "en"]):
        assert gruft(["verify", path, "--key", pem, *lang]) == 1
        assert capsys.readouterr().out == english_lines(forge)


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_gruft_verify_says_the_problems_in_the_chosen_language(lang, tmp_path, capsys) -> None:
    doc = forged(drop)
    path, pem = cli_files(tmp_path, doc)
    gettext = translations(lang).gettext
    assert gruft(["verify", path, "--key", pem, "--lang", lang]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == {"de": "UNGÜLTIG: 3 Probleme", "fr": "INVALIDE : 3 problèmes"}[lang]
    # Each problem in the language, where (version or document) too; its code as it is.
    verdict = offline(doc)
    assert out[1:] == [f"  [{p['code']}] {describe(p, gettext)}" for p in verdict.problems]
    assert [line.split("]")[0] for line in out[1:]] == [
        f"  [{code}" for _, code, _ in FORGERIES[drop]]
    for _, _, english in FORGERIES[drop]:
        assert english not in "\n".join(out)
    if lang == "de":
        assert out[2] == ("  [chain_broken] Version 84: Ereignis 84 trägt die Version 85: ein "
                          "Ereignis wurde entfernt, eingefügt oder umgestellt")
    # --json: the same keys, codes and versions as in English, the messages in the language.
    assert gruft(["verify", path, "--key", pem, "--json", "--lang", lang]) == 1
    said = json.loads(capsys.readouterr().out)
    assert gruft(["verify", path, "--key", pem, "--json"]) == 1
    english = json.loads(capsys.readouterr().out)
    assert said.keys() == english.keys()
    assert triples(english["problems"]) == FORGERIES[drop]
    assert [(p.keys(), p["version"], p["code"]) for p in said["problems"]] == [
        (p.keys(), p["version"], p["code"]) for p in english["problems"]]
    assert [p["message"] for p in said["problems"]] == [
        p["message"].said(gettext) for p in verdict.problems]


def test_gruft_verify_says_its_verdict_in_the_chosen_language(tmp_path, capsys) -> None:
    doc = json.loads(GOLDEN.read_text("utf-8"))
    path, pem = cli_files(tmp_path, doc)
    what = f"vampire-queen {doc['game_id']}"
    assert gruft(["verify", path, "--key", pem]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"valid: {what}, 166 events, format 1; signed by the trusted key")
    assert gruft(["verify", path, "--key", pem, "--lang", "de"]) == 0
    valid = capsys.readouterr().out.splitlines()
    assert valid[0] == (f"gültig: {what}, 166 Ereignisse, Format 1; signiert mit dem "
                        "vertrauenswürdigen Schlüssel")
    assert valid[1].startswith("key_id ")  # the key's id, not a word: the same everywhere
    assert valid[2] == "Punkte Ann 95, Ben 4, Cy 18, Dee 37; Ben gewinnt"
    # No trusted key: unverified, every line of it in French but the key id and the commands.
    assert gruft(["verify", path, "--lang", "fr"]) == 2
    unverified = capsys.readouterr().out.splitlines()
    assert unverified[0] == f"SIGNATURE NON VÉRIFIÉE : {what}, 166 événements, format 1"
    assert "--key" in unverified[2] and "GET /signing-key" in unverified[2]
    assert unverified[3].startswith("key_id ") and "comparez-le" in unverified[3]
    assert unverified[4] == "scores Ann 95, Ben 4, Cy 18, Dee 37 ; Ben gagne"


def test_gruft_verify_lang_from_the_shell(tmp_path) -> None:
    # As a shell runs it: its own process, the catalogs loaded there; a language it does not
    # speak refused as `gruft report` refuses one.
    path, pem = cli_files(tmp_path, forged(by_nobody))
    run = subprocess.run([sys.executable, "-m", "cli", "verify", path, "--key", pem,
                          "--lang", "it"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith("NON VALIDO: 3 problemi\n  [signature_invalid] documento: ")
    assert "[by_mismatch] versione 3: " in run.stdout
    refused = subprocess.run([sys.executable, "-m", "cli", "verify", path, "--lang", "xx"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--lang" in refused.stderr and not refused.stdout


# -- the JSON Schema's words (a document that does not follow it: `malformed`) --------------

# A schema with every keyword replays/schema_words.py says, and a value breaking each.
KEYWORDS = {
    "Required": ({"required": ["final"]}, {}),
    "Type": ({"type": "string"}, 7),
    "Type ": ({"type": ["string", "null"]}, 7),
    "Enum": ({"enum": [1, 2]}, 3),
    "Constant": ({"const": "ed25519"}, "rsa"),
    "AdditionalProperties": ({"properties": {}, "additionalProperties": False}, {"x": 1}),
    "AdditionalProperties ": ({"properties": {}, "additionalProperties": False},
                              {"x": 1, "y": 2}),
    "Minimum": ({"minimum": 2}, 1),
    "Maximum": ({"maximum": 2}, 3),
    "ExclusiveMinimum": ({"exclusiveMinimum": 2}, 2),
    "ExclusiveMaximum": ({"exclusiveMaximum": 2}, 2),
    "MinLength": ({"minLength": 2}, "a"),
    "MaxLength": ({"maxLength": 1}, "ab"),
    "Pattern": ({"pattern": "^[0-9a-f]{64}$"}, "zz"),
    "MinItems": ({"minItems": 1}, []),
    "MaxItems": ({"maxItems": 1}, [1, 2]),
    "OneOfNotValid": ({"oneOf": [{"type": "string"}, {"type": "null"}]}, 1),
    "OneOfMultipleValid": ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 1),
    "AnyOf": ({"anyOf": [{"type": "string"}, {"type": "null"}]}, 1),
    "Not": ({"not": {"required": ["salt"]}}, {"salt": "00"}),
    "UniqueItems": ({"uniqueItems": True}, [1, 1]),
    "MultipleOf": ({"multipleOf": 2}, 3),
}


def schema_error(schema: dict, value: object):
    return next(iter(jsonschema_rs.validator_for(schema).iter_errors(value)))


def test_every_keyword_said_is_a_schema_keyword_tested() -> None:
    assert set(KINDS) == {name.strip() for name in KEYWORDS}


@pytest.mark.parametrize("name", list(KEYWORDS))
def test_a_schema_keyword_in_every_language(name: str) -> None:
    error = schema_error(*KEYWORDS[name])
    assert type(error.kind).__name__ == name.strip()
    words = schema_words(error)
    # English: the validator's own sentence, word for word; a placeholder-free template.
    assert str(words) == words.said() == error.message
    assert words.template == KINDS[name.strip()](error.kind)[0]
    # Each other language its own sentence, every placeholder filled, the value quoted in it.
    said = {lang: words.said(translations(lang).gettext) for lang in LANGUAGES}
    assert len(set(said.values())) == len(LANGUAGES), said
    for text in said.values():
        assert "%(" not in text
        if name.strip() not in ("Required", "Constant", "AdditionalProperties"):  # a name
            assert shown(error.instance) in text, text


def test_a_keyword_not_listed_is_said_with_the_validator_s_words() -> None:
    error = schema_error({"properties": {"x": False}}, {"x": 1})  # the false schema
    words = schema_words(error)
    assert str(words) == words.said() == error.message == "False schema does not allow 1"
    assert words.said(translations("de").gettext) == (
        "1 folgt dem Schema nicht (False schema does not allow 1)")


SCHEMA_EDITS = {
    "required": (lambda d: d.pop("final"), '"final" is a required property',
                 '"final" ist eine Pflichteigenschaft'),
    "enum": (lambda d: d.update(format_version=4),
             "at format_version: 4 is not one of 1, 2 or 3",
             "bei format_version: 4 ist keiner der Werte 1, 2, 3"),
    "minItems": (lambda d: d.update(events=[]), "at events: [] has less than 1 item",
                 "bei events: [] hat weniger Elemente als das Minimum 1"),
    "const": (lambda d: d["signature"].update(alg="rsa"),
              'at signature/alg: "ed25519" was expected',
              'bei signature/alg: "ed25519" wurde erwartet'),
}


@pytest.mark.parametrize("edit", list(SCHEMA_EDITS))
def test_a_malformed_document_in_the_readers_language(client, edit: str) -> None:
    change, english, german = SCHEMA_EDITS[edit]
    doc = json.loads(GOLDEN.read_text("utf-8"))
    change(doc)
    said = {lang: post_verify(client, doc, lang=lang) for lang in LANGUAGES}
    # The same verdict, keys, version and code in every language; the schema's words in each.
    assert {tuple(v) for v in said.values()} == {tuple(said["en"])}
    assert {tuple((p["version"], p["code"]) for p in v["problems"]) for v in said.values()} == {
        ((None, "malformed"),)}
    messages = {lang: v["problems"][0]["message"] for lang, v in said.items()}
    assert messages["en"] == ("not a gruft-replay document as its schema (docs/format.md) says: "
                              + english)  # as before: the validator's own words
    assert messages["de"].endswith(": " + german)
    assert len(set(messages.values())) == len(LANGUAGES)
    for lang in LANGUAGES[1:]:
        assert english.removeprefix("at ").split(": ")[-1] not in messages[lang], messages[lang]


def test_gruft_verify_says_why_it_cannot_read_a_document_in_the_chosen_language(
        tmp_path, capsys) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "gruft-replay" "events": []}', "utf-8")
    with pytest.raises(json.JSONDecodeError, match="Expecting ',' delimiter") as python:
        json.loads(path.read_text("utf-8"))
    assert gruft(["verify", str(path)]) == 2
    assert capsys.readouterr().err == f"gruft verify: cannot read {path}: {python.value}\n"
    assert gruft(["verify", str(path), "--lang", "de"]) == 2
    assert capsys.readouterr().err == (f"gruft verify: {path} kann nicht gelesen werden: "
                                       "Trennzeichen ',' erwartet: Zeile 1 Spalte 27 "
                                       "(Zeichen 26)\n")
