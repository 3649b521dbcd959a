"""Analyses of finished games: each game's status, progress and result, and the queue the
analysis workers take them from.

Why a queue with acknowledgements (a Redis stream read by a consumer group, on Redis):
an analysis takes a worker a minute of CPU, and a worker may die in the middle of one.
An entry stays pending until the worker that took it acknowledges it, and an entry
pending longer than a worker could take is claimed by another (``XAUTOCLAIM``), so a
requested analysis is never lost and never left half done. The game's own hash says
where it stands (``queued``, ``running``, ``done``) and keeps the result; it lives as
long as the game's record (the request gives it the record's remaining time).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

__all__ = ["AnalysisState", "AnalysisStore", "QueuedAnalysis"]


@dataclass(frozen=True, slots=True)
class AnalysisState:
    """Where a game's analysis stands: ``status`` (``queued``, ``running``, ``done``),
    ``progress`` (0 to 1), and the result (opaque bytes) once done."""

    status: str
    progress: float
    result: bytes | None = None


@dataclass(frozen=True, slots=True)
class QueuedAnalysis:
    """An entry of the queue, taken by a worker: acknowledge it when done with it."""

    entry: str
    game_id: str


class AnalysisStore(ABC):
    """The analyses' states and their queue."""

    @abstractmethod
    def load(self, game_id: str) -> AnalysisState | None:
        """The game's analysis, or ``None`` if none was asked for (or it expired)."""

    @abstractmethod
    def request(self, game_id: str, now: float, max_queued: int) -> AnalysisState | None:
        """Queue the game's analysis unless it has one: the state it already had (with
        its result when done), or
        ``None`` when this call queued it, or :class:`QueueFullError` when
        ``max_queued`` analyses wait already. The state lives as long as the game's
        record."""

    @abstractmethod
    def take(self, worker: str, block_seconds: float, stale_seconds: float,
             ) -> QueuedAnalysis | None:
        """The next entry for ``worker``: one another worker took more than
        ``stale_seconds`` ago and never acknowledged (it died), else a new one, waiting
        up to ``block_seconds`` for one; ``None`` if none came."""

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
        """Remove a taken entry from the queue (done with, or nothing to do)."""

    @abstractmethod
    def queued(self) -> int:
        """How many entries the queue holds (waiting or being worked on)."""


class QueueFullError(Exception):
    """The queue holds its most: no analysis is queued now (a 503 with Retry-After)."""


__all__ += ["QueueFullError"]
