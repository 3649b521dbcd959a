"""Records in Redis: ``ttt:{<id>}:record``, written by the save script that finished the
game (:mod:`.games`, ``SET … NX`` with ``RECORD_TTL_SECONDS``) and read here.

The value is opaque to the store: the record (the JSON of :mod:`service.verify.record`)
and the seats' token hashes, zlib-compressed by the service layer
(``service/play/records.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..records import RecordStore
from .connection import RedisConnection

__all__ = ["RedisRecords", "record_key"]


def record_key(game_id: str) -> str:
    """The key of a game's record (the game's hash tag: the save script writes it)."""
    return f"ttt:{{{game_id}}}:record"


class RedisRecords(RecordStore):
    """Reads the records the save script writes."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    def load_record(self, game_id: str) -> bytes | None:
        client = self.connection.client
        record: bytes | None = self.connection.run(lambda: client.get(record_key(game_id)))
        return record

    def load_records(self, game_ids: Sequence[str]) -> list[bytes | None]:
        def read() -> list[Any]:
            # a pipeline, not MGET: each record is on its own game's slot (a Redis
            # Cluster's pipeline sends each node its keys)
            pipe = self.connection.client.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.get(record_key(game_id))
            replies: list[Any] = pipe.execute()
            return replies

        return self.connection.run(read) if game_ids else []
