"""Voodoo Prince (game key ``voodoo-prince``): trick taking where you finish late, but not last."""

from domain.voodoo_prince.game import VoodooPrince

GAME = VoodooPrince

__all__ = ["GAME", "VoodooPrince"]
