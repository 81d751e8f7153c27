"""Replays: export, verification, step-through, the command line and the viewer's data."""
