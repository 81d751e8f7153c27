"""`gruft backup PATH`: a consistent copy of a SQLite store while the server serves it.

SQLite's online backup API, in one step: the copy is one read transaction, which in WAL mode
(gruft's SQLite stores are always in it) sees the store as it stood at one moment while the
workers go on reading and writing beside it; they are never blocked. (Copying in several steps
would let a write by another process between two steps restart the copy, for ever under load.)
The copy is written beside PATH and renamed over it when complete, so PATH is never a half copy,
and it is one self-contained file (no -wal beside it). PostgreSQL: pg_dump does the same there
(docs/deployment.md, "Backups, archives and restores").
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

ONE_STEP = -1  # every page in one step: one read transaction, one moment of the store


def backup_sqlite(source: str, target: str | Path,
                  progress: Callable[[int, int], None] = lambda done, total: None) -> int:
    """Copy the SQLite database `source` to `target` consistently; the number of pages copied."""
    target = Path(target)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst, pages=ONE_STEP,
                       progress=lambda status, remaining, total: progress(total - remaining, total))
            pages = dst.execute("PRAGMA page_count").fetchone()[0]
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        finally:
            dst.close()
    finally:
        src.close()
    os.replace(partial, target)
    return pages
