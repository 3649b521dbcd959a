"""The service layer on the in-memory store: no Redis, no HTTP, milliseconds a test."""

from __future__ import annotations

import pytest

from service.storage.memory import MemoryGameStore


@pytest.fixture
def store() -> MemoryGameStore:
    return MemoryGameStore()
