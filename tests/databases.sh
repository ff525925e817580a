#!/usr/bin/env bash
# The services the test suite runs against, installed from Debian's packages where
# missing and started privately under var/services (ports 55432 and 56379).
#   tests/databases.sh start   install what is missing, start PostgreSQL and Redis
#   tests/databases.sh stop    stop them
#   tests/databases.sh env     print the DATABASE_URL and REDIS_URL to use
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN="$ROOT/var/services"
PG_PORT=${TEST_PG_PORT:-55432}
REDIS_PORT=${TEST_REDIS_PORT:-56379}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

install_missing() {
  local need=()
  [ -n "$(pg_bin)" ] || need+=(postgresql)
  command -v redis-server >/dev/null || need+=(redis-server)
  command -v chromium >/dev/null || need+=(chromium)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
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
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
  local bin data="$RUN/pg"
  bin=$(pg_bin)
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then return; fi
  if [ ! -f "$data/PG_VERSION" ]; then
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres: "$data"
    as_db_owner "$bin/initdb" -D "$data" -U postgres -A trust --no-sync >/dev/null
  fi
  [ "$(id -u)" = 0 ] && chown postgres: "$RUN"
  as_db_owner "$bin/pg_ctl" -D "$data" -l "$RUN/postgres.log" -w -o \
    "-p $PG_PORT -k $data -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200" start >/dev/null
}

start_redis() {
  if redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then return; fi
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save "" \
    --appendonly no --dir "$RUN" --logfile "$RUN/redis.log" --pidfile "$RUN/redis.pid"
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  echo "Redis did not start; see $RUN/redis.log" >&2
  exit 1
}

case "${1:-}" in
  start)
    install_missing
    mkdir -p "$RUN"
    start_postgres
    start_redis
    ;;
  stop)
    bin=$(pg_bin)
    [ -f "$RUN/pg/postmaster.pid" ] && as_db_owner "$bin/pg_ctl" -D "$RUN/pg" -m fast stop >/dev/null || true
    redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
    ;;
  env)
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/spectator"
    echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
    ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
