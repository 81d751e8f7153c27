"""A write refused because it would skip a game's version (service/store/postgres.py): told apart
from a lost race without importing the PostgreSQL recorder (psycopg is optional)."""

from __future__ import annotations

GAP_MESSAGE = "does not follow a stored version"


def is_gap(exc: BaseException) -> bool:
    """Whether a store's integrity error says a version was skipped."""
    return GAP_MESSAGE in str(exc)
