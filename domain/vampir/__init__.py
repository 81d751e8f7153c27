"""Vampir (Reiner Knizia, Goldsieber 2000) for 3–5 players: rules page docs/rules/vampir.md, VA-1 … VA-11."""

from domain.vampir.game import Vampir

GAME = Vampir

__all__ = ["GAME", "Vampir"]
