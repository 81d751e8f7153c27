"""`gruft simulate`: every game, the summary table, and stored games the API shows and verifies."""

from __future__ import annotations

import io

import pytest

from cli import main
from domain import available_games, game_class
from replays.document import build_document, verify
from service.app import Games
from service.audit.signing import check_signature
from service.runners.simulate import ProgressBar, bot_labels, default_players, seat_bots, simulate

GAMES = available_games()


@pytest.mark.parametrize("key", GAMES)
def test_simulate_plays_every_game_and_prints_the_table(key, capsys):
    # Check the command runs a few games and reports games, commands, time and wins.
    assert main(["simulate", "--game", key, "--games", "3", "--bots", "heuristic",
                 "--seed", "7"]) == 0
    out = capsys.readouterr()
    assert f"game          {key}" in out.out
    assert "games         3" in out.out
    for heading in ("commands", "time", "wins by seat", "wins by bot", "heuristic-1", "random-1"):
        assert heading in out.out
    # Check the progress bar stays off the output when stderr is not a terminal.
    assert out.err == ""


def test_summary_counts_add_up():
    summary = simulate("voodoo-prince", 6, 3, ["heuristic", "random", "random"], seed=3)
    # Check each game rotated the seats, and every win is counted once by seat and by bot.
    assert [p.players[0] for p in summary.played[:3]] == ["heuristic-1", "random-1", "random-2"]
    winners = sum(len(p.winners) for p in summary.played)
    assert sum(summary.wins_by_seat()) == winners == sum(summary.wins_by_bot().values())
    assert summary.commands == sum(p.commands for p in summary.played) > 0
    # Check the same seed plays the same games again.
    again = simulate("voodoo-prince", 6, 3, ["heuristic", "random", "random"], seed=3)
    assert [p.scores for p in again.played] == [p.scores for p in summary.played]


def test_bot_seats_and_names():
    # Check missing seats are random and names stay distinct.
    assert seat_bots("heuristic", 3) == ["heuristic", "random", "random"]
    assert bot_labels(["random", "heuristic", "random"]) == ["random-1", "heuristic-1", "random-2"]
    # Fail to seat more bots than players.
    with pytest.raises(ValueError, match="3 bots named for 2 players"):
        seat_bots("random,random,random", 2)


def test_bad_arguments_exit_2_with_a_sentence(capsys):
    # Fail to simulate an unknown game, a bot that does not exist, a table the game forbids.
    assert main(["simulate", "--game", "chess", "--games", "1"]) == 2
    assert main(["simulate", "--game", "voodoo-prince", "--bots", "clever"]) == 2
    assert main(["simulate", "--game", "vampir", "--players", "9"]) == 2
    err = capsys.readouterr().err
    assert "chess" in err and "clever" in err and "3 to 5" in err


def test_progress_bar_draws_only_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    # Check a terminal gets a bar that reaches the total and ends its line.
    tty = Terminal()
    bar = ProgressBar(4, tty)
    for done in range(1, 5):
        bar.update(done)
    bar.close()
    assert "4/4 games" in tty.getvalue() and tty.getvalue().endswith("\n")
    # Check a pipe gets nothing.
    pipe = io.StringIO()
    bar = ProgressBar(4, pipe)
    bar.update(4)
    bar.close()
    assert pipe.getvalue() == ""


def test_store_keeps_every_game_for_the_api_and_each_verifies(tmp_path, capsys, make_app):
    db = tmp_path / "sim.sqlite"
    for key in GAMES:
        assert main(["simulate", "--game", key, "--games", "2", "--bots", "heuristic",
                     "--seed", "5", "--store", "--db", str(db)]) == 0
    assert "stored 2 games" in capsys.readouterr().out

    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db),
           "GRUFT_DATA_DIR": str(tmp_path / "data")}
    client = make_app({"TESTING": True, "GRUFT_ENV": env}).test_client()
    # Check the API lists every stored game, finished, for every kind.
    listed = client.get("/games?limit=200").get_json()["games"]
    assert sorted(g["game"] for g in listed) == sorted(GAMES * 2)
    assert {g["status"] for g in listed} == {"finished"}
    for summary in listed:
        # Check each export is a valid replay document: the server's verifier re-runs the
        # rules, checks the chain and its own signature, and finds the recorded result.
        document = client.get(f"/games/{summary['game_id']}/export").get_json()
        verdict = client.post("/replays/verify", json=document).get_json()
        assert verdict["valid"], verdict["problems"]
        assert verdict["winners"] == document["final"]["winners"]
        # And offline, with the document's own key: nothing wrong, but a signature that only
        # agrees with its own key is reported unverified, never as valid.
        offline = verify(document, check_signature=check_signature)
        assert not offline.problems and offline.signature == "unverified" and not offline.valid
    # Check the viewer's pages show a stored game.
    page = client.get(f"/games/{listed[0]['game_id']}/viewer")
    assert page.status_code == 200


def test_store_through_the_service_verifies_offline(tmp_path):
    from service.audit.signing import SigningKey

    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                       "SQLITE_DBNAME": str(tmp_path / "s.sqlite")})
    try:
        summary = simulate(GAMES[0], 2, default_players(game_class(GAMES[0])), ["heuristic"],
                           seed=9, store=games)
        key = SigningKey.load_or_create(tmp_path)
        for played in summary.played:
            # Check the stored events, exported and signed, verify with the stored result.
            game = games.game(played.game_id)
            document = build_document(game, games.reads.records(played.game_id), key.sign,
                                      key.public_pem)
            verdict = verify(document, trusted_keys=[key.public_pem],
                             check_signature=check_signature)
            assert verdict.valid, verdict.problems
            assert verdict.scores == played.scores
    finally:
        games.close()
