"""The worker processes' signal handling, in-process (the processes themselves are
tested under tests/ops)."""

from __future__ import annotations

import pytest

from service.workers.__main__ import FirstSignalStops, Stopped


def test_the_first_stop_signal_raises_to_end_the_analysis_and_a_second_only_stops() -> None:
    stop = FirstSignalStops()
    assert not stop.stopping.is_set()
    with pytest.raises(Stopped):
        stop(15, None)
    assert stop.stopping.is_set()
    stop(15, None)  # during the shutdown: must not raise there
    assert stop.stopping.is_set()
