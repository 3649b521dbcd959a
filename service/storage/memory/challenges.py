"""The in-memory :class:`~service.storage.challenges.ChallengeStore`: each challenge as its
JSON bytes, changed by compare-and-set, and the accounts' indexes (:mod:`.documents`)."""

from __future__ import annotations

from ..challenges import Challenge, ChallengeStore
from .documents import IndexedDocuments

__all__ = ["MemoryChallenges"]


def _id(challenge: Challenge) -> str:
    return challenge.challenge_id


class MemoryChallenges(IndexedDocuments[Challenge], ChallengeStore):
    """Challenges and the accounts' indexes in dicts."""

    def __init__(self) -> None:
        super().__init__(Challenge.from_json, _id)
