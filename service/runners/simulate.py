"""`gruft simulate`: bots play whole games in-process (or into the store), then a summary table.

Each game is played through the pure domain exactly as the service would run it: the seat to
act lists its legal moves, its bot picks one, the aggregate executes it. With ``--store`` every
finished game is saved through ``service.Games`` with its tokens, so the API and the viewer
show it like any other game.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TextIO

from bots import Bot, bots_for, make_bot
from domain import available_games, game_class
from domain.core import Game, GameError

MAX_COMMANDS = 100_000  # a guard: no game of ours comes near it


@dataclass
class Played:
    """One finished game: who sat where (each seat is named by its bot's label), how it ended."""

    seed: int | str
    players: list[str]  # seat order
    commands: int
    scores: dict[str, int]
    winners: list[str]
    game_id: str | None = None


@dataclass
class Summary:
    """Everything a simulation run measured."""

    game: str
    player_count: int
    labels: list[str]  # bot labels, in their starting seats
    played: list[Played] = field(default_factory=list)
    seconds: float = 0.0
    base_seed: int = 0

    @property
    def commands(self) -> int:
        return sum(p.commands for p in self.played)

    def wins_by_seat(self) -> list[int]:
        """Games each seat index was among the winners of."""
        wins = [0] * self.player_count
        for p in self.played:
            for name in p.winners:
                wins[p.players.index(name)] += 1
        return wins

    def wins_by_bot(self) -> Counter:
        """Games each bot label was among the winners of."""
        wins: Counter = Counter({label: 0 for label in self.labels})
        for p in self.played:
            for name in p.winners:
                wins[name] += 1  # a seat is named by its bot's label
        return wins

    def fair_share(self) -> float:
        """The win rate every seat would have if all played alike (ties and no-winner games counted)."""
        if not self.played:
            return 0.0
        return sum(len(p.winners) for p in self.played) / (len(self.played) * self.player_count)

    def win_rate(self, kind: str) -> float:
        """Win rate per seat of the bots of one kind (e.g. ``heuristic``)."""
        seats = [label for label in self.labels if bot_kind(label) == kind]
        if not seats or not self.played:
            return 0.0
        wins = self.wins_by_bot()
        return sum(wins[label] for label in seats) / (len(seats) * len(self.played))


def bot_kind(label: str) -> str:
    """The bot name of a label: ``random-2`` -> ``random``."""
    return label.rsplit("-", 1)[0]


def bot_labels(names: list[str]) -> list[str]:
    """Distinct player names from bot names: ``heuristic-1``, ``random-1``, ``random-2``."""
    seen: Counter = Counter()
    labels = []
    for name in names:
        seen[name] += 1
        labels.append(f"{name}-{seen[name]}")
    return labels


def seat_bots(spec: str | None, player_count: int) -> list[str]:
    """Bot names per seat from ``--bots a,b,…``: missing seats are random, extra names an error."""
    names = [n.strip() for n in spec.split(",") if n.strip()] if spec else []
    if len(names) > player_count:
        raise ValueError(f"{len(names)} bots named for {player_count} players")
    return names + ["random"] * (player_count - len(names))


def play_game(game_cls: type[Game], players: list[str], bots: dict[str, Bot], *,
              seed: int | str, options: dict[str, Any] | None = None, keep_events: bool = False,
              max_commands: int = MAX_COMMANDS) -> tuple[Game, int]:
    """Play one game to its end; answer the game and the number of commands it took.

    Events are collected (dropped) after every command unless `keep_events`, which leaves the
    whole game pending so it can be saved in one go.
    """
    game = game_cls.start(players, seed=seed, options=options)
    if not keep_events:
        game.collect_events()
    commands = 0
    while not game.finished:
        if commands >= max_commands:
            raise RuntimeError(f"{game_cls.KEY} game {seed!r} did not finish in {max_commands} "
                               "commands")
        # Several seats may be awaited at once (vampiring); their order cannot matter.
        player = game.to_act[0]
        moves = game.legal_moves(player)
        game.execute(player, bots[player].choose(game, player, moves))
        if not keep_events:
            game.collect_events()
        commands += 1
    return game, commands


def simulate(game_key: str, games: int, player_count: int, bot_names: list[str], *,
             seed: int | None = None, store: Any = None, options: dict[str, Any] | None = None,
             rotate: bool = True, progress: TextIO | None = None) -> Summary:
    """Play `games` games; `store` (a ``service.Games``) keeps each one. Seats rotate per game.

    `bot_names` name the bots seat by seat; seats left over get random bots.
    """
    cls = game_class(game_key)
    bot_names = seat_bots(",".join(bot_names), player_count)
    for name in set(bot_names):
        if name not in bots_for(game_key):
            raise ValueError(f"no bot {name!r} for {game_key}; bots: {', '.join(bots_for(game_key))}")
    base = random.SystemRandom().randrange(1 << 32) if seed is None else seed
    labels = bot_labels(bot_names)
    summary = Summary(game=game_key, player_count=player_count, labels=labels, base_seed=base)
    bar = ProgressBar(games, progress)
    start = time.perf_counter()
    for index in range(games):
        shift = index % player_count if rotate else 0
        seated = labels[shift:] + labels[:shift]
        # Each bot draws from its own generator, so adding a bot never changes another's play.
        bots = {label: make_bot(bot_kind(label), game_key, random.Random(f"{base}/{index}/{label}"))
                for label in seated}
        game_seed = base * 100_000 + index
        game, commands = play_game(cls, seated, bots, seed=game_seed, options=options,
                                   keep_events=store is not None)
        game_id = None
        if store is not None:
            game_id = str(store.store_imported(game).game_id)
        summary.played.append(Played(seed=game_seed, players=seated, commands=commands,
                                     scores=dict(game.scores), winners=list(game.winners),
                                     game_id=game_id))
        bar.update(index + 1)
    bar.close()
    summary.seconds = time.perf_counter() - start
    return summary


class ProgressBar:
    """A one-line bar on a terminal; silent when the stream is not one (pipes, files, tests)."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total = max(total, 1)
        self.stream = stream if stream is not None and stream.isatty() else None
        self.shown = -1.0
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        """Redraw when at least a percent more is done."""
        if self.stream is None or (done / self.total - self.shown < 0.01 and done != self.total):
            return
        self.shown = done / self.total
        filled = int(self.WIDTH * self.shown)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{self.total} "
                          f"games, {elapsed:.1f}s")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()


def report(summary: Summary) -> str:
    """The summary table: games, commands per game, time, wins by seat and by bot."""
    played = summary.played
    n = len(played)
    per_game = [p.commands for p in played] or [0]
    lines = [
        f"game          {summary.game} ({summary.player_count} players)",
        f"games         {n}   (base seed {summary.base_seed})",
        f"commands      {summary.commands} total; per game mean {sum(per_game) / max(n, 1):.1f}, "
        f"min {min(per_game)}, max {max(per_game)}",
        f"time          {summary.seconds:.2f} s; {summary.seconds / max(n, 1) * 1000:.1f} ms per "
        f"game; {summary.commands / max(summary.seconds, 1e-9):,.0f} commands/s",
        f"fair share    {summary.fair_share():.1%} of games per seat",
        "",
        "wins by seat",
    ]
    for seat, wins in enumerate(summary.wins_by_seat()):
        lines.append(f"  seat {seat:<8} {wins:>6}  {wins / max(n, 1):6.1%}")
    lines += ["", "wins by bot"]
    wins = summary.wins_by_bot()
    for label in summary.labels:
        lines.append(f"  {label:<13} {wins[label]:>6}  {wins[label] / max(n, 1):6.1%}")
    kinds = sorted({bot_kind(label) for label in summary.labels})
    if len(kinds) > 1:
        lines += ["", "win rate per seat by kind"]
        for kind in kinds:
            rate = summary.win_rate(kind)
            lines.append(f"  {kind:<13} {rate:6.1%}  ({rate / max(summary.fair_share(), 1e-9):.2f}x "
                         "fair share)")
    return "\n".join(lines)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help=f"game key: {', '.join(available_games())}")
    parser.add_argument("--games", type=int, default=100, help="how many games (default 100)")
    parser.add_argument("--players", type=int, default=None,
                        help="players per game (default: the game's minimum, at least 3 if allowed)")
    parser.add_argument("--bots", default=None,
                        help="bot per seat, comma-separated (heuristic, random, first); missing "
                             "seats are random")
    parser.add_argument("--seed", type=int, default=None,
                        help="base seed; game i is dealt from seed*100000+i (default: drawn, printed)")
    parser.add_argument("--fixed-seats", action="store_true",
                        help="keep each bot in its seat (default: seats rotate game by game)")
    parser.add_argument("--store", action="store_true",
                        help="save every game through the games service (API and viewer show them)")
    parser.add_argument("--db", metavar="PATH", default=None,
                        help="the SQLite file to store into (default: the service's own settings)")
    parser.set_defaults(func=run)


def default_players(game_cls: type[Game]) -> int:
    """Three players where the game allows it, else its minimum."""
    return max(game_cls.MIN_PLAYERS, min(3, game_cls.MAX_PLAYERS))


def open_store(db: str | None) -> Any:
    """The games service on `db` (a SQLite file), or on the environment's storage settings."""
    import os

    from service.app import Games

    env = dict(os.environ)
    if db is not None:
        env.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db})
    return Games(env=env)


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print the table; exit 2 on bad arguments."""
    try:
        cls = game_class(args.game)
        players = args.players or default_players(cls)
        if not cls.MIN_PLAYERS <= players <= cls.MAX_PLAYERS:
            raise ValueError(f"{args.game} is for {cls.MIN_PLAYERS} to {cls.MAX_PLAYERS} players")
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        names = seat_bots(args.bots, players)
    except (ValueError, GameError) as exc:  # BadSetup and friends carry a sentence for the user
        print(f"gruft simulate: {exc}", file=sys.stderr)
        return 2
    store = open_store(args.db) if args.store or args.db else None
    try:
        summary = simulate(args.game, args.games, players, names, seed=args.seed, store=store,
                           rotate=not args.fixed_seats, progress=sys.stderr)
    except (ValueError, GameError) as exc:
        print(f"gruft simulate: {exc}", file=sys.stderr)
        return 2
    finally:
        if store is not None:  # its follower and presence threads end with it
            store.close()
    print(report(summary))
    if store is not None:
        print(f"\nstored {len(summary.played)} games; first {summary.played[0].game_id}")
    return 0
