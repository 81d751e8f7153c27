"""Event bodies reuse the event's lists where nothing mutates them: recorded data never changes."""

from __future__ import annotations

import random

from domain.core import canonical, event_data
from domain.vampir import GAME
from tests.domain.kit import Table


def test_recorded_events_stay_as_recorded_while_the_game_goes_on():
    for count, seed in ((3, 5), (5, 9)):
        players = ["Ann", "Ben", "Cleo", "Dev", "Eva"][:count]
        table = Table(GAME, players, seed=seed)
        rng = random.Random(seed)
        recorded = [canonical(event_data(e)) for e in table.events]
        while not table.game.finished:
            player = table.game.to_act[0]
            new = table.act(player, rng.choice(table.game.legal_moves(player)))
            recorded += [canonical(event_data(e)) for e in new]
        # Check no later command changed an event's data in place
        assert [canonical(event_data(e)) for e in table.events] == recorded
        table.check_rebuilt()
