#!/usr/bin/env bash
# The browser live table's tests (docs/LiveTables.md, "The browser table"); .ci/run calls this script.
# Installs what is missing (Debian's chromium and postgresql; Playwright for Python, which drives that Chromium, and
# websockets from PyPI), builds the package, runs its Swift tests, the browser test (two pages, 4 writers,
# 30 s), the page test (what a person does on two pages: writers paused, a lost update refused, edits in
# the row, sorting, search, offline and back; once more across two processes on PostgreSQL), the reduced load test (50 clients x 20 edits), the fault test, and the browser test across two
# processes on one PostgreSQL database (12 s; on $OPENCOREDATA_POSTGRES_URL, which .ci/run exports, else a
# server of its own from Scripts/postgres-server.sh). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! ls /usr/lib/postgresql/*/bin/psql >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
if ! python3 -c "import playwright, websockets" >/dev/null 2>&1; then
    python3 -m pip install -q playwright websockets
fi

swift build --build-tests
swift test --skip-build
python3 Tests/Browser/browser_test.py --seconds 30 --screenshot .build/live-table.png
python3 Tests/Browser/page_test.py
python3 Tests/Load/load_test.py --pages 50 --edits 20
python3 Tests/Load/fault_test.py
python3 Tests/Browser/browser_test.py --postgres --seconds 12 --screenshot .build/live-table-postgres.png
python3 Tests/Browser/page_test.py --postgres
