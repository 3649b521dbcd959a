"""The in-memory :class:`~service.storage.tournaments.TournamentStore`: each tournament as
its JSON bytes, changed by compare-and-set, the accounts' indexes (:mod:`.documents`),
and one dict per listing (times in milliseconds, ties in reverse id order, as a sorted
set read backwards has them: :mod:`.kept`)."""

from __future__ import annotations

import threading

from ..tournaments import TOURNAMENT_STATUSES, Tournament, TournamentStore
from .documents import IndexedDocuments
from .kept import ms

__all__ = ["MemoryTournaments"]


def _id(tournament: Tournament) -> str:
    return tournament.tournament_id


class MemoryTournaments(IndexedDocuments[Tournament], TournamentStore):
    """Tournaments, the accounts' indexes and the listings in dicts."""

    def __init__(self) -> None:
        super().__init__(Tournament.from_json, _id)
        self._listings_lock = threading.Lock()
        self._listings: dict[str, dict[str, int]] = {s: {} for s in TOURNAMENT_STATUSES}  # ms

    def relist(self, status: str, tournament_id: str, at: float,
             unlist: str | None = None) -> None:
        with self._listings_lock:
            self._listings[status][tournament_id] = ms(at)
            if unlist is not None:
                self._listings[unlist].pop(tournament_id, None)

    def listed(self, status: str, before: float | None, limit: int) -> list[tuple[str, float]]:
        with self._listings_lock:
            entries = [(t, i) for i, t in self._listings[status].items()
                       if before is None or t < ms(before)]
        return [(i, t / 1000) for t, i in sorted(entries, reverse=True)[:limit]]
