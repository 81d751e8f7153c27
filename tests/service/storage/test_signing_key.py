"""The server's signing key is created race-safely when several workers start at once."""

from __future__ import annotations

import multiprocessing

from service.audit.signing import KEY_FILE, SigningKey
from tests.service.storage.kit import BARRIER_TIMEOUT, signing_key_process

SPAWN = multiprocessing.get_context("spawn")
WORKERS = 4


def test_workers_starting_together_keep_one_key(tmp_path):
    barrier, results = SPAWN.Barrier(WORKERS), SPAWN.Queue()
    procs = [SPAWN.Process(target=signing_key_process, args=(str(tmp_path), barrier, results))
             for _ in range(WORKERS)]
    for proc in procs:
        proc.start()
    keys = {results.get(timeout=BARRIER_TIMEOUT * 2) for _ in procs}
    for proc in procs:
        proc.join(BARRIER_TIMEOUT)
        assert proc.exitcode == 0
    # Check all of them ended with the one key kept in the folder, private to its owner.
    assert keys == {SigningKey.load_or_create(tmp_path).public_pem}
    path = tmp_path / KEY_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # no temporary file left
