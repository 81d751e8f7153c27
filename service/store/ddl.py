"""Creating tables that other workers may be creating at the same moment.

gunicorn starts its workers together, and each builds its Application and read-model views on
the same store. On PostgreSQL the loser of a concurrent `CREATE TABLE IF NOT EXISTS` /
`CREATE OR REPLACE FUNCTION` fails with a unique violation on pg_type, "tuple concurrently
updated" or 'type "…" already exists' (the table's row type, made by the winner meanwhile);
on both stores two new tracking tables each record their migration row, and the second insert
fails. Once the winner has committed, the same idempotent steps succeed — and a
worker that failed to boot would stop gunicorn altogether.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from eventsourcing.persistence import IntegrityError, InternalError, ProgrammingError

T = TypeVar("T")

DDL_ATTEMPTS = 8


def retry_concurrent_ddl(build: Callable[[], T], attempts: int = DDL_ATTEMPTS) -> T:
    """`build()`, retried with a short random back-off while another worker's DDL wins."""
    for attempt in range(attempts):
        try:
            return build()
        except (IntegrityError, InternalError, ProgrammingError) as exc:
            if attempt == attempts - 1 or (isinstance(exc, ProgrammingError)
                                           and "already exists" not in str(exc)):
                raise
            time.sleep(0.05 * (attempt + 1) + random.random() * 0.05)
    raise AssertionError("not reached")
