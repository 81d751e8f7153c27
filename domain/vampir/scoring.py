"""Vampir's end of a round: colour-by-colour losses (VA-10) and points (VA-11)."""

from __future__ import annotations

from domain.vampir.cards import COLOURS, heads_of


def shown_heads(players: list[str], hunts: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, int]]:
    """Heads each player shows per colour (jokers count one), colours in the listed order."""
    return {p: {c: heads_of(hunts[p][c]) for c in COLOURS if c in hunts[p]} for p in players}


def losers(players: list[str], heads: dict[str, dict[str, int]]) -> dict[str, list[str]]:
    """VA-10: per colour, the players who lose their hunt (seat order); [] where nobody does."""
    out: dict[str, list[str]] = {}
    for colour in COLOURS:
        # Somebody shows no hunt in this colour: nobody loses anything in it.
        if any(colour not in heads[p] for p in players):
            out[colour] = []
            continue
        fewest = min(heads[p][colour] for p in players)
        # Ties all lose, even when every player ties (the ruling makes no exception).
        out[colour] = [p for p in players if heads[p][colour] == fewest]
    return out


def points(players: list[str], heads: dict[str, dict[str, int]],
           lost: dict[str, list[str]]) -> dict[str, int]:
    """VA-11: one point per head still shown once the losing hunts are gone."""
    return {p: sum(n for c, n in heads[p].items() if p not in lost[c]) for p in players}


def leaders(scores: dict[str, int]) -> list[str]:
    """VA-11: the players with the highest total; ties give several winners."""
    best = max(scores.values())
    return [p for p, s in scores.items() if s == best]
