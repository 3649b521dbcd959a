"""Challenges in Redis (why these keys and promises: :mod:`service.storage.challenges`)::

    ttt:{ch:<id>}:challenge    the challenge as JSON, with its own TTL
    ttt:{acct:<h>}:challenges  sorted set: the challenges account <h> is in (score: when
                               each expires, ms)

A change is the compare-and-set on the challenge's one key of :mod:`.documents`.
"""

from __future__ import annotations

from ..challenges import Challenge, ChallengeStore
from .connection import RedisConnection
from .documents import IndexedDocuments

__all__ = ["RedisChallenges"]


def _key(challenge_id: str) -> str:
    return f"ttt:{{ch:{challenge_id}}}:challenge"


def _id(challenge: Challenge) -> str:
    return challenge.challenge_id


class RedisChallenges(IndexedDocuments[Challenge], ChallengeStore):
    """The challenges, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        super().__init__(connection, _key, Challenge.from_json, _id, "challenges")
