#!/usr/bin/env bash
# The services the test suite runs against, installed from Debian's packages where
# missing and started privately (ports 55432 and 56379).
#   tests/databases.sh start          install what is missing, start PostgreSQL and Redis
#   tests/databases.sh stop [--keep]  stop them and remove their data (--keep: keep it
#                                     for the next start, as `make serve` does)
#   tests/databases.sh env            print the DATABASE_URL and REDIS_URL to use
# Their data lives in a folder of its own under /var/tmp, owned by the user that runs
# PostgreSQL (as root: postgres), because initdb cannot work in a checkout that user
# cannot reach (a clone under /root, or in a 0700 folder). var/services/ records where.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN="$ROOT/var/services"
PG_PORT=${TEST_PG_PORT:-55432}
REDIS_PORT=${TEST_REDIS_PORT:-56379}
RECORD="$RUN/data-dir.$PG_PORT"  # holds the data folder's path
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

install_missing() {
  local need=()
  [ -n "$(pg_bin)" ] || need+=(postgresql)
  command -v redis-server >/dev/null || need+=(redis-server)
  command -v chromium-headless-shell >/dev/null || need+=(chromium-headless-shell)  # the browser tests
  command -v msgfmt >/dev/null && command -v xgettext >/dev/null || need+=(gettext)  # the catalogues' tests
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
  command -v bwrap >/dev/null || need+=(bubblewrap)  # the hosted programs' sandbox
  # the hosted programs' languages (docs/programs.md)
  command -v gcc >/dev/null || need+=(gcc)
  command -v g++ >/dev/null || need+=(g++)
  command -v javac >/dev/null || need+=(default-jdk-headless)
  command -v node >/dev/null || need+=(nodejs)
  command -v ruby >/dev/null || need+=(ruby)
  # (not `fc-list | grep -q`: grep leaving early fails the pipe under pipefail)
  [ -n "$(fc-list "Noto Sans CJK JP" 2>/dev/null)" ] || need+=(fonts-noto-cjk)
  if [ ${#need[@]} -gt 0 ]; then
    echo "Installing from Debian: ${need[*]}"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
  fi
}

# PostgreSQL refuses to run as root: as root, run it as the postgres user.
as_db_owner() {
  # (from /: it may not reach the working directory, and would say so)
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# The data folder of this port's services: the recorded one, else a new one.
data_dir() {
  local data
  data=$(cat "$RECORD" 2>/dev/null || true)
  if [ -z "$data" ] || [ ! -d "$data" ]; then
    mkdir -p "$RUN"
    data=$(mktemp -d "${SERVICES_TMP:-/var/tmp}/spectator-services.XXXXXX")
    chmod 755 "$data"  # Redis (this user) and PostgreSQL (postgres) both write here
    [ "$(id -u)" = 0 ] && chown postgres: "$data"
    echo "$data" >"$RECORD"
  fi
  echo "$data"
}

# A port already served by another checkout's services (or anything else) is said, not
# shared: this checkout's tests would run on, and its end stop, what it did not start.
taken() {
  echo "Port $1 is taken by $2, not by this checkout's services ($3)." >&2
  echo "Stop those (in their checkout: bash tests/databases.sh stop), or choose other" >&2
  echo "ports for this one: TEST_PG_PORT=55442 TEST_REDIS_PORT=56389 make test" >&2
  exit 1
}

# Before anything is made: services already on the ports must be this checkout's own
# (those of the data folder it recorded).
check_ports() {
  local bin ours running
  bin=$(pg_bin)
  ours=$(cat "$RECORD" 2>/dev/null || true)
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
    running=$("$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
      "SHOW data_directory" 2>/dev/null || true)
    [ -n "$ours" ] && [ "$running" = "$ours/pg" ] ||
      taken "$PG_PORT" "a PostgreSQL of ${running:-unknown data}" "${ours:-none yet}"
  fi
  if redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    running=$(redis-cli -p "$REDIS_PORT" config get dir 2>/dev/null | sed -n 2p || true)
    [ -n "$ours" ] && [ "$running" = "$ours" ] ||
      taken "$REDIS_PORT" "a Redis in ${running:-an unknown folder}" "${ours:-none yet}"
  fi
}

start_postgres() {
  local bin data=$1
  bin=$(pg_bin)
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then return; fi  # (ours: check_ports)
  if [ ! -f "$data/pg/PG_VERSION" ]; then
    as_db_owner "$bin/initdb" -D "$data/pg" -U postgres -A trust --no-sync >/dev/null
  fi
  as_db_owner "$bin/pg_ctl" -D "$data/pg" -l "$data/postgres.log" -w -o \
    "-p $PG_PORT -k $data -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200" start >/dev/null
}

start_redis() {
  local data=$1
  if redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then return; fi  # (ours: check_ports)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save "" \
    --appendonly no --dir "$data" --logfile "$data/redis.log" --pidfile "$data/redis.pid"
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "Redis did not start; see $data/redis.log" >&2
  exit 1
}

stop_services() {
  local bin data pgdata
  bin=$(pg_bin)
  data=$(cat "$RECORD" 2>/dev/null || true)
  # ($RUN/pg: where an earlier version of this script kept it, in the checkout)
  for pgdata in ${data:+"$data/pg"} "$RUN/pg"; do
    # (the fourth line of postmaster.pid is the port it listens on)
    if [ "$(sed -n 4p "$pgdata/postmaster.pid" 2>/dev/null)" = "$PG_PORT" ]; then
      as_db_owner "$bin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null || true
    fi
  done
  redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 || break; sleep 0.1; done
  if [ "${1:-}" != --keep ] && [ -n "$data" ]; then
    case "$data" in */spectator-services.*) rm -rf -- "$data" ;; esac
    rm -f "$RECORD"
  fi
}

case "${1:-}" in
  start)
    install_missing
    check_ports
    data=$(data_dir)
    start_postgres "$data"
    start_redis "$data"
    ;;
  stop)
    stop_services "${2:-}"
    ;;
  env)
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/spectator"
    echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
    ;;
  *)
    echo "usage: $0 start|stop [--keep]|env" >&2
    exit 2
    ;;
esac
