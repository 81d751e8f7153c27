"""VampiRing tests (rules page docs/rules/vampiring.md, VR-1 .. VR-12)."""
