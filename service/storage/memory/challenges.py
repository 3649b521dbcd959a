"""The in-memory :class:`~service.storage.challenges.ChallengeStore`: each challenge as its
JSON bytes (as Redis keeps it), changed by the same compare-and-set as the Redis store's,
and the accounts' indexes in milliseconds (:mod:`.kept`); no TTLs (a test's challenges
live as long as its stores).

Why a compare-and-set rather than running the step under the lock: the step then runs as
it does on Redis, outside any lock, and again when another change lands meanwhile, so a
step that a second change would disturb, or that counts its runs, is seen doing so in
the fast tests rather than only on Redis.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import orjson

from ..accounts import folded
from ..challenges import Challenge, ChallengeStore
from .kept import ms

__all__ = ["MemoryChallenges"]


class MemoryChallenges(ChallengeStore):
    """Challenges and the accounts' indexes in dicts (and the base of other JSON documents
    kept the same way: :class:`~.tournaments.MemoryTournaments`)."""

    ID = "challenge_id"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._documents: dict[str, bytes] = {}
        self._indexes: dict[str, dict[str, int]] = {}  # handle folded -> id -> expiry ms

    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        blob = orjson.dumps(challenge)
        with self._lock:
            self._documents[challenge[self.ID]] = blob

    def load(self, challenge_id: str) -> Challenge | None:
        with self._lock:
            blob = self._documents.get(challenge_id)
        return None if blob is None else orjson.loads(blob)

    def change(self, challenge_id: str,
               step: Callable[[Challenge], Challenge | None]) -> Challenge | None:
        while True:
            with self._lock:
                read = self._documents.get(challenge_id)
            if read is None:
                return None
            changed = step(orjson.loads(read))
            if changed is None:
                return orjson.loads(read)  # type: ignore[no-any-return]
            written = orjson.dumps(changed)
            with self._lock:
                if self._documents.get(challenge_id) == read:
                    self._documents[challenge_id] = written
                    return orjson.loads(written)  # type: ignore[no-any-return]
            # changed by another meanwhile: read it again and step from there

    def index(self, handle: str, challenge_id: str, expires: float) -> None:
        with self._lock:
            self._indexes.setdefault(folded(handle), {})[challenge_id] = ms(expires)

    def unindex(self, handle: str, challenge_id: str) -> None:
        with self._lock:
            self._indexes.get(folded(handle), {}).pop(challenge_id, None)

    def indexed(self, handle: str, now: float) -> list[str]:
        with self._lock:
            entries = self._indexes.get(folded(handle), {})
            for gone in [c for c, t in entries.items() if t <= ms(now)]:
                del entries[gone]
            return sorted(entries, key=lambda c: (entries[c], c))
