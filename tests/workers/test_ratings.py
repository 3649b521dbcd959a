"""The rating worker's loop on the memory store: a Redis failure is logged and retried,
except once the process is stopping (its stores closed under the wait, which is no
failure: it used to log one at every shutdown)."""

from __future__ import annotations

import logging

import pytest

from service.storage import StorageUnavailableError, memory_stores
from service.workers import ratings
from service.workers.ratings import RatingWorker


class Failing(RatingWorker):
    """A worker whose steps fail with ``error``, ``failures`` times, then stop it."""

    def __init__(self, failures: int, stop_on_failure: bool, error: Exception) -> None:
        super().__init__(memory_stores())
        self.failures, self.stop_on_failure, self.stopping = failures, stop_on_failure, False
        self.error = error

    def step(self) -> bool:
        if self.failures:
            self.failures -= 1
            self.stopping = self.stop_on_failure
            raise self.error
        self.stopping = True
        return True  # one applied: no wait before the loop reads the flag


def test_a_redis_failure_while_running_is_logged_and_retried(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratings, "RETRY_SECONDS", 0.0)
    worker = Failing(failures=2, stop_on_failure=False,
                     error=StorageUnavailableError("Connection refused"))
    with caplog.at_level(logging.WARNING, "three_thirteen.workers"):
        worker.run(lambda: worker.stopping)
    assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING"]
    assert worker.failures == 0


# redis-py's error, and what hiredis raises when its reader was closed under the read
@pytest.mark.parametrize("error", [StorageUnavailableError("Bad file descriptor"),
                                   AttributeError("'NoneType' object has no attribute 'gets'")])
def test_a_failure_once_stopping_ends_the_loop_without_a_warning(
        caplog: pytest.LogCaptureFixture, error: Exception) -> None:
    worker = Failing(failures=1, stop_on_failure=True, error=error)
    with caplog.at_level(logging.WARNING, "three_thirteen.workers"):
        worker.run(lambda: worker.stopping)
    assert caplog.records == []
