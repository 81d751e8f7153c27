"""The crash test at tiny sizes on SQLite: workers really die under load, nothing answered is lost,
and its checker does report a command missing from the log or stored differently.

No timing is asserted: the figures are what `python -m bench.crash` prints.
"""

from __future__ import annotations

from bench.crash import Answered, CrashFigures, check_games, crash_test
from bench.load import Connection, MirrorPlayer, Recorder
from bench.servers import served_gruft, sqlite_store


def test_workers_killed_under_load_lose_no_answered_command(tmp_path):
    figures = crash_test("sqlite", tmp_path, seconds=3.0, kills=2, workers=2, clients=2, seed=5)
    assert figures.problems == []
    assert figures.kills == 2  # each kill a SIGKILL of a live worker
    assert figures.commands_answered > 0 and figures.games_checked > 0
    assert figures.events_checked >= figures.commands_answered


def test_the_checker_reports_an_answer_the_log_does_not_hold(tmp_path):
    answered = Answered()
    with served_gruft(sqlite_store(tmp_path), tmp_path, workers=1) as served:
        player = MirrorPlayer(Connection(served.port, Recorder()), 3, keys=["vampir"],
                              answered=answered)
        for _ in range(3):
            player.step()
        game = player.started[0]
        clean = CrashFigures("sqlite")
        check_games(served.port, [game], answered, clean)
        assert clean.problems == [] and clean.games_checked == 1
        assert clean.events_checked == game.local.version

        version, events = answered.by_game[game.game_id][-1]
        # A command answered but not stored, and one stored differently from its answer.
        answered.by_game[game.game_id].append((version + 5, []))
        changed = [{**events[0], "data": {"forged": True}}]
        answered.by_game[game.game_id].append((version, changed))
        found = CrashFigures("sqlite")
        check_games(served.port, [game], answered, found)
    assert len(found.problems) == 2
    assert f"answered version {version + 5} is not in the log" in found.problems[0]
    assert f"event of version {events[0]['version']} differs" in found.problems[1]
