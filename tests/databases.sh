#!/usr/bin/env bash
# The services the test suite runs against, installed from Debian's packages where
# missing and started privately (ports 25432 and 26379).
#   tests/databases.sh start          install what is missing, start PostgreSQL and Redis
#   tests/databases.sh stop [--keep]  stop them and remove their data (--keep: keep it
#                                     for the next start, as `make serve` does)
#   tests/databases.sh env            print the DATABASE_URL and REDIS_URL to use
# and, beside them, for the tests of the scaled set-ups (tests/deploy/test_scaled_*.py,
# docs/deployment.md), each on a port of its own, its files in DIR/KIND-PORT:
#   tests/databases.sh pgbouncer DIR PORT      a PgBouncer in transaction pooling mode in
#                                              front of the test PostgreSQL
#   tests/databases.sh redis DIR PORT          another Redis (a channel-layer shard)
#   tests/databases.sh sentinel DIR PORT NAME [REDIS_PORT]
#                                              a Redis Sentinel watching the test Redis (or
#                                              the one on REDIS_PORT) as the master NAME
#   tests/databases.sh stop-extras DIR         stop those started in DIR (`stop` stops any
#                                              still running too)
# Their data lives in a folder of its own under /var/tmp, owned by the user that runs
# PostgreSQL (as root: postgres), because initdb cannot work in a checkout that user
# cannot reach (a clone under /root, or in a 0700 folder). var/services/ records where.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUN="$ROOT/var/services"
# (below Linux's range of ephemeral ports, 32768-60999: a busy machine's own outgoing
# connections once held 55432 for a moment, and PostgreSQL could not listen on it)
PG_PORT=${TEST_PG_PORT:-25432}
REDIS_PORT=${TEST_REDIS_PORT:-26379}
RECORD="$RUN/data-dir.$PG_PORT"  # holds the data folder's path
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

install_missing() {
  local need=()
  [ -n "$(pg_bin)" ] || need+=(postgresql)
  command -v redis-server >/dev/null || need+=(redis-server)
  # the scaled set-ups' tests (tests/deploy/test_scaled_*.py)
  command -v redis-sentinel >/dev/null || need+=(redis-sentinel)
  command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)
  command -v chromium-headless-shell >/dev/null || need+=(chromium-headless-shell)  # the browser tests
  command -v msgfmt >/dev/null && command -v xgettext >/dev/null || need+=(gettext)  # the catalogues' tests
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
  command -v bwrap >/dev/null || need+=(bubblewrap)  # the hosted programs' sandbox
  # the hosts of tests/deploy/test_hosts.py (network namespaces; unshare and nsenter are
  # util-linux's, always there)
  command -v ip >/dev/null || [ -x /usr/sbin/ip ] || need+=(iproute2)
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
  echo "ports for this one: TEST_PG_PORT=25442 TEST_REDIS_PORT=26389 make test" >&2
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
  # Its port is in the kernel's range for outgoing connections (32768-60999): right after
  # a run with thousands of loopback connections (a bench), one of them may hold it for a
  # moment ("Address already in use"); then it is tried again, twice, 3 s apart.
  local attempt
  for attempt in 1 2 3; do
    if as_db_owner "$bin/pg_ctl" -D "$data/pg" -l "$data/postgres.log" -w -o \
      "-p $PG_PORT -k $data -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200" start >/dev/null 2>&1; then
      return
    fi
    grep -q "Address already in use" "$data/postgres.log" 2>/dev/null || break
    [ "$attempt" = 3 ] || sleep 3
  done
  # (what make test's stop then removes with the folder: the reason, said here)
  echo "PostgreSQL did not start on port $PG_PORT; the end of its log:" >&2
  tail -n 8 "$data/postgres.log" >&2 || true
  exit 1
}

start_redis() {
  local data=$1
  if redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then return; fi  # (ours: check_ports)
  local attempt
  for attempt in 1 2 3; do  # (its port may be held a moment too: see start_postgres)
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save "" \
      --appendonly no --dir "$data" --logfile "$data/redis.log" --pidfile "$data/redis.pid"
    for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  done
  echo "Redis did not start on port $REDIS_PORT; the end of its log:" >&2
  tail -n 8 "$data/redis.log" >&2 || true
  exit 1
}

# The scaled set-ups' services (pgbouncer, redis and sentinel above). Each keeps its
# files, its pid file among them, in a folder of its own, DIR/KIND-PORT; a link to that
# folder in $EXTRAS lets `stop` end one a test could not (its process killed).
EXTRAS="$RUN/extras.$PG_PORT"

extra_folder() {  # KIND DIR PORT: the service's folder, made empty, and recorded
  local folder
  mkdir -p "$2"
  folder="$(cd "$2" && pwd -P)/$1-$3"
  rm -rf -- "$folder"
  mkdir -p "$folder" "$EXTRAS"
  ln -sfn "$folder" "$EXTRAS/$(echo "$folder" | md5sum | cut -c1-16)"
  echo "$folder"
}

answers() {  # PORT: whether something accepts connections there
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

wait_answers() {  # PORT NAME LOG
  for _ in $(seq 100); do answers "$1" && return; sleep 0.1; done
  echo "$2 did not start on port $1; the end of $3:" >&2
  tail -n 20 "$3" >&2 || true
  exit 1
}

needs() {  # COMMAND PACKAGE: said, and the script ends, when it is not installed
  command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] || {
    echo "$1 is not installed: Debian's $2 (bash tests/databases.sh start installs it)" >&2
    exit 1
  }
}

start_pgbouncer() {  # DIR PORT
  local folder files
  needs pgbouncer pgbouncer
  folder=$(extra_folder pgbouncer "$1" "$2")
  files=$folder
  if [ "$(id -u)" = 0 ]; then
    # PgBouncer refuses to run as root: it runs as postgres, in a folder postgres can
    # reach (a test's folder is in root's private /tmp/pytest-of-root), linked from the
    # service's folder.
    files=$(mktemp -d "${SERVICES_TMP:-/var/tmp}/spectator-pgbouncer.XXXXXX")
    ln -s "$files" "$folder/files"
  fi
  # (deploy/pgbouncer.ini is the venue's sample; this one trusts loopback, as the test
  # PostgreSQL does)
  {
    echo "[databases]"
    echo "* = host=127.0.0.1 port=$PG_PORT"
    echo "[pgbouncer]"
    echo "pool_mode = transaction"
    echo "listen_addr = 127.0.0.1"
    echo "listen_port = $2"
    echo "unix_socket_dir ="
    echo "auth_type = trust"
    echo "auth_file = $files/userlist.txt"
    echo "admin_users = postgres"
    echo "max_client_conn = 500"
    echo "default_pool_size = 10"
    echo "logfile = $files/pgbouncer.log"
    echo "pidfile = $files/pgbouncer.pid"
  } >"$files/pgbouncer.ini"
  echo '"postgres" ""' >"$files/userlist.txt"
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$files"; chmod 755 "$files"; fi
  as_db_owner "$(command -v pgbouncer || echo /usr/sbin/pgbouncer)" -d -q "$files/pgbouncer.ini"
  wait_answers "$2" PgBouncer "$files/pgbouncer.log"
}

start_shard() {  # DIR PORT
  local folder
  folder=$(extra_folder redis "$1" "$2")
  redis-server --port "$2" --bind 127.0.0.1 --daemonize yes --save "" --appendonly no \
    --dir "$folder" --logfile "$folder/redis.log" --pidfile "$folder/redis.pid"
  wait_answers "$2" Redis "$folder/redis.log"
}

start_sentinel() {  # DIR PORT NAME [REDIS_PORT]
  local folder
  needs redis-sentinel redis-sentinel
  folder=$(extra_folder sentinel "$1" "$2")
  # (a Sentinel rewrites its file with what it learns: its id, the master's replicas)
  {
    echo "port $2"
    echo "bind 127.0.0.1"
    echo "daemonize yes"
    echo "dir $folder"
    echo "logfile $folder/sentinel.log"
    echo "pidfile $folder/sentinel.pid"
    echo "sentinel monitor $3 127.0.0.1 ${4:-$REDIS_PORT} 1"
    echo "sentinel down-after-milliseconds $3 5000"
  } >"$folder/sentinel.conf"
  "$(command -v redis-sentinel)" "$folder/sentinel.conf"  # (a whole path: it says it)
  wait_answers "$2" "Redis Sentinel" "$folder/sentinel.log"
}

running() {  # PID: not ended (an ended one may wait, a zombie, for its parent to see it)
  local state
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $state != Z* ]]
}

stop_extras() {  # [DIR]: those started in DIR, else every one still recorded
  local folder pidfile pid link files
  if [ -n "${1:-}" ]; then
    set -- "$1"/pgbouncer-* "$1"/redis-* "$1"/sentinel-*
  else
    set -- "$EXTRAS"/*
  fi
  for folder in "$@"; do
    [ -d "$folder" ] || continue
    folder=$(cd "$folder" && pwd -P)
    for pidfile in "$folder"/*.pid "$folder"/files/*.pid; do
      pid=$(cat "$pidfile" 2>/dev/null || true)
      # (only what this script started: a stale pid file's number may be another's now)
      case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
        pgbouncer|redis-server|redis-sentinel|redis-check-rdb) ;;
        *) continue ;;
      esac
      kill "$pid" 2>/dev/null || continue
      for _ in $(seq 50); do running "$pid" || break; sleep 0.1; done
      if running "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
    done
    files=$(readlink "$folder/files" 2>/dev/null || true)
    case "$files" in */spectator-pgbouncer.*) rm -rf -- "$files" ;; esac
    for link in "$EXTRAS"/*; do
      if [ "$(readlink "$link" 2>/dev/null)" = "$folder" ]; then rm -f "$link"; fi
    done
    rm -rf -- "$folder"
  done
  rmdir "$EXTRAS" 2>/dev/null || true
}

stop_services() {
  local bin data pgdata
  bin=$(pg_bin)
  stop_extras
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
  pgbouncer)
    start_pgbouncer "${2:?a folder}" "${3:?a port}"
    ;;
  redis)
    start_shard "${2:?a folder}" "${3:?a port}"
    ;;
  sentinel)
    start_sentinel "${2:?a folder}" "${3:?a port}" "${4:?a master name}" "${5:-}"
    ;;
  stop-extras)
    stop_extras "${2:?a folder}"
    ;;
  env)
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/spectator"
    echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
    ;;
  *)
    echo "usage: $0 start|stop [--keep]|env" >&2
    echo "       $0 pgbouncer DIR PORT|redis DIR PORT|sentinel DIR PORT NAME [REDIS_PORT]" >&2
    echo "       $0 stop-extras DIR" >&2
    exit 2
    ;;
esac
