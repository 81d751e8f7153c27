"""Shared helpers of the Vampire Queen tests: stacked deals, commands, invariant checks."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from domain.core import GameError, NotYourTurn, canonical, event_data, event_hash
from domain.core.chain import timestamp_text
from domain.vampire_queen import GAME
from domain.vampire_queen.cards import CARDS_EACH, DECK, SLAYERS, sort_cards
from tests.domain.kit import Table

PASS = {"type": "pass"}
FULL_SET = Counter(DECK) + Counter(SLAYERS)  # all 110 cards


def play(*cards: str) -> dict[str, Any]:
    """A play command."""
    return {"type": "play", "cards": list(cards)}


def topped_up(players: list[str], partial: dict[str, list[str]]) -> dict[str, Any]:
    """One stacked phase: the cards given, each hand topped up to the table size from the rest
    of the deck, lowest cards first (seat order), so the filler rarely beats anything."""
    left = Counter(DECK)
    for hand in partial.values():
        left.subtract(hand)
    assert all(n >= 0 for n in left.values()), "the partial hands use more cards than the deck"
    rest = sort_cards(left.elements())
    each = CARDS_EACH[len(players)]
    hands = {}
    for name in players:
        hand = list(partial.get(name, []))
        need = each - len(hand)
        assert need >= 0, f"{name} is given more than {each} cards"
        hands[name], rest = hand + rest[:need], rest[need:]
    return {"hands": hands}


def stacked_table(players: list[str], *phases: dict[str, list[str]] | None, seed: Any = 1,
                  phases_option: int | None = None) -> Table:
    """A table whose first phases are stacked (partial hands topped up; None = seeded)."""
    deal = {"phases": [None if p is None else topped_up(players, p) for p in phases]}
    options = {"phases": phases_option} if phases_option is not None else None
    return Table(GAME, players, seed=seed, options=options, deal=deal)


def hand(table: Table, player: str) -> list[str]:
    """A player's hand as their private view shows it."""
    return table.game.private_state(player)["hand"]


def state(table: Table) -> dict[str, Any]:
    """The public state."""
    return table.game.public_state()


def cards_on_table(game: Any) -> Counter:
    """Every card the full state places somewhere: hands, the round's plays, out, set aside."""
    full = game.full_state()
    where: Counter = Counter()
    for cards in full["hands"].values():
        where.update(cards)
    for entry in full["plays"]:
        where.update(entry["cards"])
    where.update(full["out"])
    where.update(full["set_aside"])
    return where


def check_cards_accounted(game: Any) -> None:
    """All 110 cards are somewhere, each exactly once."""
    assert cards_on_table(game) == FULL_SET


class Shadow:
    """An aggregate rebuilt from the table's events, one event at a time as they arrive."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.game = None
        self.applied = 0

    def catch_up(self) -> Any:
        """Apply the events not applied yet; return the rebuilt aggregate."""
        for event in self.table.events[self.applied:]:
            self.game = event.mutate(self.game)
        self.applied = len(self.table.events)
        return self.game

    def check(self) -> None:
        """The state rebuilt from the stored events equals the live state."""
        rebuilt = self.catch_up()
        live = self.table.game
        assert rebuilt.full_state() == live.full_state()
        assert rebuilt.chain_hash == live.chain_hash
        assert rebuilt.version == live.version

    def copy(self) -> Any:
        """An independent copy of the rebuilt aggregate."""
        return copy.deepcopy(self.catch_up())


def check_moves_exact_fast(table: Table, shadow: Shadow, player: str, candidates: list) -> None:
    """Like gamekit's check, cheaper: every listed move is accepted on a copy of the rebuilt
    state; every other candidate is refused by the live game and changes nothing."""
    legal = table.game.legal_moves(player)
    keys = {canonical(m) for m in legal}
    assert len(keys) == len(legal)
    for move in legal:
        shadow.copy().execute(player, move)
    for command in candidates:
        if canonical(command) not in keys:
            table.refuse(player, command)


def check_others_refused(table: Table, command: dict) -> None:
    """Nobody but the player to act may act (VQ-1)."""
    for other in table.game.players:
        if other not in table.game.to_act:
            assert table.game.legal_moves(other) == []
            try:
                table.game.execute(other, command)
            except NotYourTurn as refusal:
                assert refusal.rule == "VQ-1"
            else:
                raise AssertionError(f"{other} acted out of turn")


def check_event_hashes(table: Table) -> None:
    """No event's data changed after it was triggered (its recorded hash still matches)."""
    for event in table.events:
        digest = event_hash(event.prev_hash, event.originator_version, type(event).__name__,
                            timestamp_text(event.timestamp), event_data(event),
                            event.__dict__.get("by"), nonce=event.__dict__.get("nonce"))
        assert digest == event.hash, f"event {event.originator_version} was mutated"


def replayed(table: Table, players: list[str], seed: Any, options: dict | None,
             deal: dict | None) -> Table:
    """A fresh table fed the commands the verifier reads back out of the player-action events."""
    again = Table(GAME, players, seed=seed, options=options, deal=deal)
    for event in table.events[len(again.events):]:
        name = type(event).__name__
        if name in GAME.COMMAND_EVENTS:
            command_type, fields = GAME.COMMAND_EVENTS[name]
            data = event_data(event)
            command = {"type": command_type, **{f: data[f] for f in fields}}
            try:
                again.act(data["player"], command)
            except GameError as error:  # pragma: no cover - a failing test explains itself
                raise AssertionError(f"replaying {name} {data} failed: {error}") from error
    return again


def event_log(table: Table) -> list[tuple[str, str]]:
    """Every event as (type, canonical data)."""
    return [(type(e).__name__, canonical(event_data(e))) for e in table.events]
