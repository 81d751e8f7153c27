"""serving.gcpause: a served worker's full collections walk only what came since the last one, and
the frozen objects are unfrozen now and then, so cyclic garbage is still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from api import create_app
from serving import gcpause, wsgi


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


@pytest.mark.parametrize("setting, frozen", [("1", True), ("0", False)])
def test_a_served_worker_pauses_collections_unless_told_not_to(installed, sqlite_env, setting,
                                                               frozen):
    app = create_app({"TESTING": True, "GRUFT_ENV": sqlite_env, "GRUFT_GC_FREEZE": setting})
    gc.unfreeze()
    callbacks = len(gc.callbacks)
    # Check GRUFT_GC_FREEZE=0 leaves the collector as Python has it: a full collection
    # freezes nothing; by default the worker's survivors are frozen.
    assert wsgi.pause_collections(app) is frozen
    assert len(gc.callbacks) == callbacks + frozen
    gc.collect()
    assert (gc.get_freeze_count() > 0) is frozen
    app.extensions["gruft"].close()
