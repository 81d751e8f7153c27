"""Random whole games for 2-6 players in both variants: invariants after every command."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.core import SPECTATOR, Viewer, canonical, event_data
from domain.vampiring import GAME
from domain.vampiring.rules import BLOOD, VAMPIRE_IDS, ring_cards
from tests.domain.kit import Table, play_random

from .kit import command

NAMES = ["Blue", "Red", "Yellow", "Green", "White", "Black"]
MOVES = [command(m) for m in ("a cw", "a ccw", "b cw", "b ccw")]


def check_accounted(table: Table) -> None:
    """Every card on the ring, every living vampire on it, every drop either held or lost."""
    game = table.game
    state = game.full_state()
    assert Counter(state["ring"]) == Counter(ring_cards(game.players))
    for player in game.players:
        alive = player in state["families"]
        # VR-9: a family is on the ring exactly while it has blood
        assert alive == (state["blood"][player] > 0) == (player not in state["eliminated"])
        assert 0 <= state["blood"][player] <= BLOOD
        if alive:
            family = state["families"][player]
            assert sorted(family) == list(VAMPIRE_IDS)
            # VR-4: a family's three vampires always hold three different shapes
            assert sorted(v["shape"] for v in family.values()) == ["B", "M", "W"]
            assert all(0 <= v["position"] < len(state["ring"]) for v in family.values())
    # VR-4: to act are exactly the living players without a move this turn
    if not game.finished:
        assert game.to_act == [p for p in game.players
                               if p in state["families"] and p not in state["pending"]]
    # Blood lost equals the drops the resolutions recorded
    lost = Counter()
    for lost_in_turn, _event in turn_losses(table):
        lost.update(lost_in_turn)
    assert {p: BLOOD - lost[p] for p in game.players} == state["blood"]


def turn_losses(table: Table) -> list[tuple[dict[str, int], Any]]:
    """Each TurnResolved with the drops each family lost in it (blood before less after)."""
    blood = {p: BLOOD for p in table.game.players}
    out = []
    for event in table.events:
        if type(event).__name__ == "TurnResolved":
            out.append(({p: blood[p] - event.blood[p] for p in blood}, event))
            blood = event.blood
    return out


def expected_scores(table: Table) -> dict[str, int]:
    """VR-11 and VR-12 recomputed from the recorded resolutions alone."""
    game = table.game
    scores = {p: 0 for p in game.players}
    total = 0
    out: set[str] = set()
    for lost, event in turn_losses(table):
        total += sum(lost.values())
        for player in game.players:
            if player not in out:
                scores[player] = total
        out.update(event.eliminated)
    for player in game.winners:
        scores[player] += game.blood[player] * len(game.players)
    return scores


def check_rerun(table: Table) -> None:
    """Re-running the recorded moves on a fresh game gives the very same events (replay)."""
    game = table.game
    again = Table(GAME, game.players, seed=game.seed, options=game.options, deal=game.deal)
    for event in table.events[len(again.events):]:
        if type(event).__name__ == "MoveSubmitted":
            again.act(event.player, {"type": "move", "metamorphosis": event.metamorphosis,
                                     "direction": event.direction})
    assert [canonical([type(e).__name__, event_data(e)]) for e in again.events] == [
        canonical([type(e).__name__, event_data(e)]) for e in table.events]


def play(seed: int, count: int, options: dict, sample_every: int) -> Table:
    rng = random.Random(seed)
    players = NAMES[:count]
    steps = [0]

    def after_each(table: Table) -> None:
        check_accounted(table)
        steps[0] += 1
        if steps[0] % sample_every == 0 and not table.game.finished:
            for player in players:  # includes players who submitted or were eliminated
                table.check_legal_moves_exact(player, MOVES)

    table = play_random(GAME, players, seed=seed, rng=rng, options=options,
                        after_each=after_each, max_commands=3000)
    game = table.game
    # VR-10 / VR-12: the game ended for a reason, with at most one winner who still stands
    end = game.public_state()["end"]
    living = [p for p in players if p not in game.eliminated]
    assert end in {"last_family", "no_family", "max_turns"}
    if end == "max_turns":
        assert game.winners == [] and game.turns_played == options["max_turns"]
        assert len(living) >= 2
    else:
        assert game.winners == living and len(living) <= 1
    assert game.scores == expected_scores(table)
    check_rerun(table)
    return table


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), count=st.integers(2, 6),
       variant=st.sampled_from(["castle", "mansion"]))
def test_random_uncapped_games_keep_every_invariant(seed, count, variant):
    play(seed, count, {"variant": variant}, sample_every=7)


@settings(max_examples=25, deadline=None)
@given(seed=st.text(min_size=1, max_size=12), count=st.integers(2, 6),
       variant=st.sampled_from(["castle", "mansion"]), max_turns=st.integers(1, 6))
def test_random_capped_games_keep_every_invariant(seed, count, variant, max_turns):
    table = play(seed, count, {"variant": variant, "max_turns": max_turns}, sample_every=5)
    assert table.game.turns_played <= max_turns


def test_every_player_count_and_variant_finishes():
    # Check a few fixed seeds for every count and variant, uncapped, end to end
    for count in range(2, 7):
        for variant in ("castle", "mansion"):
            play(count * 101, count, {"variant": variant}, sample_every=11)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), count=st.integers(2, 6))
def test_views_never_show_a_pending_move_or_another_players_secret(seed, count):
    players = NAMES[:count]
    table = Table(GAME, players, seed=seed)
    rng = random.Random(seed)
    while not table.game.finished:
        player = rng.choice(table.game.to_act)
        move = rng.choice(table.game.legal_moves(player))
        table.act(player, move)
        pending = table.game.full_state()["pending"]
        public = canonical(table.game.public_state())
        # Check the public state names who submitted, never a pending move's content
        assert table.game.public_state()["submitted"] == [p for p in players if p in pending]
        assert '"pending"' not in public and '"move"' not in public
        for other in players:
            private = table.game.private_state(other)
            assert private == {"move": pending.get(other)}
        # Check the event just stored shows its content to its player alone
        last = table.events[-1]
        if type(last).__name__ == "MoveSubmitted":
            assert table.game.redact("MoveSubmitted", event_data(last), SPECTATOR) == {
                "player": player}
            for other in players:
                shown = table.game.redact("MoveSubmitted", event_data(last), Viewer(player=other))
                assert ("direction" in shown) == (other == player)
