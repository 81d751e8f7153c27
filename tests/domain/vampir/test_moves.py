"""Legal moves: enumerated by counts, every distinct command once, exactly what the rules accept."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.vampir import moves
from domain.vampir.cards import ALL_CODES, COLOURS, JOKER, colour_of, ordered

from .kit import ANN, BEN, CAT, deal, draw_and_discard, new_table, round_deal

FEW_CODES = ["castle1", "castle2", "pub1", "pub2", "docks1", JOKER]


def is_hunt(cards: list[str], colour: str) -> bool:
    """VA-6 written out plainly: 3+ cards, all of `colour` or jokers, one real at least."""
    return (len(cards) >= 3 and all(colour_of(c) in (None, colour) for c in cards)
            and any(c != JOKER for c in cards))


def sub_multisets(cards: list[str]):
    """Every distinct sub-multiset, by brute force over index subsets."""
    seen = set()
    for size in range(len(cards) + 1):
        for picked in combinations(cards, size):
            key = tuple(ordered(picked))
            if key not in seen:
                seen.add(key)
                yield list(key)


def keyed(listing):
    return sorted(repr(sorted(m.items())) for m in listing)


@settings(max_examples=60, deadline=None)
@given(hand=st.lists(st.sampled_from(FEW_CODES), max_size=9))
def test_hunts_and_discards_match_brute_force(hand):
    expected = [{"type": "hunt", "cards": cards, "colour": colour}
                for cards in sub_multisets(hand) for colour in COLOURS if is_hunt(cards, colour)]
    expected += [{"type": "discard", "card": card, "location": location}
                 for card in set(hand) for location in COLOURS
                 if colour_of(card) in (None, location)]
    listed = moves.after_draw(ordered(hand))
    # Check the count-based listing is exactly the brute-force one, with no multiset twice.
    assert keyed(listed) == keyed(expected)
    assert len({repr(sorted(m.items())) for m in listed}) == len(listed)


@settings(max_examples=60, deadline=None)
@given(hand=st.lists(st.sampled_from(FEW_CODES), max_size=7),
       lying=st.dictionaries(st.sampled_from(["castle", "pub", "church"]),
                             st.lists(st.sampled_from(["one", JOKER]), max_size=3)))
def test_collects_match_brute_force(hand, lying):
    locations = {c: [] for c in COLOURS}
    for colour, cards in lying.items():
        locations[colour] = [colour + "1" if c == "one" else c for c in cards]
    expected = [{"type": "draw"}]
    expected += [{"type": "collect", "location": loc, "cards": cards}
                 for loc in COLOURS if locations[loc]
                 for cards in sub_multisets(hand) if is_hunt(locations[loc] + cards, loc)]
    assert keyed(moves.start_of_turn(ordered(hand), locations)) == keyed(expected)


def test_a_large_hand_is_listed_by_counts():
    # Check a hand of 10 castle1, 5 castle2 and 10 jokers lists one hunt per (ones, twos,
    # jokers) count that makes a hunt, and no joker-only hunt in the other five colours.
    hand = ["castle1"] * 10 + ["castle2"] * 5 + [JOKER] * 10
    listed = moves.after_draw(hand)
    hunts = [m for m in listed if m["type"] == "hunt"]
    shapes = {(Counter(m["cards"])["castle1"], Counter(m["cards"])["castle2"],
               Counter(m["cards"])[JOKER]) for m in hunts}
    expected = {(i, k, j) for i in range(11) for k in range(6) for j in range(11)
                if i + k >= 1 and i + k + j >= 3}
    assert shapes == expected and len(hunts) == len(expected) == 11 * 6 * 11 - 11 - 7
    assert {m["colour"] for m in hunts} == {"castle"}
    assert len([m for m in listed if m["type"] == "discard"]) == 2 + 6


def candidates(game, player, rng):
    """Commands to try, in the canonical form legal moves use: many illegal, some legal."""
    hand = game.hands[player]
    out = [{"type": "draw"}]
    for card in sorted(set(hand) | set(rng.sample(ALL_CODES, 3))):
        out.append({"type": "discard", "card": card, "location": colour_of(card) or "pub"})
        out.append({"type": "discard", "card": card, "location": rng.choice(COLOURS)})
    for _ in range(6):
        cards = rng.sample(hand, rng.randint(0, min(5, len(hand))))
        if rng.random() < 0.3:
            cards.append(rng.choice(ALL_CODES))
        out.append({"type": "hunt", "cards": ordered(cards), "colour": rng.choice(COLOURS)})
        out.append({"type": "collect", "location": rng.choice(COLOURS),
                    "cards": ordered(cards[:3])})
    legal = game.legal_moves(player)
    for move in rng.sample(legal, min(4, len(legal))):
        if "cards" in move:  # near misses: one card fewer, one joker more
            out.append({**move, "cards": move["cards"][1:]})
            out.append({**move, "cards": ordered(move["cards"] + [JOKER])})
    return out


def test_legal_moves_exact_at_the_start_of_a_turn_and_after_a_draw():
    import random
    rng = random.Random(4)
    hands = {ANN: ["pub1", "pub2", "W", "castle1"], BEN: ["pub2", "W", "W", "docks1"],
             CAT: ["church1"] * 4}
    table = new_table(seed=1, deal=deal(round_deal(hands, ["pub1", "W", "castle2", "pub1"])))
    # Ann discards a pub1 under the pub, so Ben may collect the pub in several ways.
    table.act(ANN, {"type": "draw"})
    table.act(ANN, {"type": "discard", "card": "pub1", "location": "pub"})
    listed = table.game.legal_moves(BEN)
    assert {"type": "collect", "location": "pub", "cards": ["pub2"]} in listed
    assert {"type": "collect", "location": "pub", "cards": ["pub2", "W", "W"]} in listed
    table.check_legal_moves_exact(BEN, candidates(table.game, BEN, rng))
    table.act(BEN, {"type": "draw"})
    table.check_legal_moves_exact(BEN, candidates(table.game, BEN, rng))
    # Check the others have no legal move while Ben is to act.
    assert table.game.legal_moves(ANN) == [] == table.game.legal_moves(CAT)


def test_legal_moves_exact_with_a_grown_hand():
    import random
    rng = random.Random(5)
    table = new_table(seed=17)
    # Twenty turns of draw-and-discard grow every hand by one card a turn.
    for _ in range(20):
        draw_and_discard(table)
    player = table.game.to_act[0]
    table.act(player, {"type": "draw"})
    assert len(table.game.hands[player]) == 4 + 6 + 2  # dealt, six turns of +1, this draw
    table.check_legal_moves_exact(player, candidates(table.game, player, rng))
