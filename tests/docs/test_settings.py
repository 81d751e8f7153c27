"""Settings are read once, in one place, and every one is documented (issue 21, item 5)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from service.settings import Settings, SettingsError, storage_env

ROOT = Path(__file__).resolve().parents[2]
DEPLOYMENT = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
# A read of a gruft variable: env.get("GRUFT_…"), environ["GRUFT_…"] (not an assignment).
READ = re.compile(r'\.get\(\s*"(GRUFT_[A-Z_]+|READMODELS_BATCH|GAMES_DB|SNAPSHOT_INTERVAL)"'
                  r'|\[\s*"(GRUFT_[A-Z_]+|READMODELS_BATCH|SNAPSHOT_INTERVAL)"\s*\](?!\s*=[^=])')
NOT_SETTINGS = {"GRUFT_ENV",  # the app's config key for an eventsourcing environment (tests)
                "GRUFT_POSTGRES"}  # the test suite's: whether PostgreSQL is reachable


def documented(name: str) -> bool:
    """A row of docs/deployment.md's tables names the variable."""
    return re.search(rf"^\|[^|\n]*`{re.escape(name)}`", DEPLOYMENT, re.MULTILINE) is not None


def test_every_setting_is_documented():
    # Check gruft's own settings and eventsourcing's that gruft gives a default.
    given = set(storage_env({"PERSISTENCE_MODULE": "eventsourcing.postgres"}))
    given |= set(storage_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                              "SQLITE_DBNAME": ":memory:"}))
    missing = [name for name in (*Settings.variables(), *sorted(given)) if not documented(name)]
    assert not missing, f"docs/deployment.md has no row for {missing}"


def test_no_module_reads_a_setting_of_its_own():
    # Check only service/settings.py reads gruft's variables; everyone else asks Settings.
    readers = []
    for folder in ("api", "service", "bots", "cli", "replays", "domain", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "service" / "settings.py":
                continue
            for match in READ.finditer(path.read_text(encoding="utf-8")):
                if (match.group(1) or match.group(2)) not in NOT_SETTINGS:
                    readers.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert not readers, readers


def test_settings_are_typed_and_defaulted():
    # Check the defaults, and values read as their types.
    defaults = Settings.read({})
    assert defaults == Settings()
    assert (defaults.create_limit, defaults.bots, defaults.verify_queue) == ("60/minute",
                                                                             "embedded", 4)
    read = Settings.read({"GRUFT_VERIFY_QUEUE": " 9 ", "GRUFT_BOT_DELAY": "0",
                          "GRUFT_STREAM_WRITER": "0", "GRUFT_STREAMS_MAX": "",
                          "GRUFT_CORS_ORIGINS": " https://a.example/ ,https://b.example"})
    assert read.verify_queue == 9 and read.bot_delay == 0.0 and read.stream_writer is False
    assert read.streams_max is None  # empty: the default
    assert read.cors_origins == ("https://a.example", "https://b.example")


@pytest.mark.parametrize("name, value, takes", [
    ("GRUFT_VERIFY_QUEUE", "lots", "a whole number from 1 up"),
    ("GRUFT_VERIFY_QUEUE", "0", "a whole number from 1 up"),
    ("GRUFT_PORT", "70000", "a whole number from 0 to 65535"),
    ("GRUFT_BOT_DELAY", "61", "seconds from 0 to 60"),
    ("GRUFT_BOTS", "sometimes", "'embedded' or 'external'"),
    ("GRUFT_GC_FREEZE", "yes", "0 (off) or 1 (on)"),
])
def test_a_value_that_cannot_work_is_named(name, value, takes):
    # Fail to read a bad value: the error names the variable, the value and what it takes.
    said = f"{name}={value!r} cannot work: it takes {takes}"
    with pytest.raises(SettingsError, match=f"^{re.escape(said)}$"):
        Settings.read({name: value})


def test_serve_stops_with_one_line_on_a_bad_setting(tmp_path):
    # Fail to serve with a port that cannot work: exit 2, one line, no traceback.
    env = {"PATH": "/usr/bin:/bin", "GAMES_DB": str(tmp_path / "games.sqlite"),
           "GRUFT_PORT": "eighty"}
    done = subprocess.run([sys.executable, "-m", "cli", "serve"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == ["gruft serve: GRUFT_PORT='eighty' cannot work: it takes "
                                        "a whole number from 0 to 65535"]
