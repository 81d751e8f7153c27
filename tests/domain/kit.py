"""Test kit for the pure games: a table that keeps every event and checks the invariants.

Used by every game's scenario tests (stacked deals) and random-play tests:
- after every command, the state rebuilt from all events so far equals the live state;
- a refused command raises a Refusal citing a ruling and changes nothing;
- legal moves are exactly the commands the rules accept (checked against candidate commands
  on a copy rebuilt from the events).
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from domain.core import Game, Refusal, canonical

RULING = r"\([A-Z]{2}-\d+\)"  # how a refusal's message ends: the ruling it cites, "(VQ-7)"


def rebuild(events: list[Any]) -> Game:
    """A fresh aggregate from its events, as the repository would build it."""
    game = None
    for event in events:
        game = event.mutate(game)
    assert game is not None
    return game


class Table:
    """A game under test and every event it has emitted."""

    def __init__(self, game_cls: type[Game], players: list[str], *, seed: int | str = 1,
                 options: dict | None = None, deal: dict | None = None) -> None:
        self.game = game_cls.start(players, seed=seed, options=options, deal=deal)
        self.events = list(self.game.collect_events())

    def act(self, player: str, command: dict) -> list[Any]:
        """Run a command that must be accepted; return its new events."""
        self.game.execute(player, command)
        new = list(self.game.collect_events())
        self.events.extend(new)
        return new

    def types(self, events: Iterable[Any]) -> list[str]:
        """The event type names."""
        return [type(e).__name__ for e in events]

    def refuse(self, player: str, command: dict, rule: str | None = None) -> Refusal:
        """Run a command that must be refused (citing `rule`), and check nothing changed."""
        before = canonical(self.game.full_state())
        version = self.game.version
        # A refusal says its ruling last: "… (VQ-7)".
        cited = re.escape(f"({rule})") if rule is not None else RULING
        with pytest.raises(Refusal, match=cited + "$") as caught:
            self.game.execute(player, command)
        assert self.game.version == version
        assert not self.game.pending_events
        assert canonical(self.game.full_state()) == before
        if rule is not None:
            assert caught.value.rule == rule, caught.value
        return caught.value

    def copy(self) -> Game:
        """An independent copy rebuilt from the events."""
        return rebuild(self.events)

    def check_rebuilt(self) -> None:
        """The state rebuilt from the events equals the live state, chain head included."""
        copy = self.copy()
        assert copy.full_state() == self.game.full_state()
        assert copy.chain_hash == self.game.chain_hash
        assert copy.version == self.game.version

    def check_legal_moves_exact(self, player: str, candidates: Iterable[dict]) -> None:
        """Every listed move is accepted; every other candidate is refused."""
        legal = {canonical(m) for m in self.game.legal_moves(player)}
        base = self.copy()  # rebuilt once; each trial runs on its own deep copy
        for move in self.game.legal_moves(player):
            copy.deepcopy(base).execute(player, move)  # must not raise
        for command in candidates:
            if canonical(command) in legal:
                continue
            with pytest.raises(Refusal, match=RULING + "$"):
                copy.deepcopy(base).execute(player, command)


def play_random(
    game_cls: type[Game],
    players: list[str],
    *,
    seed: int | str,
    rng: random.Random,
    options: dict | None = None,
    deal: dict | None = None,
    max_commands: int = 20_000,
    after_each: Callable[[Table], None] | None = None,
    rebuild_every: int = 1,
) -> Table:
    """Play a whole game with uniformly random legal moves, checking invariants as it goes."""
    table = Table(game_cls, players, seed=seed, options=options, deal=deal)
    steps = 0
    while not table.game.finished:
        assert steps < max_commands, "game did not finish"
        to_act = table.game.to_act
        assert to_act, "nobody to act in an unfinished game"
        for other in players:
            if other not in to_act:
                assert table.game.legal_moves(other) == []
        player = rng.choice(to_act)
        moves = table.game.legal_moves(player)
        assert moves, f"{player} is to act but has no legal move"
        assert len({canonical(m) for m in moves}) == len(moves), "a move is listed twice"
        assert moves == table.game.legal_moves(player), "the listing is not deterministic"
        table.act(player, rng.choice(moves))
        steps += 1
        if steps % rebuild_every == 0:
            table.check_rebuilt()
        if after_each is not None:
            after_each(table)
    table.check_rebuilt()
    # A finished game waits for nobody and allows nothing more.
    assert table.game.to_act == []
    assert all(table.game.legal_moves(p) == [] for p in players)
    assert set(table.game.winners) <= set(players)
    return table
