"""api.gcpause: a served worker's full collections walk only what came since the last one, and
the frozen objects are unfrozen now and then, so cyclic garbage is still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from api import gcpause


class Node:
    """An object in a reference cycle (only the collector frees it)."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def installed():
    callbacks = list(gc.callbacks)
    yield
    gc.callbacks[:] = callbacks
    gc.unfreeze()


def cycle() -> weakref.ref:
    """A weak reference to a new object kept alive by nothing but its own cycle."""
    return weakref.ref(Node())


def test_survivors_of_a_full_collection_are_frozen(installed):
    gcpause.install(unfreeze_every=3600)
    assert gc.get_freeze_count() > 0  # what the worker held when installed
    gc.unfreeze()
    gc.collect()
    assert gc.get_freeze_count() > 0  # the survivors of that full collection
    # Check new garbage is still collected: only the survivors were frozen.
    garbage = cycle()
    gc.collect()
    assert garbage() is None


def test_frozen_objects_are_unfrozen_and_collected_in_time(installed):
    gcpause.install(unfreeze_every=0)  # every full collection unfreezes
    kept = Node()
    ref = weakref.ref(kept)
    gc.collect()
    del kept  # a cycle that became garbage while frozen, or not
    gc.collect()  # unfreezes (nothing frozen after this one)
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert ref() is None


def test_a_full_collection_freezes_nothing_without_it():
    gc.unfreeze()
    gc.collect()
    assert gc.get_freeze_count() == 0
