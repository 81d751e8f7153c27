"""A plain install (no extras) serves on SQLite: PostgreSQL support is imported only when configured,
and serving needs nothing of the test and benchmark extras (`make serve` installs none of them).

And an install as a packager makes one (issue 31): gruft's wheel, installed into a fresh venv
made read-only, served by a user who cannot write there from an empty folder, answers every kind
of page and asset, writes nothing inside its installation, and `pip uninstall` removes it all.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.servers import listening_socket
from domain import available_games
from tests.kit import call, stop, wait_until

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


# -- a wheel, installed where the server cannot write (issue 31, items 1 and 2) ---------------

# What the wheel is built from: the source tree less what is not source (at its top, and anywhere).
NOT_SOURCE_TOP = {".git", ".venv", "data", "build", "dist", "tests", "test-artifacts"}
NOT_SOURCE = {"__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "node_modules"}
OURS = ("api", "domain", "service", "replays", "bots", "bench", "cli")  # the wheel's packages


def not_source(folder: str, names: list[str]) -> set[str]:
    top = Path(folder) == ROOT
    return {n for n in names if n in NOT_SOURCE or (top and n in NOT_SOURCE_TOP)
            or n.endswith((".egg-info", ".mo", ".pyc"))}


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under `folder`, with its size and modification time."""
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in folder.rglob("*")}


def unprivileged(argv: list[str]) -> list[str]:
    """`argv` as user nobody when this runs as root: a server that cannot write its
    installation. It may read and search every folder (CAP_DAC_READ_SEARCH, kept across exec):
    the interpreter and the dependencies may lie in root's own folders (pyenv under /root)."""
    if os.geteuid() != 0:
        return argv  # a user who cannot write a read-only folder anyway
    return [shutil.which("setpriv") or "setpriv", "--reuid=nobody", "--regid=nogroup",
            "--clear-groups", "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
            "--", *argv]


def fetch(port: int, path: str, lang: str | None = None) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Connection": "close", "Accept": "text/html"}
    if lang:
        headers["Accept-Language"] = lang
    try:
        conn.request("GET", path, headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.getheader("Content-Type") or "", answer.read()
    finally:
        conn.close()


ASSETS = re.compile(r'(?:src|href)="(/(?:static|docs)[^"?#]*)')


@pytest.fixture(scope="module")
def installed() -> Iterator[dict[str, Path]]:
    """gruft's wheel, built once, installed alone into a fresh venv (its dependencies seen from
    this one's, so no package is downloaded), in a folder other users can read."""
    root = Path(tempfile.mkdtemp(prefix="gruft-install-"))
    root.chmod(0o755)
    try:
        shutil.copytree(ROOT, root / "src", ignore=not_source)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(root / "dist"), str(root / "src")], check=True, timeout=300,
                       capture_output=True)
        (wheel,) = (root / "dist").glob("gruft-*.whl")
        venv = root / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                       timeout=120)
        site = Path(subprocess.run(
            [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True, capture_output=True, text=True).stdout.strip())
        # The dependencies: this venv's packages, less gruft itself (its editable install).
        deps = root / "deps"
        deps.mkdir()
        ours = re.compile(r"^(gruft[-_.]|__editable__|_gruft|(" + "|".join(OURS) + r")$)")
        for entry in Path(sysconfig.get_path("purelib")).iterdir():
            if not ours.match(entry.name) and not entry.name.endswith(".pth"):
                (deps / entry.name).symlink_to(entry)
        (site / "dependencies.pth").write_text(f"{deps}\n")
        before = listing(venv)
        subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                        "install", "--no-deps", "-q", str(wheel)], check=True, timeout=300,
                       capture_output=True)
        yield {"root": root, "venv": venv, "site": site, "wheel": wheel, "before": before}
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(root)], check=False)
        shutil.rmtree(root, ignore_errors=True)


def test_a_wheel_serves_every_page_from_a_read_only_install_and_uninstalls_clean(installed):
    venv, site = installed["venv"], installed["site"]
    python, gruft = venv / "bin" / "python", venv / "bin" / "gruft"
    # Check the installed code is the wheel's, not this source tree's
    where = subprocess.run([python, "-c", "import api; print(api.__file__)"], cwd="/",
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(site)), where
    assert (site / "api" / "rules_pages" / "de" / "vampiring.md").is_file()  # issue 31, item 1
    subprocess.run(["chmod", "-R", "a-w", str(venv)], check=True)
    installed_files = listing(venv)
    serve_in = installed["root"] / "serving"  # an empty folder: the store and key go there
    serve_in.mkdir()
    if os.geteuid() == 0:
        os.chown(serve_in, 65534, 65534)  # nobody's, who serves
    sock = listening_socket()
    port = sock.getsockname()[1]
    log = installed["root"] / "serve.log"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GRUFT_", "PROMETHEUS_", "GAMES_", "SQLITE_", "PERSISTENCE_"))}
    argv = [str(gruft), "serve", "--fd", str(sock.fileno()), "--workers", "1", "--threads", "8"]
    with log.open("w") as out:
        proc = subprocess.Popen(unprivileged(argv), cwd=serve_in,
                                env={**env, "HOME": str(serve_in)}, stdout=out,
                                stderr=subprocess.STDOUT, pass_fds=(sock.fileno(),))
    sock.close()
    try:
        def up() -> bool:
            assert proc.poll() is None, log.read_text()
            try:
                return fetch(port, "/livez")[0] == 200
            except OSError:
                return False

        wait_until(up, f"the installed gruft to answer (its log: {log})")
        status, created = call(port, "POST", "/games", {"game": "vampiring",
                                                        "players": ["Ann", "Bob"]})
        assert status == 201, created
        game, host = created["game_id"], created["host_token"]
        pages = ["/", "/?lang=de", f"/games/{game}/play", f"/games/{game}/play?lang=fr",
                 f"/games/{game}/viewer?token={host}", "/docs", "/openapi.json", "/metrics",
                 *(f"/rules/{key}" for key in available_games()), "/rules/vampiring?lang=de",
                 "/rules/vampire-queen?lang=it"]
        assets: set[str] = set()
        for path in pages:
            status, kind, body = fetch(port, path)
            # Check every kind of page answers, the rules pages in two languages
            assert status == 200, (path, body[:300])
            if kind.startswith("text/html"):
                assets.update(ASSETS.findall(body.decode()))
        german = fetch(port, "/rules/vampiring?lang=de")[2].decode()
        assert '<article class="rules-text" lang="de">' in german
        # Check the catalogs are read where the server cannot compile them (issue 31, item 2)
        assert "Neues Spiel beginnen" in fetch(port, "/", lang="de")[2].decode()
        assert "Commencer une nouvelle partie" in fetch(port, "/", lang="fr")[2].decode()
        # Check every script, style sheet and picture the pages name answers too
        assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets)
        for asset in sorted(assets):
            assert fetch(port, asset)[0] == 200, asset
    finally:
        stop(proc)
        print(log.read_text()[-3000:])
    # Check the app, made by a user who could write there (root ignores a-w), writes nothing
    # into the installation either: a catalog compiled at start would (issue 31, item 2).
    render = ("from api import create_app\n"
              "app = create_app({'TESTING': True, 'GRUFT_ENV': {'PERSISTENCE_MODULE': "
              "'eventsourcing.sqlite', 'SQLITE_DBNAME': 'again.sqlite', 'GRUFT_DATA_DIR': '.'}})\n"
              "client = app.test_client()\n"
              "for lang in ('de', 'fr', 'it', 'es'):\n"
              "    page = client.get(f'/?lang={lang}')\n"
              "    assert page.status_code == 200 and b'Start a new game' not in page.data\n"
              "    assert client.get(f'/rules/vampir?lang={lang}').status_code == 200\n")
    done = subprocess.run([python, "-c", render], cwd=serve_in, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # Check nothing was written inside the installation
    assert listing(venv) == installed_files
    # Check `pip uninstall` leaves nothing of gruft behind
    subprocess.run(["chmod", "-R", "u+w", str(venv)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "uninstall", "-y",
                    "-q", "gruft"], check=True, timeout=120, capture_output=True)
    left = set(listing(venv)) - set(installed["before"])
    assert not left, sorted(left)[:20]
