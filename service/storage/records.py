"""Finished games' records: read back what the finishing save wrote.

A record is written once, by the save of the move that finished the game
(:meth:`.games.GameStore.save` with ``record``), in the same atomic step, and never
replaced; it outlives the game's other keys (``RECORD_TTL_SECONDS``, 90 days, against a
day for the finished game itself). Why nothing else writes one: a finished game then has
its record from the moment it is finished, and reading a record never writes anything.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

__all__ = ["RecordStore"]


class RecordStore(ABC):
    """The records of finished games, as the opaque bytes the service layer made."""

    @abstractmethod
    def load_record(self, game_id: str) -> bytes | None:
        """The record the finishing save stored; ``None`` if none (the game is not finished,
        finished before records were kept, or its record expired)."""

    @abstractmethod
    def load_records(self, game_ids: Sequence[str]) -> list[bytes | None]:
        """The records of ``game_ids``, in order (``None`` where there is none), read
        together: one round trip for a page of an export rather than one a game."""
