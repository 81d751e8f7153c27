"""The heuristic bot's win rate over 200 games against random bots, per game and table size.

Run: ``.venv/bin/python bench/win_rates.py [games] [seed]``. Seats rotate game by game; a tie
counts as a win for everyone in it, so the fair share is the mean number of winners per game
divided by the table size (1/n when every game has exactly one winner).
"""

from __future__ import annotations

import sys
import time

from domain import available_games, game_class
from service.runners.simulate import simulate


def main() -> None:
    """Print one line per game and table size."""
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 2025
    print(f"{'game':<15} {'players':>7} {'games':>5} {'heuristic':>9} {'fair':>6} {'ratio':>6} "
          f"{'best random':>11} {'s':>6}")
    for key in available_games():
        cls = game_class(key)
        for players in sorted({max(cls.MIN_PLAYERS, 3), cls.MAX_PLAYERS} if key != "vampiring"
                              else {2, 3, 4}):
            if not cls.MIN_PLAYERS <= players <= cls.MAX_PLAYERS:
                continue
            start = time.perf_counter()
            s = simulate(key, games, players, ["heuristic"], seed=seed)
            wins = s.wins_by_bot()
            best_random = max(n for label, n in wins.items() if label != "heuristic-1") / games
            rate, fair = s.win_rate("heuristic"), s.fair_share()
            print(f"{key:<15} {players:>7} {games:>5} {rate:>9.1%} {fair:>6.1%} "
                  f"{rate / fair:>5.2f}x {best_random:>11.1%} {time.perf_counter() - start:>6.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
