"""Tables that other workers create at the same moment (service/store/ddl.py): the steps a losing
worker's DDL fails with are tried again; any other failure is not."""

from __future__ import annotations

import pytest
from eventsourcing.persistence import IntegrityError, ProgrammingError

from service.store.ddl import retry_concurrent_ddl


def failing(*failures: Exception):
    """A build that fails with `failures` in turn, then answers how many calls it took."""
    calls = []

    def build() -> int:
        calls.append(1)
        if len(calls) <= len(failures):
            raise failures[len(calls) - 1]
        return len(calls)

    return build


def test_a_row_type_another_worker_just_made_is_tried_again():
    # Seen when two gunicorn workers booted together: the loser's CREATE TABLE IF NOT EXISTS
    # found the winner's row type, and the worker failed to boot, stopping the server.
    build = failing(ProgrammingError('type "readmodels_tracking" already exists'),
                    IntegrityError("duplicate key value violates unique constraint "
                                   '"pg_type_typname_nsp_index"'))
    assert retry_concurrent_ddl(build) == 3


def test_other_programming_errors_are_not_tried_again():
    build = failing(ProgrammingError('syntax error at or near "TABLE"'))
    with pytest.raises(ProgrammingError, match="syntax error"):
        retry_concurrent_ddl(build)


def test_it_gives_up_after_its_attempts():
    build = failing(*[ProgrammingError('relation "t" already exists')] * 3)
    with pytest.raises(ProgrammingError, match='relation "t" already exists'):
        retry_concurrent_ddl(build, attempts=3)
