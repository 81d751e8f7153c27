"""VampiRing (rules page docs/rules/vampiring.md, VR-1 .. VR-12)."""

from domain.vampiring.game import VampiRing

GAME = VampiRing

__all__ = ["GAME", "VampiRing"]
