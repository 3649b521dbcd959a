"""The in-memory :class:`~service.storage.challenges.ChallengeStore`: dicts under one lock,
no TTLs (a test's challenges live as long as its stores)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable

from ..accounts import folded
from ..challenges import Challenge, ChallengeStore

__all__ = ["MemoryChallenges"]


class MemoryChallenges(ChallengeStore):
    """Challenges and the accounts' indexes in dicts (and the base of other JSON documents
    kept the same way: :class:`~.tournaments.MemoryTournaments`)."""

    ID = "challenge_id"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._challenges: dict[str, Challenge] = {}
        self._indexes: dict[str, dict[str, float]] = {}

    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        with self._lock:
            self._challenges[challenge[self.ID]] = copy.deepcopy(challenge)

    def load(self, challenge_id: str) -> Challenge | None:
        with self._lock:
            found = self._challenges.get(challenge_id)
            return None if found is None else copy.deepcopy(found)

    def change(self, challenge_id: str,
               step: Callable[[Challenge], Challenge | None]) -> Challenge | None:
        with self._lock:
            found = self._challenges.get(challenge_id)
            if found is None:
                return None
            changed = step(copy.deepcopy(found))
            if changed is not None:
                self._challenges[challenge_id] = copy.deepcopy(changed)
            return copy.deepcopy(self._challenges[challenge_id])

    def index(self, handle: str, challenge_id: str, expires: float) -> None:
        with self._lock:
            self._indexes.setdefault(folded(handle), {})[challenge_id] = expires

    def unindex(self, handle: str, challenge_id: str) -> None:
        with self._lock:
            self._indexes.get(folded(handle), {}).pop(challenge_id, None)

    def indexed(self, handle: str, now: float) -> list[str]:
        with self._lock:
            entries = self._indexes.get(folded(handle), {})
            for gone in [c for c, t in entries.items() if t <= now]:
                del entries[gone]
            return sorted(entries, key=lambda c: (entries[c], c))
