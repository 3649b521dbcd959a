"""Records in Redis: ``ttt:{<id>}:record``, written by the save script that finished the
game (:mod:`.games`, ``SET … NX`` with ``RECORD_TTL_SECONDS``) and read here.

The value is opaque to the store: the record (the JSON of :mod:`service.verify.record`)
and the seats' token hashes, zlib-compressed by the service layer
(``service/play/records.py``).
"""

from __future__ import annotations

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
