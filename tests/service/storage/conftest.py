"""Fixtures of the storage tests: Applications on the store under test, closed afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from service import Games


@pytest.fixture
def make_games(storage_env) -> Iterator[Callable[..., Games]]:
    """Build Applications on `storage_env` (with overrides); all closed after the test, so
    their PostgreSQL connections do not pile up on the shared server."""
    made: list[Games] = []

    def make(**overrides: str) -> Games:
        games = Games(env={**storage_env, **overrides})
        made.append(games)
        return games

    yield make
    for games in made:
        games.close()
