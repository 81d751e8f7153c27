"""VampiRing tests (rules: ../shared/rules/vampiring.md, VR-1 .. VR-12)."""
