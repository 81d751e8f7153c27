"""Plain words for every event: one small narrator per game, on this shared base.

Texts are written for people stepping through a replay (the web viewer serves them with the
page). A player's perspective gets each event described as that player saw it then: the data goes
through the domain's own redaction (`redact_event_data`), so no narrator invents a rule about
what is secret. Pure text from event data: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from domain.core.visibility import Viewer, redact_event_data


def describe(game_cls: Any, records: list[dict[str, Any]], players: list[str],
                    options: dict[str, Any], *, strict: bool = False) -> list[dict[str, Any]]:
    """Each event in plain words, plus the words each player saw where their view differed.

    Texts are written walking the log in order, because some need context (the led colour, the
    lead of a round). A player's text comes from the event data as redacted for that player
    while the game was running. `strict` lets a describer's error surface (tests).
    """
    narrator = game_cls.NARRATOR(players, options)
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
         options: dict[str, Any]) -> list[dict[str, Any]]:
    """Each event in plain words from the records exactly as given: a viewer's redacted log.

    For a page that may show only what its viewer may see (a seat during play): the texts and
    the context later texts need are both taken from those records, never from the whole data.
    """
    narrator = game_cls.NARRATOR(players, options)
    out = []
    for i, record in enumerate(records):
        following = records[i + 1] if i + 1 < len(records) else None
        type_, data = record["type"], record["data"]
        out.append({"version": record["version"], "type": type_,
                    "text": narrator.text(type_, data, following)})
        # What this viewer was not shown leaves later texts with less context, never an error.
        with suppress(KeyError, TypeError, ValueError, IndexError, AttributeError):
            narrator.learn(type_, data)
    return out


NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


def names(items: list[str]) -> str:
    """'Ann', 'Ann and Bob', 'Ann, Bob and Cid'."""
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


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
    UNIT = "points"

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        self.players = list(players)
        self.options = dict(options)

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
        text = f"{names(d['players'])} sit down to {self.TITLE}"
        text += f" ({self.setup_words()})." if self.setup_words() else "."
        commitment = str(d.get("seed_commitment", ""))[:12]
        if "seed" in d:
            text += f" The seed is {d['seed']} (committed as {commitment}…)"
            text += "; the deal is stacked by hand." if d.get("deal") else "."
        else:
            text += f" The seed is committed as {commitment}… and revealed at the end."
        return text

    def on_GameAborted(self, d: dict, _next: dict | None) -> str:
        return f"The host aborts the game ({d['reason']}): nobody wins."

    def on_SeatHanded(self, d: dict, _next: dict | None) -> str:
        if d["bot"] is None:
            return f"{d['player']} takes their seat back."
        return f"The server's {d['bot']} bot plays {d['player']}'s seat from now on."

    def on_ClockExpired(self, d: dict, _next: dict | None) -> str:
        return f"{d['player']}'s clock runs out: the server's bot makes this move for them."

    def ending(self, d: dict, lead: str = "The game is over") -> str:
        """Who won with how much, and the final scores."""
        winners, scores = list(d.get("winners", [])), dict(d.get("scores", {}))
        if not winners:
            text = f"{lead}: nobody wins"
        elif len(winners) == 1:
            text = f"{lead}: {winners[0]} wins with {scores.get(winners[0])} {self.UNIT}"
        else:
            text = (f"{lead}: {names(winners)} share the win with "
                    f"{scores.get(winners[0])} {self.UNIT}")
        rule = f" ({self.RULE})" if self.RULE else ""
        return f"{text}{rule}. Final scores: {tally(scores)}."
