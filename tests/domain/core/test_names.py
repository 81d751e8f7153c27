"""Player names (docs/api.md, "Rate limits and names"): trimmed, NFC-normalised, 1-40 characters, no
control or format characters, and no two equal after casefold() — at creation and import."""

from __future__ import annotations

import re
import unicodedata

import pytest

from domain import game_class
from domain.core import BadSetup
from domain.core.names import MAX_NAME_LENGTH, seat_names

NFD_ZOE = unicodedata.normalize("NFD", "Zoë")


@pytest.mark.parametrize("names, seated", [
    (["Ann", "Ben"], ["Ann", "Ben"]),
    ([" Ann ", "\tBen\u00a0"], ["Ann", "Ben"]),  # trimmed, Unicode spaces too
    ([NFD_ZOE, "Ben"], ["Zoë", "Ben"]),  # NFC: one code point for ë
    (["Anne Marie", "Ben"], ["Anne Marie", "Ben"]),  # a space inside is a character
    (["x" * MAX_NAME_LENGTH, "Ben"], ["x" * MAX_NAME_LENGTH, "Ben"]),
    (["\U0001d400" * MAX_NAME_LENGTH, "Ben"], ["\U0001d400" * MAX_NAME_LENGTH, "Ben"]),
])
def test_names_are_trimmed_and_normalised(names, seated):
    assert seat_names(names) == seated


@pytest.mark.parametrize("names, fragment", [
    (["Ann", "ann"], "casefold"),  # look-alike seats
    (["STRASSE", "straße"], "casefold"),
    (["Zoë", NFD_ZOE], "casefold"),  # NFC/NFD twins
    (["Ann", " Ann"], "casefold"),
    (["", "Ben"], "1 to 40"),
    (["   ", "Ben"], "1 to 40"),
    (["x" * (MAX_NAME_LENGTH + 1), "Ben"], "1 to 40"),
    (["An\u200bn", "Ben"], "U+200B"),  # zero-width space (Cf)
    (["\u202eAnn", "Ben"], "U+202E"),  # right-to-left override (Cf)
    (["Ann\u2066", "Ben"], "U+2066"),  # bidirectional isolate (Cf)
    (["An\u0085n", "Ben"], "U+0085"),  # C1 control (Cc)
    (["An\x00n", "Ben"], "U+0000"),
    (["An\nn", "Ben"], "U+000A"),
    (["An\u2028n", "Ben"], "U+2028"),  # line separator (Zl)
    (["An\u2029n", "Ben"], "U+2029"),  # paragraph separator (Zp)
    (["An\ue000n", "Ben"], "U+E000"),  # private use (Co)
    (["An\ud800n", "Ben"], "U+D800"),  # lone surrogate (Cs)
    (["Ann", 7], "list of names"),
])
def test_names_breaking_the_rule_are_refused(names, fragment):
    with pytest.raises(BadSetup, match=re.escape(fragment)):
        seat_names(names)


def test_every_game_seats_names_by_the_rule():
    for key in ("vampire-queen", "voodoo-prince", "vampir", "vampiring"):
        cls = game_class(key)
        count = cls.MIN_PLAYERS
        names = [" Ann", NFD_ZOE, "Cy ", "Dee", "Eve"][:count]
        game = cls.start(names, seed=1)
        assert game.players == seat_names(names)
        with pytest.raises(BadSetup, match="player names must be distinct, also after "
                                           "casefold"):
            cls.start(["Ann", "ANN", "Cy", "Dee"][:max(count, 2)], seed=1)


def test_recorded_names_are_taken_as_recorded():
    # A replay document from before the rule (format 1) seated "Ann" and "ann": verifying it
    # re-runs the game with the names as recorded, under the rule of its day.
    cls = game_class("voodoo-prince")
    game = cls.start(["Ann", "ann"], seed=1, recorded=True)
    assert game.players == ["Ann", "ann"]
    with pytest.raises(BadSetup, match="^player names must be distinct$"):
        cls.start(["Ann", "Ann"], seed=1, recorded=True)
