"""Commands sent without expected_version are never refused because another was stored first.

VampiRing's players choose at the same time: every seat's command loads the same version, one
is stored first, and the others run again on the newer state, through the rules again. Only a
command that sends a stale expected_version answers Conflict (409).
"""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from service import Games
from tests.service.storage.kit import (
    Gate,
    attempt,
    check_log,
    check_won_versions,
    distinct_commands,
    fresh,
    gate_commands,
    new_game,
    run_threads,
    state_of,
)

REFUSALS = {"Refusal", "NotYourTurn"}  # the rules' answers (domain.core.errors)


class FirstLoadGate(Gate):
    """The race's barrier, met by each racer's first load only: a command that runs again on
    the newer state goes through."""

    def __init__(self) -> None:
        super().__init__()
        self._met = threading.local()

    def wait(self) -> None:
        """Wait for the other racers at the first load of this thread."""
        if not getattr(self._met, "done", False):
            self._met.done = True
            super().wait()


def race(apps: list[Games], game_id: UUID, commands: list[dict[str, Any]]
         ) -> list[dict[str, Any]]:
    """One thread per command, all loading the same version first, none expecting one."""
    gate = FirstLoadGate()
    for app in apps:
        gate_commands(app, gate)
    gate.barrier = threading.Barrier(len(commands))
    outcomes: list[dict[str, Any]] = []
    run_threads([lambda i=i: outcomes.append(attempt(apps[i % len(apps)], game_id, commands[i]))
                 for i in range(len(commands))])
    return outcomes


def test_simultaneous_moves_are_all_stored(make_games):
    setup = make_games()
    apps = [make_games(), make_games()]
    game_id = new_game(setup, "vampiring", seed=4)
    game = setup.game(game_id)
    # Check the game awaits every seat at once (VR-4: choices are made together).
    assert len(game.to_act) > 2
    commands = [{**game.legal_moves(p)[0], "player": p} for p in game.to_act]
    for app in apps:
        app.game(game_id)  # cached at this version in both
    # Check every seat's command, though all loaded the same version, is stored: no Conflict.
    outcomes = race(apps, game_id, commands)
    assert sorted(o["outcome"] for o in outcomes) == ["won"] * len(commands), outcomes
    records = check_log(setup, game_id)
    check_won_versions(records, outcomes, first=game.version)
    assert {r["data"].get("player") for r in records[game.version:]} >= set(game.to_act)
    for app in apps:
        assert state_of(app.game(game_id)) == state_of(fresh(app, game_id))


def test_a_lost_race_is_judged_by_the_rules_on_the_newer_state(make_games):
    setup = make_games()
    apps = [make_games(), make_games()]
    game_id = new_game(setup, "vampir", seed=5)
    game = setup.game(game_id)
    commands = distinct_commands(game, 3)
    # Check one command wins; the others run again on the newer state and are answered by the
    # rules (a refusal citing its ruling, or stored if still legal), never by a Conflict.
    outcomes = race(apps, game_id, commands)
    assert "conflict" not in [o["outcome"] for o in outcomes], outcomes
    wins = [o for o in outcomes if o["outcome"] == "won"]
    assert wins
    for outcome in outcomes:
        if outcome["outcome"] == "error":
            assert outcome["error"].split(":")[0] in REFUSALS, outcome
    check_won_versions(check_log(setup, game_id), wins, first=game.version)
