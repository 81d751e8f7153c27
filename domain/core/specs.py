"""What a game declares besides its rules: its options, its commands' fields, its metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from domain.core.errors import BadCommand, BadSetup
from domain.core.words import N_


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


@dataclass(frozen=True)
class Option:
    """A game option: its default and what it may be (an integer range, or a set of words)."""

    default: Any
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False

    def read(self, name: str, value: Any) -> Any:
        """The checked value, or BadSetup with a sentence."""
        if value is None and self.nullable:
            return None
        if self.choices:
            if value not in self.choices:
                raise BadSetup(N_("option %(name)r must be one of %(choices)s"), name=name,
                               choices=', '.join(self.choices))
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise BadSetup(N_("option %(name)r must be a whole number"), name=name)
        if not self.low <= value <= self.high:
            raise BadSetup(N_("option %(name)r must be from %(low)s to %(high)s"), name=name,
                           low=self.low, high=self.high)
        return value


@dataclass(frozen=True)
class Param:
    """A command field: a card code or word (``str``) or a list of them (``list``)."""

    kind: type
    required: bool = True
    choices: tuple[str, ...] = ()

    LIST_MAX = 200  # cards one list field may name (more than any hand holds)
    WORD_MAX = 20  # characters of one card code or word (the API's schema checks it)

    def read(self, name: str, value: Any) -> Any:
        """The checked value, or BadCommand with a sentence."""
        if self.kind is list:
            if not isinstance(value, list) or not all(map(_is_str, value)):
                raise BadCommand(N_("field %(name)r must be a list of card codes"), name=name)
            if len(value) > self.LIST_MAX:
                raise BadCommand(N_("field %(name)r is too long"), name=name)
            return list(value)
        if not isinstance(value, str):
            raise BadCommand(N_("field %(name)r must be a string"), name=name)
        if self.choices and value not in self.choices:
            raise BadCommand(N_("field %(name)r must be one of %(choices)s"), name=name,
                             choices=', '.join(self.choices))
        return value


@dataclass(frozen=True)
class Metric:
    """A per-game average the statistics keep: its name in the answer, what one sample is."""

    name: str
    description: str


# (player, metric name, value): one sample; a metric's average is the mean of its samples.
Sample = tuple[str, str, float]


@dataclass(frozen=True)
class Command:
    """A command type: the method that runs it and its fields."""

    method: str
    params: dict[str, Param] = field(default_factory=dict)

    @cached_property
    def accepted(self) -> frozenset[str]:
        """The fields a command of this type may carry: its own and its `type`."""
        return frozenset(self.params) | {"type"}

    def read(self, type_: str, command: dict[str, Any]) -> dict[str, Any]:
        """The command's fields, checked; unknown and missing fields are refused."""
        if not command.keys() <= self.accepted:
            unknown = sorted(set(command) - set(self.params) - {"type"})
            raise BadCommand(N_("command %(type_)r has no field %(unknown)s"), type_=type_,
                             unknown=', '.join(map(repr, unknown)))
        fields = {}
        for name, param in self.params.items():
            if name in command:
                fields[name] = param.read(name, command[name])
            elif param.required:
                raise BadCommand(N_("command %(type_)r needs the field %(name)r"), type_=type_,
                                 name=name)
        return fields
