"""Player names (docs/api.md, "Rate limits and names"): the one home of the rule.

A name is trimmed and NFC-normalised, then must be 1 to MAX_NAME_LENGTH characters with no
control, format, line or paragraph separator, private-use or surrogate character (categories
Cc, Cf, Zl, Zp, Co, Cs: invisible or reordering characters make look-alike seats); and no two
names of a game may be equal after casefold() ("Ann" and "ann", "STRASSE" and "straße").
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from domain.core.errors import BadSetup
from domain.core.words import N_

MAX_NAME_LENGTH = 40
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs"})
# The rule of replay format 1, under which recorded games were seated: printable ASCII-wise.
_RECORDED = re.compile(r"^[^\x00-\x1f\x7f]+$")


def seated_form(name: str) -> str:
    """A name as it would be seated (trimmed, NFC), unchecked: for looking a seat up by a name
    typed another way (an "ë" as e + U+0308 from some keyboards finds the seated "ë")."""
    return unicodedata.normalize("NFC", name.strip())


def seat_name(name: Any) -> str:
    """A name as the rule seats it (trimmed, NFC); BadSetup saying what is wrong with it."""
    if not isinstance(name, str):
        raise BadSetup(N_("players must be a list of names"))
    trimmed = name.strip()  # Unicode whitespace at either end, controls such as TAB included
    for char in trimmed:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise BadSetup(N_("player names may not hold control or format characters "
                              "(U+%(code)s in %(name)r)"), code=f"{ord(char):04X}", name=name)
    seated = seated_form(trimmed)
    if not 1 <= len(seated) <= MAX_NAME_LENGTH:
        raise BadSetup(N_("player names must be 1 to %(max_name_length)s characters once trimmed"),
                       max_name_length=MAX_NAME_LENGTH)
    return seated


def seat_names(players: Any) -> list[str]:
    """Every name seated by the rule, none equal to another after casefold()."""
    if not isinstance(players, list):
        raise BadSetup(N_("players must be a list of names"))
    seated = [seat_name(p) for p in players]
    folded = [name.casefold() for name in seated]
    if len(set(folded)) != len(folded):
        twins = sorted({n for n, f in zip(seated, folded, strict=True) if folded.count(f) > 1})
        raise BadSetup(N_("player names must be distinct, also after casefold(): %(twins)s"),
                       twins=', '.join(twins))
    return seated


def check_recorded_names(players: Any) -> list[str]:
    """Names as a replay document recorded them, checked by the rule of their day (format 1:
    1-40 characters without ASCII controls, distinct): an old game keeps verifying."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise BadSetup(N_("players must be a list of names"))
    for name in players:
        if not name.strip() or len(name) > MAX_NAME_LENGTH or not _RECORDED.match(name):
            raise BadSetup(N_("player names must be 1 to %(max_name_length)s printable characters"),
                           max_name_length=MAX_NAME_LENGTH)
    if len(set(players)) != len(players):
        raise BadSetup(N_("player names must be distinct"))
    return list(players)


def check_seated_names(players: list[str]) -> None:
    """Names a game is about to be stored with already follow the rule (an import: its seats
    are the recorded ones, so a name the rule would change or refuse is refused)."""
    if seat_names(players) != players:
        raise BadSetup(N_("the document seats names the rule does not allow now (trimmed, NFC, "
                          "no control or format characters, distinct after casefold())"))
