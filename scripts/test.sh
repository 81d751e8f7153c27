#!/usr/bin/env bash
# The whole test suite: installs what it needs, then runs every test on SQLite (and in-memory
# stores) and the storage-facing tests again on PostgreSQL. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv

# The outside tools the tests check gruft with, Debian's packages, installed in one step when
# missing: Chromium for the pages (Playwright drives it); gettext's msgfmt for the catalogs and
# Prometheus' promtool for /metrics (issue 31); Go and its golang.org/x/mod for the game log's
# C2SP checkpoint, tiles and proofs, checked by Go's own sumdb/note and sumdb/tlog (tests/tlog,
# built offline in GOPATH mode). Their tests skip without them, but not in CI (CI set).
browser=()
[ -x /usr/bin/chromium ] || browser+=(chromium)  # with its recommends (fonts)
missing=()
command -v msgfmt >/dev/null || missing+=(gettext)
command -v promtool >/dev/null || missing+=(prometheus)
command -v go >/dev/null || missing+=(golang-go)
[ -d /usr/share/gocode/src/golang.org/x/mod/sumdb/tlog ] || missing+=(golang-golang-x-mod-dev)
if [ $((${#browser[@]} + ${#missing[@]})) -gt 0 ]; then
  echo "installing Debian's ${browser[*]} ${missing[*]} for the tests…"
  if command -v apt-get >/dev/null; then
    apt-get update -qq || echo "warning: could not update the package lists"
    for wanted in "${browser[@]}"; do
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$wanted" >/dev/null \
        || echo "warning: could not install $wanted"
    done
    if [ ${#missing[@]} -gt 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null || echo "warning: could not install ${missing[*]}"
    fi
  fi
fi

# PostgreSQL on 127.0.0.1:5432 (trust auth, database `test`); start it when it is installed but down.
pg_up() { "$VENV/bin/python" - <<'PY'
import sys
try:
    import psycopg
    psycopg.connect("host=127.0.0.1 port=5432 dbname=test user=postgres connect_timeout=3").close()
except Exception as exc:  # noqa: BLE001
    print(f"postgres: {exc}", file=sys.stderr); sys.exit(1)
PY
}
if ! pg_up 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    sleep 2
  fi
fi
if pg_up; then
  export GRUFT_POSTGRES=1
elif [ -n "${CI:-}" ]; then
  echo "PostgreSQL is not reachable on 127.0.0.1:5432 and CI is set: failing." >&2
  exit 1
else
  echo "warning: PostgreSQL not reachable; its tests will be skipped" >&2
fi

"$VENV/bin/ruff" check --quiet . || { echo "ruff found problems" >&2; exit 1; }

workers=$(nproc 2>/dev/null || echo 2)
exec "$VENV/bin/python" -m pytest -n "$workers" -q "$@"
