"""Coarse timers shared by the resting streams: one loop timer per tick, not per stream.

Why: every resting stream waits for its heartbeat's time (or its deadline), and a loop
timer of its own (``call_later``: a handle, its arguments, the loop's heap entry) cost
each of them about half a KB, as much as the rest of what an idle stream holds beside
its socket together (``make bench-push``'s idle row). Here a stream's alarm is an entry
in the set of its tick (its time rounded up to the next :data:`TICK_SECONDS`), and the
set's one timer rings every alarm in it. A heartbeat or a stream's end comes up to a
tick late, which no client can tell from the network's own delays.

An alarm may also ring up to :data:`EARLY_SECONDS` early: a stream re-arms its heartbeat
from the time its alarm rang, a little after its tick, and rounding that up to the next
tick would move every later heartbeat a whole tick later (a stream told to beat every
0.5 s would beat every 0.6 s). So a stream treats its deadline as come
:data:`EARLY_SECONDS` before it.
"""

from __future__ import annotations

import asyncio
import math
from typing import Protocol

__all__ = ["EARLY_SECONDS", "TICK_SECONDS", "Alarm", "Alarms"]

#: The alarms' resolution: an alarm rings up to this much after its time.
TICK_SECONDS = 0.1
#: ... or up to this much before it (see the module).
EARLY_SECONDS = 0.02


class Alarm(Protocol):
    """What rings (a resting stream: :class:`~.streams.Resting`)."""

    def ring(self) -> None:
        """The alarm's time has come."""


class Alarms:
    """This process's alarms, grouped by tick (made in the loop that rings them)."""

    __slots__ = ("_ticks",)

    def __init__(self) -> None:
        self._ticks: dict[int, set[Alarm]] = {}

    def set(self, delay: float, alarm: Alarm) -> int:
        """Ring ``alarm`` ``delay`` seconds from now (up to a tick later or
        :data:`EARLY_SECONDS` earlier) unless :meth:`cancel` is called with the tick
        returned first."""
        loop = asyncio.get_running_loop()
        tick = math.ceil((loop.time() + max(0.0, delay) - EARLY_SECONDS) / TICK_SECONDS)
        alarms = self._ticks.get(tick)
        if alarms is None:
            alarms = self._ticks[tick] = set()
            loop.call_at(tick * TICK_SECONDS, self._ring, tick)
        alarms.add(alarm)
        return tick

    def cancel(self, tick: int, alarm: Alarm) -> None:
        alarms = self._ticks.get(tick)
        if alarms is not None:
            alarms.discard(alarm)

    def pending(self) -> int:
        """Alarms set and not yet rung (for tests)."""
        return sum(len(alarms) for alarms in self._ticks.values())

    def _ring(self, tick: int) -> None:
        for alarm in self._ticks.pop(tick, ()):
            alarm.ring()
