"""The rulebook's end-of-game example (end of the German booklet), replayed as a whole round.

The booklet's colours map onto the locations as: green = graveyard, grey = castle, orange = pub,
violet = madhouse, yellow = church, red = docks. In the example Chris and Doro have the fewest
green vampires and lose them, Anke loses grey and Doro orange; in violet, yellow and red somebody
shows nothing, so everybody keeps those; the totals are Anke 28, Bernd 27, Chris 20, Doro 19.
Here Anke's sixth colour ends the round (VA-8), so the same pattern comes out of real play.
"""

from __future__ import annotations

from itertools import zip_longest

from domain.vampir import GAME
from tests.domain.kit import Table

from .kit import check_cards_accounted, deal, play_script, scripted_round

ANKE, BERND, CHRIS, DORO = "Anke", "Bernd", "Chris", "Doro"
PLAYERS = [ANKE, BERND, CHRIS, DORO]


def hunt(colour: str, *cards: str):
    return ("hunt", colour, list(cards))


def discard(card: str, location: str | None = None):
    return ("discard", card, location or ("castle" if card == "W" else card[:-1]))


def collect(location: str, *cards: str):
    return ("collect", location, list(cards))


PLANS = {
    # Anke: five colours in six turns, then waits for her sixth (church) with spare discards.
    ANKE: [
        hunt("graveyard", "graveyard2", "graveyard2", "graveyard2"),  # 6 heads
        hunt("pub", "pub2", "pub2", "pub2"),  # 6
        hunt("madhouse", "madhouse2", "madhouse2", "madhouse2"),  # 6
        hunt("castle", "castle1", "castle1", "castle1"),  # 3: the fewest grey heads
        discard("W", "graveyard"),
        hunt("docks", "docks2", "docks2", "docks1"),  # 5
        discard("W", "graveyard"), discard("madhouse1"), discard("graveyard1"), discard("pub1"),
        hunt("church", "church2", "church2", "church1"),  # 5: her sixth colour ends the round
    ],
    BERND: [
        hunt("graveyard", "graveyard2", "graveyard2", "graveyard1"),  # 5
        hunt("pub", "pub2", "pub1", "pub1"),  # 4
        discard("W", "madhouse"),
        hunt("castle", "castle2", "castle2", "castle1", "castle1"),  # 6
        discard("W", "castle"),
        hunt("docks", "docks2", "docks2", "docks1", "docks1"),  # 6
        discard("graveyard1"), discard("pub1"), discard("madhouse1"),
        hunt("church", "church2", "church1", "church1", "church1", "church1"),  # 6
    ],
    CHRIS: [
        hunt("graveyard", "graveyard1", "graveyard1", "graveyard1"),  # 3: fewest green, tied
        hunt("pub", "pub2", "pub1", "pub1"),  # 4
        discard("docks1"),  # laid under the docks, to be collected back
        hunt("madhouse", "madhouse2", "madhouse1", "madhouse1", "madhouse1"),  # 5
        discard("docks1"),
        discard("W", "pub"),
        hunt("castle", "castle2", "castle1", "W", "W"),  # 5, two jokers filling in
        discard("madhouse1"), discard("graveyard1"),
        collect("docks", "docks2", "docks1"),  # 3 docks1 collected + 2 from the hand: 6
    ],
    DORO: [
        hunt("graveyard", "graveyard1", "graveyard1", "W"),  # 3: fewest green, tied
        hunt("pub", "pub1", "pub1", "pub1"),  # 3: the fewest orange heads
        discard("church1"),
        hunt("madhouse", "madhouse2", "madhouse1", "madhouse1", "madhouse1"),  # 5
        discard("church1"),
        discard("W", "castle"),
        hunt("castle", "castle2", "castle2", "castle1", "castle1", "castle1"),  # 7
        discard("madhouse1"), discard("W", "madhouse"),
        collect("church", "church2", "church2"),  # 3 church1 collected + 2 from the hand: 7
    ],
}


def script():
    """The plans interleaved in seat order, Anke first."""
    turns = []
    for row in zip_longest(*(PLANS[p] for p in PLAYERS)):
        for player, step in zip(PLAYERS, row, strict=True):
            if step is not None:
                turns.append((player, *step))
    return turns


def test_rulebook_end_of_game_example_va8_va9_va10_va11():
    turns = script()
    table = Table(GAME, PLAYERS, seed="booklet", options={"rounds": 1},
                  deal=deal(scripted_round(PLAYERS, turns)))
    # Check the whole round plays as planned, ending on Anke's sixth colour (VA-8).
    events = play_script(table, turns)
    assert table.types(events)[-2:] == ["RoundScored", "GameFinished"]
    scored = events[-2]
    assert scored.reason == "six_colours" and scored.ended_by == ANKE
    # Check the colour-by-colour losses are the booklet's (VA-10).
    assert scored.lost == {
        "castle": [ANKE],  # grey
        "graveyard": [CHRIS, DORO],  # green: a tie, both lose
        "madhouse": [],  # violet: Bernd shows none
        "docks": [],  # red: Doro shows none
        "church": [],  # yellow: Chris shows none
        "pub": [DORO],  # orange
    }
    # Check the points (VA-11) and that Anke's leftover hand scored nothing (VA-9).
    assert scored.points == {ANKE: 28, BERND: 27, CHRIS: 20, DORO: 19}
    assert table.game.scores == {ANKE: 28, BERND: 27, CHRIS: 20, DORO: 19}
    assert table.game.winners == [ANKE]
    assert table.game.finished and table.game.to_act == []
    assert all(hand == [] for hand in table.game.hands.values())
    check_cards_accounted(table)
    table.check_rebuilt()
