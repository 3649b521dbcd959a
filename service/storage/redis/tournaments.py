"""Tournaments in Redis (why: :mod:`service.storage.tournaments`)::

    ttt:{tn:<id>}:tournament      the tournament as JSON, with its own TTL
    ttt:{acct:<h>}:tournaments    sorted set: the tournaments account <h> made or entered
    ttt:{tourneys}:<status>       sorted set: the tournaments of a status (score: ms)

The document's change is the compare-and-set on its one key of :mod:`.documents`, as a
challenge's is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..tournaments import Tournament, TournamentStore
from .connection import RedisConnection
from .documents import AccountIndexes, KeptDocuments

__all__ = ["RedisTournaments"]


def _key(tournament_id: str) -> str:
    return f"ttt:{{tn:{tournament_id}}}:tournament"


def _listing(status: str) -> str:
    return f"ttt:{{tourneys}}:{status}"


class RedisTournaments(TournamentStore):
    """The tournaments, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        self._documents = KeptDocuments(connection, _key, Tournament.from_json)
        self._indexes = AccountIndexes(connection, "tournaments")

    def create(self, tournament: Tournament, ttl_seconds: int) -> None:
        self._documents.create(tournament.tournament_id, tournament, ttl_seconds)

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
        def write() -> Any:
            pipe = self.connection.client.pipeline(transaction=True)  # one slot: {tourneys}
            pipe.zadd(_listing(status), {tournament_id: round(at * 1000)})
            if unlist is not None:
                pipe.zrem(_listing(unlist), tournament_id)
            return pipe.execute()
        self.connection.run(write)

    def listed(self, status: str, before: float | None, limit: int) -> list[tuple[str, float]]:
        top = "+inf" if before is None else f"({round(before * 1000)}"
        client = self.connection.client
        found = self.connection.run(lambda: client.zrevrangebyscore(
            _listing(status), top, "-inf", start=0, num=limit, withscores=True))
        return [(i.decode(), score / 1000) for i, score in found]
