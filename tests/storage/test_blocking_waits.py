"""The workers' blocking waits on a real redis-server end within their timeout however
short it is: redis-server 6.2 (the PyPI fallback's) reads ``BLPOP k 0.001`` as 0, "for
ever", and a move worker hung there until its socket timed out (30 s plus
``REDIS_TIMEOUT_SECONDS``), its gauges stale."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from service.config import Config
from service.storage import Stores, redis_stores
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests


@pytest.fixture
def stores(redis_server: str) -> Iterator[Stores]:
    url = redis_url_for_tests(redis_server, 12)
    redis_client(url).flushdb()
    stores = redis_stores(Config(redis_url=url))
    yield stores
    stores.close()
    redis_client(url).flushdb()


WAITS: dict[str, Callable[[Stores, float], object]] = {
    "schedule": lambda stores, seconds: stores.schedule.wait(seconds),
    "webhook schedule": lambda stores, seconds: stores.webhook_schedule.wait(seconds),
    "rating queue": lambda stores, seconds: stores.ratings.wait(seconds),
    "analysis queue": lambda stores, seconds: stores.analyses.take("w", seconds, 60.0),
}


@pytest.mark.parametrize("seconds", [0.0, 0.0004, 0.001, 0.0015])
@pytest.mark.parametrize("store", WAITS)
def test_a_wait_of_about_a_millisecond_or_less_ends_at_once_and_never_blocks_for_ever(
    stores: Stores, store: str, seconds: float,
) -> None:
    # on a thread: a wait that blocks fails the test in 1 s, not at the socket's timeout
    # (the server's own timer ticks every 100 ms)
    waiting = threading.Thread(target=WAITS[store], args=(stores, seconds), daemon=True)
    waiting.start()
    waiting.join(PATIENCE)
    assert not waiting.is_alive()
