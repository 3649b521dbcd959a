"""The worker processes' stop signal, in-process (the processes themselves are tested
under tests/ops: a second SIGTERM there once hung the analysis worker for ever)."""

from __future__ import annotations

import signal

import pytest

from service.workers.__main__ import Stopped, StopSignal


def test_the_first_stop_signal_raises_to_end_the_wait_and_a_second_only_stops() -> None:
    stop = StopSignal(lambda: True)
    assert not stop.is_set()
    with pytest.raises(Stopped):
        stop(signal.SIGTERM, None)
    assert stop.is_set()
    stop(signal.SIGTERM, None)  # during the shutdown: must not raise there
    assert stop.is_set()


def test_a_stop_signal_outside_an_interruptible_wait_only_sets_the_flag() -> None:
    stop = StopSignal(lambda: False)  # a move worker in the middle of a move
    stop(signal.SIGTERM, None)
    assert stop.is_set()


def test_a_second_signal_inside_the_first_ones_handler_neither_blocks_nor_raises_twice(
) -> None:
    """The handler that hung: the second signal ran inside the first one's Event.set,
    whose lock it then waited for. Here the second comes at the first's interrupt()."""
    raised: list[str] = []

    def interrupt() -> bool:
        try:
            stop(signal.SIGTERM, None)  # nested, as a signal between two bytecodes
        except Stopped:
            raised.append("nested")
        return True

    stop = StopSignal(interrupt)
    with pytest.raises(Stopped):
        stop(signal.SIGTERM, None)
    assert raised == [] and stop.is_set()
