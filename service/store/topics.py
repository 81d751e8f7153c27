"""The stored topics of the service's own aggregates: where each was first stored.

A stored event's topic is `module:Class.Event` (eventsourcing's `get_topic`), and it is part of
the record: a store written by 0.1.0 holds `service.tokens:Credentials.Issued`. The modules
moved to their rooms (issue 30), and their aggregates keep the topics they were first stored
under: `@stored_as("service.tokens")` makes the aggregate and its events name that module, and
lets eventsourcing resolve the old name to the module they live in now.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

from eventsourcing.domain import CanMutateAggregate
from eventsourcing.utils import register_topic

T = TypeVar("T", bound=type)


def stored_as(module: str) -> Callable[[T], T]:
    """Keep `module` as the module an aggregate's stored topics name (the record's name)."""

    def keep(aggregate: T) -> T:
        home = sys.modules[aggregate.__module__]
        events = [v for v in vars(aggregate).values()
                  if isinstance(v, type) and issubclass(v, CanMutateAggregate)]
        for each in (aggregate, *events):
            each.__module__ = module
        register_topic(module, home)
        return aggregate

    return keep
