"""Presence between processes (service/live/presence.py): a seat's open stream in one process is
present in every other process's answers, including one that has no stream open itself."""

from __future__ import annotations

import pytest

from tests.kit import wait_until
from tests.service.storage.kit import new_game, two_applications


@pytest.fixture
def two(storage_env):
    yield from two_applications(storage_env)


def test_a_process_without_streams_sees_the_others_present(two):
    streaming, asked = two
    game_id = new_game(streaming, "vampir")
    players = streaming.game(game_id).players
    close = streaming.presence.open(game_id, players[2])  # a stream of the third seat opens
    try:
        # `asked` never opened a stream nor subscribed: asking is enough to read the others'
        wait_until(lambda: asked.presence.present(game_id, players) == [players[2]],
                   "the other process to see the seat present")
    finally:
        close()
    wait_until(lambda: asked.presence.present(game_id, players) == [],
               "the other process to see the seat gone")
