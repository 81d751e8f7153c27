"""Vampire Queen (Wolfgang Kramer, Schmidt Spiele): rules page docs/rules/vampire-queen.md, VQ-1 … VQ-17."""

from domain.vampire_queen.game import VampireQueen

GAME = VampireQueen

__all__ = ["GAME", "VampireQueen"]
