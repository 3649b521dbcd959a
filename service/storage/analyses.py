"""Analyses of finished games: each game's status, progress and result, and the queue the
analysis workers take them from.

Why a queue with acknowledgements (a Redis stream read by a consumer group, on Redis):
an analysis takes a worker a minute of CPU, and a worker may die in the middle of one.
An entry stays pending until the worker that took it acknowledges it, and an entry
pending longer than a worker could take is claimed by another (``XAUTOCLAIM``), so a
requested analysis is never lost and never left half done. The game's own hash says
where it stands (``queued``, ``running``, ``done``) and keeps the result; it lives as
long as the game's record (the request gives it the record's remaining time).

Why fair between requesters: one client that asks for many analyses at once would
otherwise hold every worker for as long as its requests last (another client's waited
at 0% for 676 s behind one requester's). So each requester (a hash of its address: the
queue keeps no address) has at most one entry in the queue at a time, its *head*, waiting
or being worked on; its other requests wait in a list of its own, and when its head is
done with (:meth:`AnalysisStore.ack`), the next of them joins the queue at the back. The
queue is so a ring of requesters, served in turn, and a requester's analyses run one at
a time: a request waits behind at most one entry of each other requester, and with two
workers or more one is free for it while any one requester's run (one requester's
analyses no longer take every worker).

Why a quota per account: an account may have its rated games analysed when they finish
(``analyse_rated``), nobody asking at the time, so the store also counts, per account, the
games so analysed in the last :data:`QUOTA_WINDOW_SECONDS` (:meth:`AnalysisStore.charge`):
at most ``ANALYSIS_AUTO_PER_DAY`` of them, each game once however often it is charged.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

__all__ = ["QUOTA_WINDOW_SECONDS", "AnalysisState", "AnalysisStore", "QueuedAnalysis"]

#: The window an account's automatic analyses are counted over: a day, rolling.
QUOTA_WINDOW_SECONDS = 24 * 3600


@dataclass(frozen=True, slots=True)
class AnalysisState:
    """Where a game's analysis stands: ``status`` (``queued``, ``running``, ``done``),
    ``progress`` (0 to 1), and the result (opaque bytes) once done."""

    status: str
    progress: float
    result: bytes | None = None


@dataclass(frozen=True, slots=True)
class QueuedAnalysis:
    """An entry of the queue, taken by a worker: acknowledge it when done with it.
    ``requester``: who asked for it (hashed)."""

    entry: str
    game_id: str
    requester: str = ""


class AnalysisStore(ABC):
    """The analyses' states and their queue, and each account's automatic analyses."""

    #: the most automatic analyses an account has in :data:`QUOTA_WINDOW_SECONDS`
    #: (``ANALYSIS_AUTO_PER_DAY``) and the most analyses waiting (``ANALYSIS_QUEUE_MAX``):
    #: the settings the game-finished effect queues by (it is handed the stores, not the
    #: configuration)
    auto_per_day: int
    max_queued: int

    @abstractmethod
    def load(self, game_id: str) -> AnalysisState | None:
        """The game's analysis, or ``None`` if none was asked for (or it expired)."""

    @abstractmethod
    def request(self, game_id: str, now: float, max_queued: int, requester: str,
                ) -> AnalysisState | None:
        """Queue the game's analysis for ``requester`` (a hash: who asked, the unit the
        queue is fair between) unless it has one: the state it already had (with its
        result when done), or ``None`` when this call queued it, or
        :class:`QueueFullError` when ``max_queued`` analyses wait already (in the queue
        and behind their requesters' heads). The state lives as long as the game's
        record."""

    @abstractmethod
    def take(self, worker: str, block_seconds: float, stale_seconds: float,
             ) -> QueuedAnalysis | None:
        """The next entry for ``worker``: one another worker took more than
        ``stale_seconds`` ago and never acknowledged (it died), else a new one, waiting
        up to ``block_seconds`` for one; ``None`` if none came. (A requester's next
        request joins the queue when this one is acknowledged: :meth:`ack`.)"""

    @abstractmethod
    def start(self, game_id: str, worker: str, now: float, stale_seconds: float) -> bool:
        """Mark the analysis running by ``worker``: whether it should run it (no: it is
        done, or running by a worker heard from within ``stale_seconds``)."""

    @abstractmethod
    def progress(self, game_id: str, fraction: float, now: float) -> None:
        """Record the running analysis' progress (and that its worker lives)."""

    @abstractmethod
    def finish(self, game_id: str, result: bytes) -> None:
        """Keep the result: the analysis is done."""

    @abstractmethod
    def drop(self, game_id: str) -> None:
        """Forget the game's analysis (it failed: a new request may queue it again)."""

    @abstractmethod
    def ack(self, taken: QueuedAnalysis) -> None:
        """Remove a taken entry from the queue (done with, or nothing to do); if it was
        its requester's head, the requester's next request joins the queue."""

    @abstractmethod
    def charge(self, handle: str, game_id: str, now: float) -> bool:
        """Count the automatic analysis of ``game_id`` against ``handle``'s quota: whether
        it is within it. A game counted already within the window is within it again and
        counted once (a repeated effect costs nothing more); past :attr:`auto_per_day`
        games in the :data:`QUOTA_WINDOW_SECONDS` before ``now``, ``False`` and nothing
        counted."""

    @abstractmethod
    def refund(self, handle: str, game_id: str) -> None:
        """Take ``game_id`` off ``handle``'s count (it was not queued after all)."""

    @abstractmethod
    def charged(self, handle: str, now: float) -> int:
        """How many automatic analyses ``handle`` had in the window before ``now``."""

    @abstractmethod
    def queued(self) -> int:
        """How many analyses are queued: the queue's entries (waiting or being worked on)
        and the requests waiting behind their requesters' heads."""


class QueueFullError(Exception):
    """The queue holds its most: no analysis is queued now (a 503 with Retry-After)."""


__all__ += ["QueueFullError"]
