"""The in-memory :class:`~service.storage.tournaments.TournamentStore`: each tournament as
its JSON bytes, changed by compare-and-set, the accounts' indexes (:mod:`.documents`),
and one dict per listing (times in milliseconds, ties in reverse id order, as a sorted
set read backwards has them: :mod:`.kept`)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..tournaments import TOURNAMENT_STATUSES, Tournament, TournamentStore
from .documents import AccountIndexes, KeptDocuments
from .kept import ms

__all__ = ["MemoryTournaments"]


class MemoryTournaments(TournamentStore):
    """Tournaments, the accounts' indexes and the listings in dicts."""

    def __init__(self) -> None:
        self._documents = KeptDocuments(Tournament.from_json)
        self._indexes = AccountIndexes()
        self._lock = threading.Lock()
        self._listings: dict[str, dict[str, int]] = {s: {} for s in TOURNAMENT_STATUSES}  # ms

    def create(self, tournament: Tournament, ttl_seconds: int) -> None:
        self._documents.create(tournament.tournament_id, tournament)

    def load(self, tournament_id: str) -> Tournament | None:
        return self._documents.load(tournament_id)

    def change(self, tournament_id: str,
               step: Callable[[Tournament], Tournament | None]) -> Tournament | None:
        return self._documents.change(tournament_id, step)

    def index(self, handle: str, tournament_id: str, expires: float) -> None:
        self._indexes.index(handle, tournament_id, expires)

    def unindex(self, handle: str, tournament_id: str) -> None:
        self._indexes.unindex(handle, tournament_id)

    def indexed(self, handle: str, now: float) -> list[str]:
        return self._indexes.indexed(handle, now)

    def relist(self, status: str, tournament_id: str, at: float,
             unlist: str | None = None) -> None:
        with self._lock:
            self._listings[status][tournament_id] = ms(at)
            if unlist is not None:
                self._listings[unlist].pop(tournament_id, None)

    def listed(self, status: str, before: float | None, limit: int) -> list[tuple[str, float]]:
        with self._lock:
            entries = [(t, i) for i, t in self._listings[status].items()
                       if before is None or t < ms(before)]
        return [(i, t / 1000) for t, i in sorted(entries, reverse=True)[:limit]]
