"""Vampir test helpers: stacked deals built from a script of turns, and running that script."""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.vampir import GAME
from domain.vampir.cards import ALL_CARDS, SHUFFLED_DECK, colour_of, ordered
from tests.domain.kit import Table

ANN, BEN, CAT, DAN = "Ann", "Ben", "Cat", "Dan"
THREE = [ANN, BEN, CAT]


def round_deal(hands: dict[str, list[str]], top: list[str] | None = None) -> dict[str, Any]:
    """One stacked round: these hands, `top` on top of the pile, the other cards below it."""
    named = Counter(c for h in hands.values() for c in h) + Counter(top or [])
    rest = Counter(SHUFFLED_DECK) - named
    assert not named - Counter(SHUFFLED_DECK), f"more cards than the deck has: {named - Counter(SHUFFLED_DECK)}"
    return {"hands": {p: list(h) for p, h in hands.items()},
            "draw_pile": list(top or []) + ordered(rest.elements())}


def deal(*rounds: dict[str, Any]) -> dict[str, Any]:
    """A stacked deal of these rounds (later rounds come from the seed)."""
    return {"rounds": list(rounds)}


# A turn of a script: (player, "hunt", colour, cards) — draw two, then lay these out;
# (player, "discard", card, location) — draw two, then discard; (player, "collect", location,
# hand cards) — collect without drawing.
Turn = tuple[str, str, str, Any]


def scripted_round(players: list[str], turns: list[Turn]) -> dict[str, Any]:
    """The stacked round in which every draw brings its player the cards they use next.

    Each player's hand cards are lined up in the order the script uses them; the 4 dealt and
    each draw's 2 are taken from that line, topped up with spare cards once it runs out.
    """
    need: dict[str, list[str]] = {p: [] for p in players}
    draws: dict[str, int] = Counter()
    for player, action, what, cards in turns:
        used = {"hunt": cards, "discard": [what], "collect": cards}[action]
        if action != "collect":
            draws[player] += 1
        need[player].extend(used)
        received = 4 + 2 * draws[player]
        assert len(need[player]) <= received, f"{player} cannot hold {used} yet"
    used_up = Counter(c for line in need.values() for c in line)
    assert not used_up - Counter(SHUFFLED_DECK), f"deck overdrawn: {used_up - Counter(SHUFFLED_DECK)}"
    spare = Counter(SHUFFLED_DECK) - used_up
    spares = ordered(spare.elements())
    lines = {}
    for p in players:
        short = 4 + 2 * draws[p] - len(need[p])
        lines[p], spares = need[p] + spares[:max(short, 0)], spares[max(short, 0):]
    hands = {p: lines[p][:4] for p in players}
    taken = {p: 4 for p in players}
    pile: list[str] = []
    for player, action, _what, _cards in turns:
        if action != "collect":
            pile += lines[player][taken[player]:taken[player] + 2]
            taken[player] += 2
    return {"hands": hands, "draw_pile": pile + spares}


def play_script(table: Table, turns: list[Turn]) -> list[Any]:
    """Run the script's turns; return every event they produced."""
    events = []
    for player, action, what, cards in turns:
        if action == "collect":
            events += table.act(player, {"type": "collect", "location": what, "cards": cards})
            continue
        events += table.act(player, {"type": "draw"})
        if action == "hunt":
            events += table.act(player, {"type": "hunt", "colour": what, "cards": cards})
        else:
            events += table.act(player, {"type": "discard", "card": what, "location": cards})
    return events


def draw_and_discard(table: Table) -> list[Any]:
    """The player to act draws, then discards their first hand card (a joker under the castle)."""
    player, start = table.game.to_act[0], table.game.round
    events = table.act(player, {"type": "draw"})
    if table.game.round != start or table.game.finished:
        return events  # VA-8: that draw ended the round
    card = table.game.hands[player][0]
    return events + table.act(player, {"type": "discard", "card": card,
                                       "location": colour_of(card) or "castle"})


def draw_and_discard_until_round_ends(table: Table) -> list[Any]:
    """Every turn a draw and a discard, until the draw pile runs out (VA-8)."""
    start = table.game.round
    events: list[Any] = []
    while table.game.round == start and not table.game.finished:
        events += draw_and_discard(table)
    return events


def cards_in_play(state: dict[str, Any]) -> Counter:
    """Every card the full state holds: hands, locations, hunts, pile and the cards out."""
    held = Counter()
    for hand in state["hands"].values():
        held.update(hand)
    for lying in state["locations"].values():
        held.update(lying)
    for shown in state["hunts"].values():
        for hunt in shown.values():
            held.update(hunt)
    held.update(state["draw_pile"])
    held.update(state["out"])
    return held


def check_cards_accounted(table: Table) -> None:
    """Card conservation: the 106 cards, each in exactly one place."""
    assert cards_in_play(table.game.full_state()) == ALL_CARDS


def new_table(players: list[str] | None = None, **kwargs: Any) -> Table:
    """A Vampir table (three players unless told)."""
    return Table(GAME, players or THREE, **kwargs)

