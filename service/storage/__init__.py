"""Persistence of games behind a small interface (:class:`GameStore`), implemented on Redis
(and in memory, ``service.storage.memory``, for the service layer's fast tests only)."""

from .base import (
    LISTINGS,
    GameExistsError,
    GameRecord,
    GameStore,
    ReplyKeySupersededError,
    StorageError,
    StorageUnavailableError,
    StoredReply,
    UnknownGameError,
    VersionConflictError,
)
from .redis_store import RedisGameStore

__all__ = [
    "LISTINGS",
    "GameExistsError",
    "GameRecord",
    "GameStore",
    "RedisGameStore",
    "ReplyKeySupersededError",
    "StorageError",
    "StorageUnavailableError",
    "StoredReply",
    "UnknownGameError",
    "VersionConflictError",
]
