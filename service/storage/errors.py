"""The errors every store raises, whatever it keeps and wherever.

Why one module for all of them: the service layer and the HTTP layer handle a storage
failure the same way whichever concept failed (a game, a reply, the lobby), so the
errors are not tied to one interface.
"""

from __future__ import annotations

__all__ = [
    "GameExistsError",
    "ReplyKeySupersededError",
    "StorageError",
    "StorageUnavailableError",
    "UnknownGameError",
    "VersionConflictError",
]


class StorageError(Exception):
    """Base of the errors a store raises."""


class UnknownGameError(StorageError):
    """No game with this id (never created, or expired after its TTL)."""


class GameExistsError(StorageError):
    """A game id was created twice (ids are random, so this means a bug or a collision)."""


class VersionConflictError(StorageError):
    """The stored version is not the one the write was computed from: nothing was written."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class ReplyKeySupersededError(StorageError):
    """A reply key older than its slot's latest: that request was answered and then
    followed by a newer one of the same seat, so it may neither act again nor replay."""


class StorageUnavailableError(StorageError):
    """The backend cannot be reached or did not answer in time (the service answers 503)."""
