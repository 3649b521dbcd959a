"""Solves on a live gunicorn (gevent workers, the service's default limits): sixteen
worst-case solves sent at once from one address are answered 429 past ``SOLVE_LIMIT``,
and another address's probes stay fast meanwhile (nine in ten within 5 times their quiet
p99, none as long as the admitted solves), since a solve yields its worker every few
milliseconds (``service/api/solve.py``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import requests
from requests.adapters import HTTPAdapter

from service.core.cards import card_names, make_card
from service.match.local import LocalService, local_service
from tests.bench.procs import percentile

#: 30 cards of one suit, kings wild, aces wrapping: past the step budget (the whole
#: budget is spent before the 422 solve_too_complex, about 0.4 s of CPU)
WORST = {"hand": card_names([make_card(rank, 0) for rank in range(1, 14)] * 3)[:30],
         "wild_rank": "K", "rules": {"aces": "wrap"}}


class Source(HTTPAdapter):
    """Connections from one source address (the service sees 127.0.0.2: another client)."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args: object, **kwargs: object) -> None:
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def service() -> Iterator[LocalService]:
    with local_service(workers=1, limits=True, movers=0) as svc:
        yield svc


def test_a_burst_of_worst_case_solves_is_limited_and_another_clients_probes_stay_fast(
        service: LocalService) -> None:
    other = requests.Session()
    other.mount("http://", Source("127.0.0.2"))
    quiet = []
    for _ in range(20):
        started = time.perf_counter()
        assert other.get(f"{service.url}/v1/rules/presets", timeout=10).ok
        quiet.append(time.perf_counter() - started)
    statuses: list[int] = []
    start = threading.Barrier(16)

    def solve() -> None:
        start.wait()
        statuses.append(requests.post(f"{service.url}/v1/solve", json=WORST, timeout=60).status_code)

    burst = [threading.Thread(target=solve) for _ in range(16)]
    for t in burst:
        t.start()
    loaded = []
    while any(t.is_alive() for t in burst) or len(loaded) < 20:  # refused ones end fast
        started = time.perf_counter()
        assert other.get(f"{service.url}/v1/rules/presets", timeout=10).ok
        loaded.append(time.perf_counter() - started)
        time.sleep(0.01)
    for t in burst:
        t.join()
    # 30 cards weigh 65 of SOLVE_LIMIT's 200 a second: 3 run, the other 13 are refused
    assert statuses.count(429) >= 6 and set(statuses) <= {422, 429}, statuses
    # one worker serves both: a probe waits for a few yields, never for whole solves. Read
    # at p90 of 20 probes or more (the slowest one may meet the burst's 16 requests being
    # parsed and counted, on a machine the suite's other processes share) and, for the
    # slowest, against the three admitted solves run end to end (about 1.2 s of CPU); the
    # p90 bound is well under one whole solve (0.4 s), as six test files at a time on 2 cores
    # once took a probe past 0.1 s
    ordered = sorted(loaded)
    assert percentile(ordered, 0.9) < max(0.25, 5 * percentile(sorted(quiet), 0.99)), (
        quiet, loaded)
    assert ordered[-1] < 1.0, loaded
