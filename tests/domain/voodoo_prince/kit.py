"""Stacked deals and scripted tricks for the Voodoo Prince scenario tests."""

from __future__ import annotations

from typing import Any

from domain.voodoo_prince import GAME
from domain.voodoo_prince.cards import COLOURS, HAND_SIZE, TOP, TRICKS_TO_FINISH, deck
from tests.domain.kit import Table

FOUR = ["Marie", "Lukas", "Leon", "Nina"]


def hands_with(players: list[str], wanted: dict[str, list[str]],
               avoid: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Each player's wanted cards, filled up in canonical order from the rest of the deck,
    never giving a player a colour listed for them in `avoid`."""
    n = len(players)
    avoid = avoid or {}
    used = {c for cards in wanted.values() for c in cards}
    rest = [c for c in deck(n) if c not in used]
    hands = {}
    for p in players:
        hand = list(wanted.get(p, []))
        for card in [c for c in rest if c[0] not in avoid.get(p, "")]:
            if len(hand) == HAND_SIZE[n]:
                break
            hand.append(card)
            rest.remove(card)
        assert len(hand) == HAND_SIZE[n], f"cannot fill {p}'s hand"
        hands[p] = hand
    return hands


def stacked(players: list[str], wanted: dict[str, list[str]], *, trump: str = "B",
            avoid: dict[str, str] | None = None) -> dict[str, Any]:
    """A stacked deal of round 1 (later rounds from the seed)."""
    return {"rounds": [{"trump": trump, "hands": hands_with(players, wanted, avoid)}]}


def table(players: list[str], wanted: dict[str, list[str]], *, trump: str = "B",
          avoid: dict[str, str] | None = None, rounds: int = 1) -> Table:
    """A table dealt round 1 from a stacked deal."""
    deal = stacked(players, wanted, trump=trump, avoid=avoid)
    return Table(GAME, players, seed="scenario", options={"rounds": rounds}, deal=deal)


def play(table: Table, player: str, card: str) -> list[Any]:
    """`player` plays `card`; they must be the one to act."""
    assert table.game.to_act == [player], f"expected {player} to act, not {table.game.to_act}"
    return table.act(player, {"type": "play", "card": card})


def play_trick(table: Table, plays: list[tuple[str, str]]) -> list[Any]:
    """Play a trick in the order given, checking that order is the game's turn order."""
    events = []
    for player, card in plays:
        events += play(table, player, card)
    return events


def script(players: list[str], winners: list[str], *, trump: str = "B",
           leader: str | None = None) -> tuple[list[list[tuple[str, str]]], dict[str, list[str]]]:
    """Tricks each won by the next name in `winners` with a single-count card, and the cards
    they need. Every trick is one non-trump colour, so everybody follows; no 0, 5 or 7 is used."""
    n = len(players)
    target = TRICKS_TO_FINISH[n]
    pools = {c: [v for v in range(1, TOP[n] + 1) if v not in (5, 7)]
             for c in COLOURS if c != trump}
    tricks, wanted = [], {p: [] for p in players}
    counts = dict.fromkeys(players, 0)
    out: list[str] = []
    lead = leader or players[0]
    for winner in winners:
        seat = players.index(lead)
        order = [players[(seat + i) % n] for i in range(n)]
        order = [p for p in order if p not in out]
        colour = next(c for c, pool in pools.items() if len(pool) >= len(order))
        values, pools[colour] = pools[colour][:len(order)], pools[colour][len(order):]
        losers = [p for p in order if p != winner]
        cards = {winner: f"{colour}{values[-1]}"}
        cards.update({p: f"{colour}{v}" for p, v in zip(losers, values, strict=False)})
        tricks.append([(p, cards[p]) for p in order])
        for p in order:
            wanted[p].append(cards[p])
        counts[winner] += 1
        lead = winner
        if counts[winner] >= target:
            out.append(winner)
            seat = players.index(winner)
            lead = next((players[(seat + i) % n] for i in range(1, n)
                         if players[(seat + i) % n] not in out), winner)
    return tricks, wanted
