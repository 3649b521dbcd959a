"""The in-memory :class:`~service.storage.challenges.ChallengeStore`: each challenge as its
JSON bytes, changed by compare-and-set, and the accounts' indexes (:mod:`.documents`)."""

from __future__ import annotations

from collections.abc import Callable

from ..challenges import Challenge, ChallengeStore
from .documents import AccountIndexes, KeptDocuments

__all__ = ["MemoryChallenges"]


class MemoryChallenges(ChallengeStore):
    """Challenges and the accounts' indexes in dicts."""

    def __init__(self) -> None:
        self._documents = KeptDocuments(Challenge.from_json)
        self._indexes = AccountIndexes()

    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        self._documents.create(challenge.challenge_id, challenge)

    def load(self, challenge_id: str) -> Challenge | None:
        return self._documents.load(challenge_id)

    def change(self, challenge_id: str,
               step: Callable[[Challenge], Challenge | None]) -> Challenge | None:
        return self._documents.change(challenge_id, step)

    def index(self, handle: str, challenge_id: str, expires: float) -> None:
        self._indexes.index(handle, challenge_id, expires)

    def unindex(self, handle: str, challenge_id: str) -> None:
        self._indexes.unindex(handle, challenge_id)

    def indexed(self, handle: str, now: float) -> list[str]:
        return self._indexes.indexed(handle, now)
