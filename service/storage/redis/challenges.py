"""Challenges in Redis (why these keys and promises: :mod:`service.storage.challenges`)::

    ttt:{ch:<id>}:challenge    the challenge as JSON, with its own TTL
    ttt:{acct:<h>}:challenges  sorted set: the challenges account <h> is in (score: when
                               each expires, ms)

A change is the compare-and-set on the challenge's one key of :mod:`.documents`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..challenges import Challenge, ChallengeStore
from .connection import RedisConnection
from .documents import AccountIndexes, KeptDocuments

__all__ = ["RedisChallenges"]


def _key(challenge_id: str) -> str:
    return f"ttt:{{ch:{challenge_id}}}:challenge"


class RedisChallenges(ChallengeStore):
    """The challenges, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        self._documents = KeptDocuments(connection, _key, Challenge.from_json)
        self._indexes = AccountIndexes(connection, "challenges")

    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        self._documents.create(challenge.challenge_id, challenge, ttl_seconds)

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
