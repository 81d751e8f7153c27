"""VampiRing tests (rules: /work/shared/rules/vampiring.md, VR-1 .. VR-12)."""
