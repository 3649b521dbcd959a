"""Tournaments: one JSON document each, changed atomically, and listed by status.

A tournament is kept the way a challenge is (:mod:`.challenges`): a document under its
own hash tag, changed by a check-and-set (:meth:`TournamentStore.change`: the move
worker's advance of a round and a join racing a start each win or lose whole), and each
account indexes the tournaments it made or entered (how many it runs at once is counted
there). Besides, the store lists tournaments by status (``open``, ``running``,
``finished``), newest first, for ``GET /v1/tournaments``: an index across tournaments,
written after the document and corrected on read (an entry whose tournament is gone or
has moved on is skipped).
"""

from __future__ import annotations

from abc import abstractmethod

from .challenges import ChallengeStore

__all__ = ["TOURNAMENT_STATUSES", "TournamentStore"]

#: The listings, by a tournament's status.
TOURNAMENT_STATUSES = ("open", "running", "finished")


class TournamentStore(ChallengeStore):
    """Tournaments by id (``tournament_id``), the accounts' indexes of them, and the
    listings by status."""

    @abstractmethod
    def relist(self, status: str, tournament_id: str, at: float,
             unlist: str | None = None) -> None:
        """List ``tournament_id`` under ``status`` (ordered by ``at``, kept to the
        millisecond; listed already: moved to ``at``), and drop it from the listing
        ``unlist`` if given."""

    @abstractmethod
    def listed(self, status: str, before: float | None, limit: int) -> list[tuple[str, float]]:
        """Up to ``limit`` ids listed under ``status`` with their times, newest first
        (those of one millisecond in reverse id order), those older than ``before``'s
        millisecond only (a page's cursor)."""
