"""Bots' choices among moves they rate alike (issue 23, item 8): drawn from a secret source, so
an observer who knows the strategy and the whole public table does no better than it allows.

The probe predicted 56 of 73 moves of VampiRing's heuristic bot from the public table."""

from __future__ import annotations

import random
from collections import Counter
from secrets import SystemRandom

import pytest

from bots import HEURISTICS, best, least
from bots.base import Seat
from domain import available_games, game_class
from service.runners.bot_runner import BotRunner
from tests.kit import seats

DRAWS = 300


def test_the_served_runner_draws_from_the_operating_systems_source():
    runner = BotRunner(lambda: None)
    # Check its source is the operating system's: no seed, no state an observer could recover.
    assert isinstance(runner.rng, SystemRandom)
    with pytest.raises(NotImplementedError, match="does not have state"):
        runner.rng.getstate()


@pytest.mark.parametrize("choose", [best, least])
def test_among_moves_rated_alike_each_is_as_likely(choose):
    rng = SystemRandom()
    moves = ["a", "b", "c", "d", "e"]
    rating = {"a": 1, "b": 5, "c": 5, "d": 5, "e": 3} if choose is best else {
        "a": 1, "b": 1, "c": 4, "d": 1, "e": 3}
    tied = {"b", "c", "d"} if choose is best else {"a", "b", "d"}
    counts = Counter(choose(moves, rating.__getitem__, rng) for _ in range(DRAWS))
    # Check only the moves rated best are chosen, each about a third of the time (a bound so
    # generous it fails by chance less than once in 10^9 runs: 100 expected, 40 at least).
    assert set(counts) == tied, counts
    assert min(counts.values()) >= 40, counts


def test_an_observer_who_knows_the_strategy_guesses_no_better_than_it_allows():
    """VampiRing (the probe's game): at every position where the bot rates several moves alike,
    the first of them in the game's order (the old choice) is what it plays about 1 in k times."""
    cls = game_class("vampiring")
    table = random.Random(11)
    bot = HEURISTICS["vampiring"](SystemRandom())
    guessed = expected = positions = 0
    for seed in range(6):
        game = cls.start(seats("vampiring", 3), seed=f"tie-{seed}")
        while not game.finished and positions < 60:
            for player in game.to_act:
                moves = game.legal_moves(player)
                if len(moves) < 2:
                    continue
                alike = bot.alike(bot.costs(Seat(game, player)))  # 2 others: no sampling
                if len(alike) < 2:
                    continue
                positions += 1
                first = {"type": "move", "metamorphosis": alike[0][0], "direction": alike[0][1]}
                for _ in range(10):
                    chosen = bot.choose(game, player, moves)
                    # Check it plays one of the moves it rates best.
                    assert (chosen["metamorphosis"], chosen["direction"]) in alike
                    guessed += chosen == first
                    expected += 10 / len(alike)
            player = table.choice(game.to_act)
            game.execute(player, table.choice(game.legal_moves(player)))
    assert positions >= 20, positions
    # Check the old, deterministic choice is right about as often as chance among the alike
    # moves allows (generous: it was right every time before).
    assert guessed <= expected * 1.5 + 10, (guessed, expected, positions)


@pytest.mark.parametrize("key", available_games())
def test_a_position_plays_differently_on_different_runs(key):
    """A bot's choice is not a function of the table alone: somewhere in a game, the same
    position played twice gives two different moves (the game's seed plays no part)."""
    cls = game_class(key)
    table = random.Random(5)
    varied = False
    for seed in range(3):  # Vampire Queen's bot rates moves alike about once in 100 positions
        game = cls.start(seats(key), seed=f"same-{seed}")
        while not game.finished and not varied:
            player = table.choice(game.to_act)
            moves = game.legal_moves(player)
            choices = {repr(HEURISTICS[key](SystemRandom()).choose(game, player, moves))
                       for _ in range(20)} if len(moves) > 1 else ()
            varied = len(choices) > 1
            game.execute(player, table.choice(moves))
    assert varied, f"{key}: every position played the same way"


def test_an_observer_who_computes_the_ratings_mostly_misses_the_secret_move():
    """Issue 32, item 9: with exact ties alone, an observer who ran this strategy on the public
    table named VampiRing's secret move 51 times in 60; near-ties are drawn too (NEAR)."""
    cls = game_class("vampiring")
    table = random.Random(3)
    bot = HEURISTICS["vampiring"](SystemRandom())
    hits = positions = 0
    for seed in range(10):
        game = cls.start(seats("vampiring", 3), seed=f"observed-{seed}")
        while not game.finished and positions < 200:
            for player in game.to_act:
                moves = game.legal_moves(player)
                if len(moves) < 2:
                    continue
                costs = bot.costs(Seat(game, player))  # 2 others: no sampling, all public
                m, d = min(costs, key=costs.get)
                hits += bot.choose(game, player, moves) == {
                    "type": "move", "metamorphosis": m, "direction": d}
                positions += 1
            player = table.choice(game.to_act)
            game.execute(player, bot.choose(game, player, game.legal_moves(player)))
    # Check the observer is right far less often than the 91% it was (measured 63%; the bound
    # fails by chance less than once in a million runs).
    assert positions >= 150 and hits / positions <= 0.8, (hits, positions)
