"""`gruft verify` and `gruft replay` as a user meets them: words, exit codes, pipes, filters."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main as gruft
from domain import game_class
from service.audit.signing import SigningKey
from tests.kit import played_document
from tests.replays.golden.regenerate import path_of

ROOT = Path(__file__).resolve().parents[2]
STEP = re.compile(r"^\[(\d+)/(\d+)\] (\w+)", re.M)


def played(key: str, players: list[str], seed: int, options: dict, signer: SigningKey) -> dict:
    """A finished game played at random through the rules, as a signed format 2 document."""
    game = game_class(key).start(players, seed=seed, options=options, salt="5a" * 32)
    return played_document(game, random.Random(seed), signer)


@pytest.fixture
def signer(tmp_path):
    return SigningKey.load_or_create(tmp_path)


@pytest.fixture
def game_file(tmp_path, signer):
    doc = played("voodoo-prince", ["Ann", "Ben", "Cy"], 11, {"rounds": 1}, signer)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc), "utf-8")
    pem = tmp_path / "key.pem"
    pem.write_text(signer.public_pem, "ascii")
    return path, pem, doc


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`gruft …` in a process of its own, as a shell runs it."""
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def shown_steps(out: str) -> list[int]:
    return [int(m[1]) for m in STEP.finditer(out)]


# -- gruft verify --------------------------------------------------------------------------

def test_verify_speaks_words_and_its_exit_code_is_the_verdict(game_file, capsys):
    path, pem, doc = game_file
    winner = doc["final"]["winners"][0]
    # Check a document signed by the trusted key is valid, its result in words.
    assert gruft(["verify", str(path), "--key", str(pem)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: voodoo-prince") and "signed by the trusted key" in out
    assert f"{winner} wins" in out
    assert ", ".join(f"{p} {n}" for p, n in doc["final"]["scores"].items()) in out
    assert not re.search(r"[{\[]'", out), "a Python repr in the text output"
    # Fail to call it valid without a trusted key: the signature is unverified, exit 2.
    assert gruft(["verify", str(path)]) == 2
    out = capsys.readouterr().out
    assert out.startswith("UNVERIFIED SIGNATURE") and "valid:" not in out and "--key" in out


def test_verify_json_says_what_the_text_says(game_file, capsys):
    path, pem, _ = game_file
    assert gruft(["verify", str(path), "--key", str(pem), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["valid"] is True and verdict["signature"] == "verified"
    assert verdict["problems"] == []
    # Check JSON without a key reports the signature unverified, never valid.
    assert gruft(["verify", str(path), "--json"]) == 2
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["valid"] is False and verdict["signature"] == "unverified"
    assert verdict["problems"] == []


def test_verify_names_each_problem_s_version_once(game_file, tmp_path, capsys):
    path, pem, doc = game_file
    doc["events"][5]["data"]["forged"] = True  # no rehash: the chain breaks at version 6
    doc["final"]["winners"] = ["Nobody"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert gruft(["verify", str(bad), "--key", str(pem)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: ")
    lines = [line for line in out.splitlines() if line.startswith("  [")]
    assert lines and any("[chain_broken] version 6: " in line for line in lines)
    for line in lines:
        assert len(re.findall(r"\bversion \d+", line)) <= 1, line
    assert gruft(["verify", str(bad), "--key", str(pem), "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert all("version 6" not in p["message"] for p in problems)


def test_verify_reads_standard_input_and_refuses_junk(game_file, tmp_path):
    path, pem, _ = game_file
    answer = run_cli("verify", "-", "--key", str(pem), stdin=path.read_text("utf-8"))
    assert answer.returncode == 0 and answer.stdout.startswith("valid:")
    (tmp_path / "junk.json").write_text("{not json")
    assert gruft(["verify", str(tmp_path / "junk.json")]) == 2
    assert gruft(["verify", str(tmp_path / "missing.json")]) == 2


# -- pipes -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def long_game(tmp_path_factory):
    """A document whose step-through prints far more than a pipe holds (~300 KB)."""
    folder = tmp_path_factory.mktemp("long")
    doc = played("vampire-queen", ["A", "B", "C", "D", "E", "F"], 3, {},
                 SigningKey.load_or_create(folder))
    path = folder / "long.json"
    path.write_text(json.dumps(doc), "utf-8")
    return path


@pytest.mark.parametrize("args, lines", [(["replay", "--all"], 1), (["verify", "--json"], 0),
                                         (["verify"], 0)])
def test_a_reader_that_leaves_early_ends_the_command_quietly(long_game, args, lines):
    # `gruft replay … | head -1`: the reader takes a line and closes the pipe while the command
    # still has much to write; `gruft verify … | head -0` closes it before the verdict is out.
    command, *flags = args
    child = subprocess.Popen([sys.executable, "-m", "cli", command, str(long_game), *flags],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    read = [child.stdout.readline() for _ in range(lines)]
    child.stdout.close()
    err = child.stderr.read().decode()
    child.wait(timeout=120)
    assert all(read)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert err == ""
    assert child.returncode == (0 if command == "replay" else 2)  # verify: no --key given


# -- gruft replay: keys from a pipe ---------------------------------------------------------

def test_replay_takes_keys_from_a_pipe_as_from_a_terminal(game_file):
    path, _, doc = game_file
    total = len(doc["events"])
    answer = run_cli("replay", str(path), stdin="n\nj 7\ns\np\nq\nn\n")
    assert answer.returncode == 0, answer.stderr
    # Check each key was obeyed in order, and nothing after q was.
    assert shown_steps(answer.stdout) == [1, 2, 7, 6]
    assert f"[7/{total}]" in answer.stdout and '"hands"' in answer.stdout  # s: the full state
    # no prompt when the keys do not come from a terminal
    assert not any(line.startswith(">") for line in answer.stdout.splitlines())
    # Check the end of the input ends the session.
    answer = run_cli("replay", str(path), stdin="n\n")
    assert answer.returncode == 0 and shown_steps(answer.stdout) == [1, 2]


def test_replay_checks_the_signature_against_a_key_given(game_file, tmp_path, capsys):
    path, pem, _ = game_file

    def heading() -> str:
        return capsys.readouterr().out.splitlines()[0]

    # Check the heading says who signed it when the server's key is given, and only then.
    assert gruft(["replay", str(path), "--step", "1", "--key", str(pem)]) == 0
    assert "valid, signed by the key given (key id " in heading()
    assert gruft(["replay", str(path), "--step", "1"]) == 0
    assert "signature unverified" in heading()
    # Check another server's key makes it not valid, and an unreadable key is refused (2).
    other = tmp_path / "other"
    other.mkdir()
    (tmp_path / "other.pem").write_text(SigningKey.load_or_create(other).public_pem, "ascii")
    assert gruft(["replay", str(path), "--step", "1", "--key", str(tmp_path / "other.pem")]) == 0
    assert "NOT VALID" in heading()
    assert gruft(["replay", str(path), "--key", str(tmp_path / "missing.pem")]) == 2
    assert "cannot read the key" in capsys.readouterr().err


# -- gruft replay: filters ------------------------------------------------------------------

def golden(key: str) -> tuple[str, dict]:
    path = path_of(key)
    return str(path), json.loads(path.read_text("utf-8"))


def span(doc: dict, first: str, last: str, **data) -> list[int]:
    """The versions from the event after the one before `first` … to `last`, by their data."""
    events = doc["events"]
    start = next(e["version"] for e in events if e["type"] == first and all(
        e["data"].get(k) == v for k, v in data.items()))
    end = next(e["version"] for e in events if e["type"] == last and all(
        e["data"].get(k) == v for k, v in data.items()))
    return list(range(start, end + 1))


def test_replay_filters_by_round_and_keeps_true_step_numbers(capsys):
    path, doc = golden("voodoo-prince")
    assert gruft(["replay", path, "--round", "1", "--all"]) == 0
    out = capsys.readouterr().out
    expected = span(doc, "RoundDealt", "RoundEnded", round=1)
    assert shown_steps(out) == expected and expected[0] > 1
    assert f"{len(expected)} of {len(doc['events'])} steps match --round 1" in out
    # Check the last round keeps what follows its end (the game's end).
    assert gruft(["replay", path, "--round", "2", "--all"]) == 0
    last = span(doc, "RoundDealt", "RoundEnded", round=2)
    assert shown_steps(capsys.readouterr().out) == list(range(last[0], len(doc["events"]) + 1))


def test_replay_filters_by_phase_and_round_together(capsys):
    path, doc = golden("vampire-queen")
    ends = [e["version"] for e in doc["events"]
            if e["type"] == "RoundEnded" and e["data"]["phase"] == 1]
    # Phase 1, round 2: after round 1's end, up to and including round 2's.
    assert gruft(["replay", path, "--phase", "1", "--round", "2", "--all"]) == 0
    assert shown_steps(capsys.readouterr().out) == list(range(ends[0] + 1, ends[1] + 1))
    # Check a phase alone runs from its deal to its scoring.
    assert gruft(["replay", path, "--phase", "1", "--all"]) == 0
    steps = shown_steps(capsys.readouterr().out)
    assert steps == span(doc, "PhaseDealt", "PhaseScored", phase=1)


def test_replay_filters_by_player_alone_and_with_a_turn(capsys):
    path, doc = golden("vampiring")
    assert gruft(["replay", path, "--player", "Ben", "--all"]) == 0
    steps = shown_steps(capsys.readouterr().out)
    records = {e["version"]: e for e in doc["events"]}
    # Check every step Ben made is shown, and every shown step names him.
    made = [v for v, e in records.items() if e["data"].get("player") == "Ben"]
    assert made and set(made) <= set(steps)
    assert all("Ben" in json.dumps(records[s]["data"]) for s in steps)
    assert len(steps) < len(records)
    # Check the filters combine: Ben's steps in turn 3 only.
    assert gruft(["replay", path, "--player", "Ben", "--turn", "3", "--all"]) == 0
    combined = shown_steps(capsys.readouterr().out)
    turn_3 = span(doc, "TurnResolved", "TurnResolved", turn=3)[-1]
    assert combined and set(combined) <= set(steps)
    assert all(s <= turn_3 and s > span(doc, "TurnResolved", "TurnResolved", turn=2)[-1]
               for s in combined)
    assert records[combined[-1]]["type"] == "TurnResolved"


def test_replay_filters_step_through_only_matching_steps(game_file):
    path, _, doc = game_file
    bens = [e["version"] for e in doc["events"] if e["data"].get("player") == "Ben"]
    answer = run_cli("replay", str(path), "--type", "CardPlayed", "--player", "Ben",
                     stdin="n\nn\nq\n")
    assert answer.returncode == 0, answer.stderr
    assert shown_steps(answer.stdout) == [v for v in bens if doc["events"][v - 1]["type"]
                                          == "CardPlayed"][:3]


@pytest.mark.parametrize("args, message", [
    (["--round", "1"], "vampiring events name no round (they name: turn)"),
    (["--player", "Zed"], "'Zed' does not play in this game"),
    (["--step", "3", "--player", "Ann"], "--step prints one step's whole state"),
])
def test_replay_refuses_filters_that_cannot_apply(capsys, args, message):
    path, _ = golden("vampiring")
    assert gruft(["replay", path, *args]) == 2
    assert message in capsys.readouterr().err


def test_replay_says_when_nothing_matches(capsys):
    path, _ = golden("vampir")
    assert gruft(["replay", path, "--round", "9", "--all"]) == 1
    assert "0 of " in capsys.readouterr().out
