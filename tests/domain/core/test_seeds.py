"""Seed bounds (domain/core/dealing.py check_seed): every way a game starts applies them."""

from __future__ import annotations

import pytest

from domain import game_class
from domain.core import BadSetup
from domain.core.dealing import SEED_MAX_BITS, SEED_MAX_LENGTH
from tests.kit import seats

GAME = game_class("vampiring")
LIMITS = [
    ("x" * SEED_MAX_LENGTH, "x" * (SEED_MAX_LENGTH + 1)),
    ((1 << SEED_MAX_BITS) - 1, 1 << SEED_MAX_BITS),
    (-(1 << SEED_MAX_BITS) + 1, -(1 << SEED_MAX_BITS)),
]


@pytest.mark.parametrize(("largest", "too_large"), LIMITS)
def test_a_seed_at_its_bound_starts_a_game_one_beyond_is_refused(largest, too_large):
    assert GAME.start(seats("vampiring"), seed=largest).seed == largest
    with pytest.raises(BadSetup, match="seed has at most"):
        GAME.start(seats("vampiring"), seed=too_large)


@pytest.mark.parametrize("seed", ["", True, 1.5, None, ["a"]])
def test_a_seed_is_a_whole_number_or_a_non_empty_string(seed):
    with pytest.raises(BadSetup, match="whole number or a non-empty string"):
        GAME.start(seats("vampiring"), seed=seed)


def test_the_api_refuses_an_oversized_seed_and_stores_nothing(client):
    for seed in ("x" * (SEED_MAX_LENGTH + 1), 1 << SEED_MAX_BITS):
        answer = client.post("/games", json={"game": "vampiring", "players": ["a", "b"],
                                             "seed": seed})
        assert answer.status_code == 400
        assert "seed has at most" in answer.json["error"]["message"]
    assert client.get("/games").json["games"] == []
