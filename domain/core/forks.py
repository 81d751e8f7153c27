"""Forks: a game continued from a state of another (docs/api.md, "Forks").

A fork is a new game with its own seed, salt and chain, whose second event (`Forked`) carries the
table of its parent as it stood after one event, secrets intact. ``Game`` inherits these; the
`Forked` event itself is the shared lifecycle's (domain.core.game).
"""

from __future__ import annotations

from typing import Any

from domain.core import clocks
from domain.core.chain import clone
from domain.core.dealing import check_salt, check_seed, seed_commitment
from domain.core.errors import BadSetup
from domain.core.replay import Replay
from domain.core.seats import check_bot_seats
from domain.core.words import N_


class Forks:
    """Forking a game, as ``Game`` does it."""

    # What a game is as a record, not as a table: a fork has its own seed, salt and chain.
    # A fork's clocks start afresh, each seat with a full bank, and wait for its table
    # (clocks.READY): the running clocks' start times are the parent's moments, not a table's.
    RECORD_FIELDS = frozenset({"players", "options", "seed", "seed_commitment", "salt", "deal",
                               "chain_hash", "parent", "clock", "clock_left", "clock_since",
                               "expired", "bots", "family", "clocks_started", "handovers",
                               "nonced"})
    parent = None  # a fork's {"game_id", "version", "hash"} of its parent's event; a class default
    # The sealed family a game belongs to (the id of the game first forked while its table was
    # secret), or None: a game forked in play, and every fork of a table not yet public, stay
    # sealed until every game of the family is over (docs/api.md, "Forks keep the secrets").
    family = None

    def table_state(self) -> dict[str, Any]:
        """Everything the rules read from here on (hands, piles, pending moves, scores): what a
        fork carries over, secrets intact."""
        return clone({k: v for k, v in vars(self).items()
                      if not k.startswith("_") and k not in self.RECORD_FIELDS})

    @classmethod
    def fork(cls, at: Any, parent: dict[str, Any], *, seed: int | str, salt: str | None,
             bots: dict[str, str] | None = None, family: str | None = None) -> Any:
        """A new game whose table is `at`'s (a game as it stood after event parent["version"]).

        Same players, options, stacked deal and clock, the same rules from there; whatever is
        dealt from the fork on comes from its own new seed, committed in its creation as in any
        game. A fork begins where somebody is awaited: a game that is over has nothing to
        continue. `bots`: the seats the fork's bots play (by default `at`'s). `family`: the
        sealed family the fork joins (its table is not public), None for an analysis fork.
        """
        if at.finished or not at.to_act:
            raise BadSetup(N_("after event %(version)s nobody is awaited: a fork continues a "
                              "game where a player is to act"), version=parent['version'])
        return cls.forked(list(at.players), dict(at.options), clone(at.deal), at.table_state(),
                          parent, seed=seed, salt=salt,
                          bots=dict(at.bots) if bots is None else bots,
                          clock=clocks.waiting_clock(at.clock), family=family)

    @classmethod
    def forked(cls, players: list[str], options: dict[str, Any], deal: dict[str, Any] | None,
               table: dict[str, Any], parent: dict[str, Any], *, seed: int | str,
               salt: str | None, bots: dict[str, str] | None = None,
               clock: dict[str, Any] | None = None, family: str | None = None,
               replay: Replay | None = None) -> Any:
        """A fork as it is recorded: its creation (with the parent's bot seats and clock), then
        the table it carries and, sealed, its family (the verifier re-runs a fork's document
        from here, under its `replay`; `gruft verify --parent` checks the table). The fork's
        clocks start afresh, each seat with a full bank, when the fork's table is ready (domain.core.clocks)."""
        players = cls.check_players(players, recorded=True)  # as `start` checks them
        options = cls.check_options(options or {}, len(players))
        check_seed(seed)
        check_salt(salt)
        bots = check_bot_seats(bots, players)
        clock = clocks.check_clock(clock)
        if not isinstance(table, dict) or not isinstance(parent, dict):
            raise BadSetup(N_("a fork carries its parent's table and a link to its parent"))
        if family is not None and not isinstance(family, str):
            raise BadSetup(N_("a fork's family is the id of a game"))
        foreign = [k for k in table if not isinstance(k, str) or k.startswith("_")
                   or k in cls.RECORD_FIELDS]
        if foreign:
            raise BadSetup(N_("a fork's table holds the game's state, not %(foreign)r"),
                           foreign=foreign[0])
        game = cls._made(replay, players=list(players), options=dict(options), seed=seed,
                         seed_commitment=seed_commitment(seed, salt), deal=clone(deal),
                         salt=salt, bots=bots, clock=clock)
        fields = {"parent": dict(parent), "table": clone(table)}
        if family is not None:  # an analysis fork records none, as every fork did before
            fields["family"] = family
        game.lifecycle("Forked", fields)
        return game
