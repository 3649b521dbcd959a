"""What the in-memory challenge and tournament stores share, written once
(:class:`IndexedDocuments`, which each store is): documents kept as their JSON bytes (as
Redis keeps them), changed by the same compare-and-set as the Redis stores', and the
accounts' indexes of them in milliseconds (:mod:`.kept`); no TTLs (a test's documents
live as long as its stores).

Why a compare-and-set rather than running the step under the lock: the step then runs as
it does on Redis, outside any lock, and again when another change lands meanwhile, so a
step that a second change would disturb, or that counts its runs, is seen doing so in
the fast tests rather than only on Redis.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic

from ..accounts import folded
from ..documents import D, Parse, change_by_swap, dumps, loads
from .kept import ms

__all__ = ["IndexedDocuments"]


class IndexedDocuments(Generic[D]):
    """Documents of one kind by id (``id_of`` a document), as JSON bytes read back with
    ``parse``, and each account's index of them: id -> when it expires (ms). The
    challenge and tournament stores' methods of the same names, for both."""

    def __init__(self, parse: Parse[D], id_of: Callable[[D], str]) -> None:
        self._parse = parse
        self._id_of = id_of
        self._lock = threading.Lock()
        self._documents: dict[str, bytes] = {}
        self._indexes: dict[str, dict[str, int]] = {}  # handle folded -> id -> expiry ms

    def create(self, document: D, ttl_seconds: int) -> None:
        blob = dumps(document)
        with self._lock:
            self._documents[self._id_of(document)] = blob

    def load(self, document_id: str) -> D | None:
        with self._lock:
            blob = self._documents.get(document_id)
        return None if blob is None else loads(self._parse, blob)

    def change(self, document_id: str, step: Callable[[D], D | None]) -> D | None:
        def read() -> bytes | None:
            with self._lock:
                return self._documents.get(document_id)

        def swap(read: bytes, written: bytes) -> bool:
            with self._lock:
                if self._documents.get(document_id) != read:
                    return False
                self._documents[document_id] = written
                return True

        return change_by_swap(self._parse, read, swap, step)

    def index(self, handle: str, document_id: str, expires: float) -> None:
        with self._lock:
            self._indexes.setdefault(folded(handle), {})[document_id] = ms(expires)

    def unindex(self, handle: str, document_id: str) -> None:
        with self._lock:
            self._indexes.get(folded(handle), {}).pop(document_id, None)

    def indexed(self, handle: str, now: float) -> list[str]:
        with self._lock:
            entries = self._indexes.get(folded(handle), {})
            for gone in [c for c, t in entries.items() if t <= ms(now)]:
                del entries[gone]
            return sorted(entries, key=lambda c: (entries[c], c))
