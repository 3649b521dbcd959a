"""The move workers' schedule: when the service owes a game a move, and who makes it (and
the webhook workers' schedule, the same kind: which account has a delivery due).

Why a schedule beside the games: the moves the service makes itself (a bot seat's, the
stand-in's, a turn clock's time-out) are made by move workers (``python -m
service.workers``), never by a request, so something must tell a worker which game to
play and when. The schedule is one index across games, so on a Redis Cluster it cannot
share a game's key slot and is written apart from the game's own save: it is a hint the
worker checks against the game itself.

Why these operations, and why they cannot lose a move:

* :meth:`Schedule.plan` only ever makes a visit sooner (or adds one), never later and
  never removes it, so two requests planning one game in either order both get their
  visit; when it makes a visit sooner it wakes one waiting worker at once.
* :meth:`Schedule.take` leases the earliest due game to one worker (its visit moved to
  the lease's end), so no two workers play one game at once, and a game whose worker died
  comes due again when its lease ends.
* :meth:`Schedule.release` is the only way a visit is put off or dropped, and only by the
  worker holding the lease, and only if nobody planned it sooner meanwhile (a request
  that made a move due while the worker was looking): that plan stands.

Why lanes: a visit is planned on a *lane* (:data:`LIGHT` by default, :data:`HEAVY`) and a
worker takes from the lanes it serves. A decision of ``strong`` or ``expert`` holds its
process for tens to hundreds of milliseconds, a ``greedy`` one or a clock's time-out for
one or two; in one queue, a greedy reply waits behind whatever heavy decision a worker
is making. So the games with a searching bot are planned on the heavy lane, and each
move worker serves the two lanes with a loop each (``service/workers``): a light visit
never waits for a heavy decision to end, only for its share of the process
(``docs/capacity.md``). A key is planned on one lane for its life (a game's lane is fixed
by its seats when it is made).

The webhook deliveries (:mod:`.webhooks`) need exactly this of their index across
accounts, so it is this class again with accounts for games (a schedule's *key* is
either), on keys of its own (``redis_stores`` builds both; they use one lane).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from .jobs import Job, parse_job

__all__ = ["HEAVY", "KEPT_EARLY_SECONDS", "LANES", "LIGHT", "WAKES_KEPT", "Lease", "Schedule"]

#: The lane of every visit but those of games with a searching bot.
LIGHT = "light"
#: The lane of the games with a bot whose decisions search (``strong``, ``expert``).
HEAVY = "heavy"
LANES = (LIGHT, HEAVY)
#: Wake-ups kept waiting for a worker, per lane (more would wake workers with nothing to
#: take).
WAKES_KEPT = 64


#: How much before its time a visit may be kept: times are kept to the nearest
#: millisecond, and a visit due "now" must be due at once, so it is not rounded up. A worker
#: that sleeps until the earliest visit sleeps this much longer, so that the visit it wakes
#: for is due by the game's own clock too (a turn's deadline), not half a millisecond
#: early, to be found not due and put off.
KEPT_EARLY_SECONDS = 0.0005


@dataclass(frozen=True, slots=True)
class Lease:
    """A key (a game, an account) taken by one worker until ``until`` (Unix seconds, as the
    schedule holds it: :meth:`Schedule.release` compares it exactly), from ``lane``;
    ``due`` is when its visit was planned (how late the worker came is a worker's
    metric)."""

    key: str
    until: float
    due: float
    lane: str = LIGHT

    @property
    def job(self) -> Job:
        """What the key names (:mod:`.jobs`: parsed here, once)."""
        return parse_job(self.key)


class Schedule(ABC):
    """One planned visit per key (Unix seconds, kept to the millisecond: a plan within the
    millisecond of the visit planned is no sooner), taken by the workers under a lease."""

    @abstractmethod
    def plan(self, key: str, at: float, lane: str = LIGHT) -> bool:
        """Visit ``key`` no later than ``at``, on ``lane``: a visit planned sooner stands,
        one planned later is brought forward, and when this makes the visit sooner (or
        new) a worker waiting on that lane is woken (``True``)."""

    @abstractmethod
    def take(self, now: float, lease_seconds: float,
             lanes: Sequence[str] = LANES) -> Lease | None:
        """The key whose visit is the earliest at or before ``now`` on any of ``lanes``,
        leased for ``lease_seconds`` in the same atomic step; ``None`` if none is due. Of
        visits due in one millisecond, the first of ``lanes`` is taken from first, and
        on one lane the keys in order."""

    @abstractmethod
    def release(self, lease: Lease, at: float | None, wake: bool = False) -> bool:
        """End ``lease``: the next visit at ``at`` on its lane (``None``: no visit
        planned), unless the key was planned again since it was taken (``False``: that
        plan stands). With ``wake``, a next visit wakes one waiting worker, as a plan
        does: for a releaser that does not go on to take the next visit itself (a
        delivery's sending thread, whose dispatcher may be waiting on the lease's end)."""

    @abstractmethod
    def wait(self, timeout: float, lanes: Sequence[str] = LANES) -> bool:
        """Block until a :meth:`plan` on one of ``lanes`` wakes this worker (``True``) or
        ``timeout`` seconds pass (``False``). One plan wakes one waiting worker; a wake-up
        nobody waited for is kept for the next wait, up to :data:`WAKES_KEPT` a lane."""

    @abstractmethod
    def visits_due(self, now: float, lanes: Sequence[str] = LANES
                   ) -> tuple[int, float | None]:
        """How many visits of ``lanes`` are due at ``now``, and when the earliest planned
        one is, as kept (Unix seconds, up to :data:`KEPT_EARLY_SECONDS` before the time
        planned; ``None``: none is planned): whether the workers keep up, and how long
        one may sleep."""
