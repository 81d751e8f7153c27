"""Which cards a player may play now (VP-5), shared by legal moves and the play guard."""

from __future__ import annotations


def playable(hand: list[str], led: str | None) -> list[str]:
    """The cards of `hand` that may be played: all when leading or void in the led colour."""
    if led is None:
        return hand
    following = [c for c in hand if c[0] == led]
    return following or hand


def play_commands(hand: list[str], led: str | None) -> list[dict[str, str]]:
    """The legal play commands, in the hand's canonical order."""
    return [{"type": "play", "card": c} for c in playable(hand, led)]
