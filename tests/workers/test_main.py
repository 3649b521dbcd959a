"""The worker processes' stop signal, in-process (the processes themselves are tested
under tests/ops: a second SIGTERM there once hung the analysis worker for ever)."""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Any

import pytest

from service.workers.__main__ import Stopped, StopSignal
from tests.conftest import PATIENCE


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


def second_signal_at_line(n: int) -> tuple[bool, int, int]:
    """The first signal's handler with a second signal delivered just before the ``n``-th
    line the handler runs (its callees' lines included), as a signal comes between two
    bytecodes: on a thread, since a handler that blocks would block the test. Whether
    it ended within 2 s, how many ``Stopped`` reached the main code, the lines run."""
    stop = StopSignal(lambda: True)
    lines, escaped = 0, 0

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
            if lines == n:  # a trace function's own calls are not traced: one delivery
                stop(signal.SIGTERM, None)  # its raise lands where the signal came
        return tracer

    def first() -> None:
        nonlocal escaped
        sys.settrace(tracer)
        try:
            stop(signal.SIGTERM, None)
        except Stopped:
            escaped += 1
        finally:
            sys.settrace(None)

    thread = threading.Thread(target=first, daemon=True)
    thread.start()
    thread.join(PATIENCE)
    return not thread.is_alive(), escaped, lines


def test_a_second_signal_at_any_line_of_the_first_ones_handler_never_blocks_nor_raises_twice(
) -> None:
    """The handler that hung held a lock (``threading.Event.set``'s) that the second
    signal's handler, run inside it, then waited for."""
    n = 1
    while True:
        ended, escaped, lines = second_signal_at_line(n)
        assert ended, f"a second signal before line {n} of the handler blocked it"
        assert escaped == 1, (n, escaped)
        if lines < n:  # the handler ran fewer lines: every point was tried
            break
        n += 1
    assert n > 3
