#!/usr/bin/env bash
# The venue layout on one machine, in the foreground:
#
#   nginx :8000 ──> daphne :8001 … :800N ──> PostgreSQL + Redis <── runclock
#                          └──> rundrawing (the pictures of them all, at a Unix socket)
#
#   deploy/serve.sh [N]               N daphne processes (default 2), one clock, one
#                                     drawing worker, nginx
#   deploy/serve.sh nginx-conf PORT STATIC_ROOT DIR DAPHNE_PORT...
#                                     print deploy/nginx.conf rendered for those
#
# DATABASE_URL and REDIS_URL are used when both are set; otherwise PostgreSQL and Redis
# are started privately under var/services, as for the tests (tests/databases.sh), with
# a database and a Redis db of their own. Migrations and collectstatic run first.
# PORT (default 8000) is nginx's port; the daphne processes take the ports after it.
# Ctrl-C stops everything this script started.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

# deploy/nginx.conf with our ports and paths instead of the sample's.
render_nginx_conf() {
  local port=$1 static=$2 dir=$3 servers="" upstream
  shift 3
  for upstream in "$@"; do servers+="        server 127.0.0.1:$upstream max_fails=0;\n"; done
  # Started by root, nginx would run its workers as nobody, who cannot read a checkout
  # in a private (0700) home: the workers run as whoever ran this, as they do for anyone
  # else (nginx ignores `user` when it is not started by root).
  local user=""
  [ "$(id -u)" != 0 ] || user=$(id -un)
  local trusted
  trusted=$(echo "${SPECTATOR_TRUSTED_NETWORKS:-}" | tr -d ' ')
  awk -v servers="$servers" -v port="$port" -v static="$static" -v dir="$dir" -v user="$user" \
      -v trusted="$trusted" '
    /^worker_processes / && user != "" { print "user " user ";" }
    /^ *server 127\.0\.0\.1:[0-9]+ max_fails=0;/ { if (!done) printf "%s", servers; done = 1; next }
    /^ *# trusted networks/ { print; n = split(trusted, nets, ","); for (i = 1; i <= n; i++)
                                if (nets[i] != "") print "        " nets[i] " 0;";
                              skipping = 1; next }
    /^ *# end of trusted networks/ { skipping = 0; print; next }
    skipping { next }
    /^pid / { print "pid " dir "/nginx.pid;"; next }
    /^error_log / { print "error_log " dir "/nginx-error.log;"; next }
    /^ *access_log / { print "    access_log " dir "/nginx-access.log;"; next }
    /^http \{/ { print; for (i = split("client_body proxy fastcgi uwsgi scgi", t, " "); i; i--)
                   print "    " t[i] "_temp_path " dir "/nginx-temp/" t[i] ";"; next }
    /^ *listen 80;/ { print "        listen 127.0.0.1:" port ";"; next }
    /^ *alias \/srv\/spectator\/var\/static\/;/ { print "            alias " static "/;"; next }
    { print }' deploy/nginx.conf
}

if [ "${1:-}" = nginx-conf ]; then
  shift
  render_nginx_conf "$@"
  exit 0
fi

N=${1:-2}
PORT=${PORT:-8000}
PY="$ROOT/.venv/bin/python"
VAR=${SPECTATOR_VAR_DIR:-$ROOT/var}
RUN="$VAR/serve"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
mkdir -p "$RUN/nginx-temp"

pids=()
helpers=()
stop_all() {
  trap - INT TERM EXIT
  echo "Stopping everything this started (logs in $RUN)."
  local pid
  # the hosted programs' worker at once (a warm stop waits for its matches to end)
  if [ -n "${worker:-}" ]; then kill -QUIT "$worker" 2>/dev/null || true; fi
  for pid in "${pids[@]}" "${helpers[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait || true
  if [ -n "${services_started:-}" ]; then bash tests/databases.sh stop --keep; fi
  if [ -n "${drawing_dir:-}" ]; then rm -rf "$drawing_dir"; fi
}
trap stop_all INT TERM EXIT

if [ -z "${DATABASE_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  pg_port=${TEST_PG_PORT:-25432}
  redis_port=${TEST_REDIS_PORT:-26379}
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  # Stopped again at the end, unless they were already running (for the tests, say).
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 ||
    { [ -n "$pg_bin" ] && "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; } ||
    services_started=1
  bash tests/databases.sh start
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'spectator'" | grep -q 1 ||
    "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres spectator
  # Redis db 1: the tests flush db 0.
  export DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/spectator"
  export REDIS_URL="redis://127.0.0.1:$redis_port/1"
fi
export DATABASE_URL REDIS_URL

if ! command -v nginx >/dev/null; then
  echo "Installing Debian's nginx-light (the proxy in front of the daphne processes)"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends nginx-light
fi

# Prometheus's numbers (/metrics, matches/metrics.py) start from nothing with the servers
export PROMETHEUS_MULTIPROC_DIR="$VAR/metrics"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
"$PY" manage.py migrate --noinput -v 0
"$PY" manage.py collectstatic --noinput -v 0
# DEBUG is off unless DJANGO_DEBUG=1, and without DJANGO_SECRET_KEY the settings make a
# random key once and keep it in $VAR/secret_key (mode 600): never a key published with
# the code. The deployment checks say out loud if something unsafe was asked for.
"$PY" manage.py check --deploy
key_from="$VAR/secret_key"
[ -z "${DJANGO_SECRET_KEY:-}" ] || key_from=DJANGO_SECRET_KEY

# One drawing worker for every server: the pictures take one core at most, and one
# copy of Django is in memory for them (matches/drawing.py). Its socket is in a private
# folder of a short path (a Unix socket's path may not pass 107 bytes: a checkout's may).
drawing_dir=$(mktemp -d "${TMPDIR:-/tmp}/spectator-drawing.XXXXXX")
export SPECTATOR_DRAWING_SOCKET="$drawing_dir/socket"
# Not among the processes whose end ends the venue (below): without it each server
# draws in a worker of its own, and says so in its log.
"$PY" manage.py rundrawing >"$RUN/drawing.log" 2>&1 &
helpers+=($!)

ports=()
for i in $(seq 1 "$N"); do
  port=$((PORT + i))
  ports+=("$port")
  # A backlog of 1,024: a burst of connections from nginx (a thousand sockets opened at
  # once) waits to be accepted instead of being refused (Twisted's default is 50).
  "$ROOT/.venv/bin/daphne" -e "tcp:port=$port:interface=127.0.0.1:backlog=1024" \
    --proxy-headers spectator.asgi:application \
    >"$RUN/daphne-$port.log" 2>&1 &
  pids+=($!)
done
"$PY" manage.py runclock >"$RUN/clock.log" 2>&1 &
pids+=($!)
# The hosted programs' worker (docs/programs.md, "Workers"): WORKERS plays at once (2);
# more machines add theirs. Its programs reach the server through nginx.
worker_line="  worker      none: bubblewrap is not installed (docs/programs.md)"
if command -v bwrap >/dev/null; then
  SPECTATOR_HOSTED_SERVER="http://127.0.0.1:$PORT" "$PY" -m celery -A spectator worker \
    --pool threads --concurrency "${WORKERS:-2}" --without-mingle --without-gossip \
    --loglevel INFO >"$RUN/worker.log" 2>&1 &
  worker=$!
  helpers+=("$worker")
  worker_line="  worker      ${WORKERS:-2} at once                        log $RUN/worker.log"
fi
render_nginx_conf "$PORT" "$VAR/static" "$RUN" "${ports[@]}" >"$RUN/nginx.conf"
nginx -e "$RUN/nginx-error.log" -c "$RUN/nginx.conf" -g "daemon off;" &
pids+=($!)

cat <<EOT

  open        http://127.0.0.1:$PORT/         nginx ($RUN/nginx.conf)
$(for port in "${ports[@]}"; do
  echo "  daphne      http://127.0.0.1:$port/         log $RUN/daphne-$port.log"; done)
  runclock                                    log $RUN/clock.log
  rundrawing  $SPECTATOR_DRAWING_SOCKET   log $RUN/drawing.log
$worker_line
  secret key  ${key_from}
  PostgreSQL  ${DATABASE_URL}
  Redis       ${REDIS_URL}

  New matches: DATABASE_URL=$DATABASE_URL REDIS_URL=$REDIS_URL \\
      $PY manage.py creatematch --board Kakom-1 --teams Alpha Beta --public
  Ctrl-C stops them all.
EOT

# Until Ctrl-C, or until one of them ends (a port already taken, say): then the others
# are stopped too.
set +e
wait -n "${pids[@]}"
