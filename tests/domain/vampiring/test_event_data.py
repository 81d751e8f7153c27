"""Event bodies assign the event's own dicts (no copies): recorded data must never change."""

from __future__ import annotations

import random

from domain.core import canonical, event_data
from domain.vampiring import GAME
from tests.domain.kit import Table


def test_recorded_events_stay_as_recorded_while_the_game_goes_on():
    for count, seed in ((2, 5), (3, 7), (6, 11)):
        players = ["Blue", "Red", "Yellow", "Green", "White", "Black"][:count]
        table = Table(GAME, players, seed=seed)
        rng = random.Random(seed)
        recorded = [canonical(event_data(e)) for e in table.events]
        while not table.game.finished:
            player = rng.choice(table.game.to_act)
            new = table.act(player, rng.choice(table.game.legal_moves(player)))
            recorded += [canonical(event_data(e)) for e in new]
            table.game.public_state()
            table.game.full_state()
        # Check no later command, view or rebuild changed an event's data in place
        assert [canonical(event_data(e)) for e in table.events] == recorded
        table.check_rebuilt()
