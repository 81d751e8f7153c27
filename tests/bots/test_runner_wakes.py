"""The bot and clock runners' threads wake for their own games only: the log follower hands
them every notification, and waking a thread for each command of every other game was a
measurable part of a command's cost under load (docs/performance.md)."""

from __future__ import annotations

from service import Games
from service.runners.bot_runner import BotRunner
from service.runners.clock_runner import ClockRunner
from tests.kit import SHORT_OPTIONS, seats


def notes_after(games: Games, position: int) -> list:
    return list(games.recorder.select_notifications(start=position, limit=1000,
                                                    inclusive_of_start=False))


def test_the_runners_wake_for_their_games_and_not_for_others(sqlite_env):
    games = Games(env=sqlite_env)
    try:
        bots, clocks = BotRunner(lambda: games), ClockRunner(lambda: games)
        key, names = "vampiring", seats("vampiring")
        games.create_game(key, names, seed=1, options=SHORT_OPTIONS[key])
        plain = notes_after(games, 0)
        bots.noted(plain, games.mapper)
        clocks.noted(plain, games.mapper)
        assert not bots._wake.is_set() and not clocks._wake.is_set()
        assert not bots.active and not clocks.active

        head = plain[-1].id
        botted = games.create_game(key, names, seed=2, options=SHORT_OPTIONS[key],
                                   bots={names[1]: "random"}).game_id
        bots.noted(notes_after(games, head), games.mapper)
        assert bots._wake.is_set() and botted in bots.active

        head = games.follower.head()
        clocked = games.create_game(key, names, seed=3, options=SHORT_OPTIONS[key],
                                    clock={"bank": 3600, "increment": 0}).game_id
        clocks.noted(notes_after(games, head), games.mapper)
        assert clocks._wake.is_set() and clocked in clocks.active
    finally:
        games.close()
