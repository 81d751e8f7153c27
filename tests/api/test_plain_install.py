"""A plain install (no extras) serves on SQLite: PostgreSQL support is imported only when configured,
and serving needs nothing of the test and benchmark extras (`make serve` installs none of them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The import names of the postgres, bench and test extras (pyproject.toml)
EXTRAS = ("psycopg", "psycopg_pool", "eventsourcing.postgres", "rlcard", "pyinstrument",
          "pytest", "xdist", "hypothesis", "playwright", "schemathesis")

# Runs in a fresh interpreter where no extra can be imported, as after `pip install .`.
SERVE_ON_SQLITE = """
import importlib.abc, json, sys

EXTRAS = tuple(sys.argv[2].split(","))

def extra(name):
    return name in EXTRAS or name.split(".")[0] in EXTRAS

class NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if extra(name):
            raise ImportError(f"{name} is not installed (a plain install)")
        return None

sys.meta_path.insert(0, NoExtras())
from api import create_app

folder = sys.argv[1]
app = create_app({"GRUFT_ENV": {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                "SQLITE_DBNAME": f"{folder}/games.sqlite",
                                "GRUFT_DATA_DIR": f"{folder}/data"}})
client = app.test_client()
created = client.post("/games", json={"game": "vampiring", "players": ["ann", "bob"]})
answers = [created.status_code,
           client.get("/games").status_code,
           client.get("/leaderboard?game=vampiring").status_code,
           client.get("/players/ann/stats").status_code,
           client.get(f"/games/{created.json['game_id']}").status_code,
           client.get("/").status_code]
listed = [g["game_id"] for g in client.get("/games").json["games"]]
loaded = sorted(m for m in sys.modules if extra(m))
print(json.dumps({"answers": answers, "listed": listed == [created.json["game_id"]],
                  "loaded": loaded}))
"""


def test_a_plain_install_serves_on_sqlite_without_postgres_support(tmp_path):
    done = subprocess.run([sys.executable, "-c", SERVE_ON_SQLITE, str(tmp_path), ",".join(EXTRAS)],
                          cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    # Check the served app creates, lists and counts games with no extra importable
    assert found["answers"] == [201, 200, 200, 200, 200, 200]
    assert found["listed"]
    # Check nothing imported PostgreSQL support (or any other extra) along the way
    assert found["loaded"] == []
