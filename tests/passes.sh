#!/usr/bin/env bash
# make test's two passes of the suite, side by side: the embedded default (SQLite, the
# in-memory channel layer), shown as it goes, and PostgreSQL + Redis, its output kept in
# var/test-postgres.log and shown once the first pass has ended. Most of a pass is
# waiting (on real turns, servers, browsers): two passes together keep the cores busy
# where one after the other would leave them half idle.
#   tests/passes.sh PYTEST...   (the pytest command line, as the Makefile gives it)
# The first Ctrl-C (or SIGTERM) stops both; the exit status is 0 only if both passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
mkdir -p var
LOG=var/test-postgres.log

bash tests/databases.sh start
trap 'bash tests/databases.sh stop' EXIT

# Each pass runs in a session of its own (setsid), so that one signal to its process
# group reaches it whole: pytest, its workers, and the servers and browsers they start.
env $(bash tests/databases.sh env) setsid -w "$@" -m "not one_backend" >"$LOG" 2>&1 &
postgres=$!
echo "== embedded default: SQLite + in-memory channel layer"
echo "   (PostgreSQL + Redis runs alongside, into $LOG: shown after this pass)"
setsid -w "$@" -m "not once_on_postgres" &
sqlite=$!

stop() {
  trap '' INT TERM
  echo "stopping the tests" >&2
  kill -TERM -- "-$sqlite" "-$postgres" 2>/dev/null
  wait
  exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM

wait "$sqlite"
sqlite_status=$?
echo "== PostgreSQL + Redis"
tail -n +1 --pid="$postgres" -f "$LOG"
wait "$postgres"
postgres_status=$?
[ "$sqlite_status" = 0 ] && [ "$postgres_status" = 0 ]
