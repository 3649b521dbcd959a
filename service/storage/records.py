"""Finished games' records: what the finishing save wrote, read back.

A record is written by the save of the move that finished the game
(:meth:`.games.GameStore.save` with ``record``), in the same atomic step, and never
replaced; it outlives the game's other keys (``RECORD_TTL_SECONDS``, 90 days, against a
day for the finished game itself). A game finished before records were kept gets one
on demand (:meth:`RecordStore.put_record`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["RecordStore"]


class RecordStore(ABC):
    """The records of finished games, as the opaque bytes the service layer made."""

    @abstractmethod
    def put_record(self, game_id: str, record: bytes) -> bool:
        """Keep a finished game's record for the record TTL, unless one is stored already
        (``False``: nothing written; a record is never replaced)."""

    @abstractmethod
    def load_record(self, game_id: str) -> bytes | None:
        """The record stored by the finishing save or :meth:`put_record`; ``None`` if none
        (the game is not finished, or its record expired)."""
