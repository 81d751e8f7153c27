"""Domain errors: a small hierarchy every game raises and every layer above translates."""

from __future__ import annotations

from domain.core.words import Said, fill


class GameError(Said, Exception):
    """Base class of everything the rules refuse or cannot read."""


class BadCommand(GameError):
    """A command whose shape is wrong: unknown type, missing or mistyped field, unknown player."""


class BadSetup(GameError):
    """Creation parameters a game cannot start from: player count, options, a stacked deal."""


class Refusal(GameError):
    """A well-formed command the rules refuse; carries the ruling it breaks (e.g. ``VQ-7``)."""

    code = "illegal_move"

    def __init__(self, rule: str, message: str, /, **params: object) -> None:
        super().__init__(message, **params)
        self.rule = rule

    @property
    def message(self) -> str:
        """The refusal's sentence in English."""
        return fill(self.template, self.params)

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})"


class NotYourTurn(Refusal):
    """A command from a player whose move is not awaited now."""

    code = "not_your_turn"


class OutOfTime(Refusal):
    """A seat's move that comes after its clock ran out (the table's ruling, CL-1): the clock's
    move is stored instead."""

    code = "out_of_time"


class GameFinished(Refusal):
    """A command sent after the last phase, round or turn has ended."""


class Aborted(BadCommand):
    """A command sent to a game its host aborted: nothing further is accepted (409)."""
