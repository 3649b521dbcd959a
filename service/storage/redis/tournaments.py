"""Tournaments in Redis (why: :mod:`service.storage.tournaments`)::

    ttt:{tn:<id>}:tournament      the tournament as JSON, with its own TTL
    ttt:{acct:<h>}:tournaments    sorted set: the tournaments account <h> made or entered
    ttt:{tourneys}:<status>       sorted set: the tournaments of a status (score: ms)

The document's change is the compare-and-set on its one key of :mod:`.documents`, as a
challenge's is.
"""

from __future__ import annotations

from typing import Any

from ..tournaments import Tournament, TournamentStore
from .connection import RedisConnection
from .documents import IndexedDocuments

__all__ = ["RedisTournaments"]


def _key(tournament_id: str) -> str:
    return f"ttt:{{tn:{tournament_id}}}:tournament"


def _listing(status: str) -> str:
    return f"ttt:{{tourneys}}:{status}"


def _id(tournament: Tournament) -> str:
    return tournament.tournament_id


class RedisTournaments(IndexedDocuments[Tournament], TournamentStore):
    """The tournaments, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        super().__init__(connection, _key, Tournament.from_json, _id, "tournaments")

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
