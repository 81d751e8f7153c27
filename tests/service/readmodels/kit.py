"""Test kit for the read models: stored games played at random, and what the views must say.

Games are played through the pure domain and stored through `Games.save` in interleaved
chunks of commands (each chunk one transaction, as a busy server would interleave them), so
a test stores thousands of events in a few dozen commits.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from bench.projections import index_updates
from domain import available_games, game_class
from domain.core import Game
from service.app import Games
from service.readmodels.stat_kinds import score_sign

# Short games, so a test plays every kind to the end in well under a second each; Voodoo Prince
# plays two rounds so that its statistics average over more than one.
SHORT = {key: dict(game_class(key).SHORT_OPTIONS) for key in available_games()}
SHORT["voodoo-prince"] = {"rounds": 2}
NAMES = ["ann", "bob", "cy", "dee", "eve", "Zoë M/2"]  # a name to URL-encode


def start(games: Games, key: str, players: list[str], seed: int) -> Game:
    """A new game of `key`, stored with its tokens; the live aggregate is returned."""
    game = game_class(key).start(players, seed=seed, options=dict(SHORT.get(key, {})))
    games.store_imported(game)
    return game


def play(games: Games, live: Iterable[Game], rng: random.Random, chunk: int = 20,
         finish: bool = True, max_chunks: int | None = None) -> None:
    """Play the games with random legal moves, a chunk of commands per game per turn, saving each."""
    pending = [g for g in live if not g.finished]
    rounds = 0
    while pending and (max_chunks is None or rounds < max_chunks):
        rounds += 1
        for game in list(pending):
            for _ in range(rng.randint(1, chunk)):
                if game.finished:
                    break
                player = rng.choice(game.to_act)
                game.execute(player, rng.choice(game.legal_moves(player)))
            games.save(game)
            if game.finished:
                pending.remove(game)
    if finish:
        assert not pending


def create_games(games: Games, rng: random.Random, per_game: int = 2, unfinished: int = 1
                 ) -> tuple[list[Game], list[Game]]:
    """Every available game kind `per_game` + `unfinished` times, 2-4 players from NAMES:
    (the games to play to the end, the games to leave in progress)."""
    to_finish, to_leave = [], []
    for key in available_games():
        cls = game_class(key)
        for i in range(per_game + unfinished):
            count = rng.randint(max(2, cls.MIN_PLAYERS), min(4, cls.MAX_PLAYERS))
            game = start(games, key, rng.sample(NAMES, count), rng.randrange(10**6))
            (to_finish if i < per_game else to_leave).append(game)
    return to_finish, to_leave


def populate(games: Games, rng: random.Random, per_game: int = 2, unfinished: int = 1
             ) -> list[Game]:
    """`create_games`, the first kind played to the end, the others a little; all, in order."""
    to_finish, to_leave = create_games(games, rng, per_game, unfinished)
    play(games, to_finish, rng)
    play(games, to_leave, rng, finish=False, max_chunks=1)
    return sorted(to_finish + to_leave, key=lambda g: g.created_on)


def expected_stats(games: list[Game]) -> dict[str, dict[str, dict[str, Any]]]:
    """player -> game key -> played, won, average_score: from the aggregates themselves."""
    totals: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for game in games:
        if not game.finished:
            continue
        for player in game.players:
            row = totals[player][game.KEY]
            row[0] += 1
            row[1] += player in game.winners
            row[2] += game.scores[player]
    return {p: {k: {"played": n, "won": w, "average_score": s / n}
                for k, (n, w, s) in kinds.items()} for p, kinds in totals.items()}


def expected_metrics(games: Games, finished: list[Game]) -> dict[tuple[str, str, str], float]:
    """(player, game key, metric) -> average, recomputed from each game's stored event records."""
    sums: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0.0, 0])

    def add(player: str, key: str, metric: str, value: float) -> None:
        cell = sums[(player, key, metric)]
        cell[0] += value
        cell[1] += 1

    for game in finished:
        records = games.reads.records(game.id)
        key, n = game.KEY, len(game.players)
        out_this_round: list[str] = []
        points_this_round: dict[str, int] = defaultdict(int)
        for record in records:
            kind, data = record["type"], record["data"]
            if key == "vampire-queen" and kind == "PhaseScored":
                for p, v in data["minus"].items():
                    add(p, key, "minus_points_per_phase", v)
            elif key == "voodoo-prince" and kind == "PlayerFinished":
                out_this_round.append(data["player"])
                add(data["player"], key, "finishing_position", len(out_this_round))
                points_this_round[data["player"]] += data["points"]
            elif key == "voodoo-prince" and kind == "RoundEnded":
                add(data["last"], key, "finishing_position", n)
                for p, v in data["points"].items():
                    points_this_round[p] += v
                for p in game.players:
                    add(p, key, "points_per_round", points_this_round[p])
                out_this_round, points_this_round = [], defaultdict(int)
            elif key == "vampir" and kind == "RoundScored":
                for p, v in data["points"].items():
                    add(p, key, "points_per_round", v)
        if key == "vampiring":
            for p in game.players:
                add(p, key, "turns_survived", game.eliminated.get(p, game.turns_played))
    return {k: total / count for k, (total, count) in sums.items()}


def ranked(stats: dict[str, dict[str, dict[str, Any]]], key: str) -> list[str]:
    """Players of one kind in leaderboard order: wins, then average score (best first), name."""
    sign = score_sign(key)
    rows = [(p, kinds[key]) for p, kinds in stats.items() if key in kinds]
    rows.sort(key=lambda r: (-r[1]["won"], -sign * r[1]["average_score"], r[0]))
    return [p for p, _ in rows]


def fill_index_rows(view: Any, count: int, kinds: list[str], players: list[str], seed: int = 1
                    ) -> None:
    """The index rows `fill_index` writes, written directly in two bulk statements (fast; a
    test checks both write the same rows)."""
    games: dict[int, list[Any]] = {}
    for update in index_updates(count, kinds, players, seed):
        position = update.position
        if update.players is not None:
            games[position] = [position, update.game_id, update.game, json.dumps(update.players),
                               "in_progress", update.version, update.at, update.at, None, None,
                               None]
        else:
            games[position][4:] = ["finished", update.version, games[position][6], update.at,
                                   update.at, json.dumps(update.scores),
                                   json.dumps(update.winners)]
    seated = [(p, row[0], row[2], row[4]) for row in games.values() for p in json.loads(row[3])]
    with view._transaction(commit=True) as c:
        if hasattr(c, "copy"):  # PostgreSQL: COPY, one round trip per table
            for table, rows in (("games", games.values()), ("players", seated)):
                with c.copy(view.sql(f"COPY {{{table}}} FROM STDIN")) as copy:
                    for row in rows:
                        copy.write_row(row)
            return
        c.executemany(view.sql("INSERT INTO {games} VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s,"
                               " %s, %s)"), list(games.values()))
        c.executemany(view.sql("INSERT INTO {players} (player, position, game, status) "
                               "VALUES (%s, %s, %s, %s)"), seated)
