"""Vampir (Reiner Knizia, Goldsieber 2000) for 3–5 players: rules page rules/vampir.md."""

from domain.vampir.game import Vampir

GAME = Vampir

__all__ = ["GAME", "Vampir"]
