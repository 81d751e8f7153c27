"""Plain words for every event: one small narrator per game, on this shared base.

Texts are written for people stepping through a replay (the web viewer serves them with the
page), in the reader's language: a narrator is given the reader's `gettext` and `ngettext`
(English when none is given) and says every sentence through `self._` and `self.ngettext`, whose
templates Babel extracts into the catalogs (docs/translating.md). A player's perspective gets
each event described as that player saw it then: the data goes through the domain's own redaction (`redact_event_data`), so no narrator invents a rule about
what is secret. Pure text from event data: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from copy import deepcopy
from typing import Any

from domain.core.visibility import Viewer, redact_event_data
from domain.core.words import (
    N_,
    Gettext,
    Ngettext,
    Term,
    english,
    english_plural,
    fill,
    fill_plural,
)

# The server's bots by kind (service.table.seats' BOT_KINDS), in words.
BOT_WORDS = {"heuristic": N_("heuristic"), "random": N_("random")}


def describe(game_cls: Any, records: list[dict[str, Any]], players: list[str],
             options: dict[str, Any], *, strict: bool = False, gettext: Gettext = english,
             ngettext: Ngettext = english_plural) -> list[dict[str, Any]]:
    """Each event in plain words, plus the words each player saw where their view differed.

    Texts are written walking the log in order, because some need context (the led colour, the
    lead of a round). A player's text comes from the event data as redacted for that player
    while the game was running. `strict` lets a describer's error surface (tests); `gettext`
    and `ngettext` say it in the reader's language.
    """
    narrator = game_cls.NARRATOR(players, options, gettext, ngettext)
    secret_fields = game_cls.SECRET_FIELDS
    out = []
    for i, record in enumerate(records):
        following = records[i + 1] if i + 1 < len(records) else None
        type_, data = record["type"], record["data"]
        text = narrator.text(type_, data, following, strict=strict)
        seen = {}
        for player in players:
            shown = redact_event_data(secret_fields, type_, data, Viewer(player=player), False)
            if shown != data:
                own = narrator.text(type_, shown, following, strict=strict)
                if own != text:
                    seen[player] = own
        narrator.learn(type_, data)
        item = {"version": record["version"], "type": type_, "text": text}
        if seen:
            item["seen"] = seen
        out.append(item)
    return out


def tell(game_cls: Any, records: list[dict[str, Any]], players: list[str],
         options: dict[str, Any], *, gettext: Gettext = english,
         ngettext: Ngettext = english_plural) -> list[dict[str, Any]]:
    """Each event in plain words from the records exactly as given: a viewer's redacted log.

    For a page that may show only what its viewer may see (a seat during play): the texts and
    the context later texts need are both taken from those records, never from the whole data.
    `gettext` and `ngettext` say it in the reader's language.
    """
    return tell_on(game_cls.NARRATOR(players, options, gettext, ngettext), records)


def tell_on(narrator: Narrator, records: list[dict[str, Any]], after: int = 0,
            keep: Callable[[int, Narrator], None] | None = None) -> list[dict[str, Any]]:
    """The records after version `after` in plain words, told by a narrator that has learned the
    records before the first given (`remembered` and `resume` carry that over between calls),
    so the newest events are told without walking the log again (issue 32, item 8). Every record
    given is learned; `keep(version, narrator)` is called after each is.
    """
    out = []
    for i, record in enumerate(records):
        type_, data = record["type"], record["data"]
        if record["version"] > after:
            following = records[i + 1] if i + 1 < len(records) else None
            out.append({"version": record["version"], "type": type_,
                        "text": narrator.text(type_, data, following)})
        # What this viewer was not shown leaves later texts with less context, never an error.
        with suppress(KeyError, TypeError, ValueError, IndexError, AttributeError):
            narrator.learn(type_, data)
        if keep is not None:
            keep(record["version"], narrator)
    return out


LANGUAGE = ("gettext", "_ngettext")  # a narrator's attributes that say, not remember


def remembered(narrator: Narrator) -> dict[str, Any]:
    """What a narrator has learned (its attributes but the reader's language), as a copy that
    its later learning leaves as it is: the same for every language."""
    return {name: deepcopy(value) for name, value in vars(narrator).items()
            if name not in LANGUAGE}


def resume(narrator: Narrator, learned: dict[str, Any]) -> Narrator:
    """A fresh narrator given what another had learned (`remembered`); returns it."""
    vars(narrator).update(deepcopy(learned))
    return narrator


def names(items: list[str], gettext: Gettext = english) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cid' (in the language `gettext` says)."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return fill(N_("%(names)s and %(last)s"), {"names": ", ".join(items[:-1]),
                                               "last": items[-1]}, gettext)


def tally(values: dict[str, Any]) -> str:
    """'Ann 3, Bob 0'."""
    return ", ".join(f"{name} {value}" for name, value in values.items())


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 card', '2 cards'."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


class Narrator:
    """Plain words for the events every game shares; a game's narrator adds its own `on_<Type>`."""

    TITLE = "the game"  # the game's name in the first sentence
    RULE = ""  # the ruling the end of the game cites
    UNIT = N_("points")

    def __init__(self, players: list[str], options: dict[str, Any],
                 gettext: Gettext = english, ngettext: Ngettext = english_plural) -> None:
        self.players = list(players)
        self.options = dict(options)
        self.gettext, self._ngettext = gettext, ngettext

    def _(self, template: str, **params: Any) -> str:
        """A marked sentence in the reader's language, its placeholders filled in."""
        return fill(template, params, self.gettext)

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        """A sentence whose words depend on the number `n` (also its placeholder %(n)s)."""
        return fill_plural(singular, plural, n, params, self.gettext, self._ngettext)

    def names(self, items: list[str]) -> str:
        """'Ann, Bob and Cid' in the reader's language."""
        return names(items, self.gettext)

    def term(self, word: str) -> str:
        """A word of the game (marked where it is defined) in the reader's language."""
        return self.gettext(word) if word else word

    def text(self, type_: str, data: dict[str, Any], following: dict[str, Any] | None, *,
             strict: bool = False) -> str:
        """One event in plain words; an event this page does not know is named with its data."""
        method: Callable[..., str] | None = getattr(self, f"on_{type_}", None)
        if method is None:
            if strict:
                raise LookupError(f"no description for {type_}")
            return f"{type_}: {data}"
        try:
            return method(data, following)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            # A viewer must show the game even if a game's events change shape under it.
            if strict:
                raise
            return f"{type_}: {data}"

    def learn(self, type_: str, data: dict[str, Any]) -> None:
        """Remember what later texts need from this event (the full data)."""
        method = getattr(self, f"after_{type_}", None)
        if method is not None:
            method(data)

    def setup_words(self) -> str:
        """The game's options in words."""
        return ""

    def on_Created(self, d: dict, _next: dict | None) -> str:
        players, setup = self.names(d["players"]), self.setup_words()
        if setup:
            text = self._("%(players)s sit down to %(game)s (%(setup)s).", players=players,
                          game=self.TITLE, setup=setup)
        else:
            text = self._("%(players)s sit down to %(game)s.", players=players, game=self.TITLE)
        commitment = str(d.get("seed_commitment", ""))[:12]
        if "seed" not in d:
            return text + " " + self._("The seed is committed as %(commitment)s… and revealed "
                                       "at the end.", commitment=commitment)
        if d.get("deal"):
            return text + " " + self._("The seed is %(seed)s (committed as %(commitment)s…); "
                                       "the deal is stacked by hand.", seed=d["seed"],
                                       commitment=commitment)
        return text + " " + self._("The seed is %(seed)s (committed as %(commitment)s…).",
                                   seed=d["seed"], commitment=commitment)

    def on_GameAborted(self, d: dict, _next: dict | None) -> str:
        return self._("The host aborts the game (%(reason)s): nobody wins.", reason=d["reason"])

    def on_Forked(self, d: dict, _next: dict | None) -> str:
        text = self._("This game carries on the table of another game as it stood after "
                      "that game's step %(step)s, every hand and score as they were.",
                      step=int(d["parent"]["version"]))
        if d.get("family") is not None:
            text += " " + self._("Its secrets stay sealed until every game forked from that "
                                 "table is over.")
        return text

    def on_SeatHanded(self, d: dict, _next: dict | None) -> str:
        if d["bot"] is None:
            return self._("%(player)s takes their seat back.", player=d["player"])
        bot = BOT_WORDS.get(d["bot"])
        if bot is None:  # a kind this release does not know: no name to show
            return self._("The server's bot plays %(player)s's seat from now on.",
                          player=d["player"])
        return self._("The server's %(bot)s bot plays %(player)s's seat from now on.",
                      bot=Term(bot), player=d["player"])

    def on_ClocksStarted(self, d: dict, _next: dict | None) -> str:
        reason = d["reason"]
        if reason == "move":
            return self._("The clocks start: the first move was made (it took no time).")
        if reason == "host":
            return self._("The host starts the clocks.")
        return self._("The clocks start: every player is at the table.")

    def on_ClockExpired(self, d: dict, _next: dict | None) -> str:
        return self._("%(player)s's clock runs out: the server's bot makes this move for them.",
                      player=d["player"])

    def ending(self, d: dict, lead: str | None = None) -> str:
        """Who won with how much, and the final scores (`lead`: a sentence said already)."""
        lead = lead or self._("The game is over")
        winners, scores = list(d.get("winners", [])), dict(d.get("scores", {}))
        if not winners:
            text = self._("%(lead)s: nobody wins", lead=lead)
        elif len(winners) == 1:
            text = self._("%(lead)s: %(winner)s wins with %(points)s %(unit)s", lead=lead,
                          winner=winners[0], points=scores.get(winners[0]),
                          unit=Term(self.UNIT))
        else:
            text = self._("%(lead)s: %(winners)s share the win with %(points)s %(unit)s",
                          lead=lead, winners=self.names(winners),
                          points=scores.get(winners[0]), unit=Term(self.UNIT))
        rule = f" ({self.RULE})" if self.RULE else ""
        return text + rule + ". " + self._("Final scores: %(scores)s.", scores=tally(scores))
