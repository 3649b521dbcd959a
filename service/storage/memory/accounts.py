"""The in-memory :class:`~service.storage.accounts.AccountStore`: what the Redis store keeps,
in dicts under the bundle's shared lock, each append announced on the account's channel
(``acct:<handle folded>``, as on the Redis hub).

As on Redis, everything is kept by the handle folded, the account apart from its games
and notes (written whoever has the handle, whether or not the account exists), times
in milliseconds, note bodies as JSON (:mod:`.kept`), and only the latest
:data:`~service.storage.accounts.NOTE_IDS_KEPT` note ids remembered. The stream itself is
not trimmed (Redis keeps about 20,000 notes; a test writes far fewer).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from ..accounts import NOTE_IDS_KEPT, Account, AccountStore, Note, folded
from ..seeks import Waiter
from .kept import as_json, ms
from .shared import Shared

__all__ = ["MemoryAccounts"]


@dataclass
class _Kept:
    account: Account | None = None
    active: dict[str, int] = field(default_factory=dict)  # game id -> joined (ms)
    finished: dict[str, int] = field(default_factory=dict)  # game id -> ended (ms)
    notes: list[Note] = field(default_factory=list)
    noted: dict[str, int] = field(default_factory=dict)  # the latest note ids -> seq


class MemoryAccounts(AccountStore):
    """The accounts in a dict of ``shared``'s lock."""

    def __init__(self, shared: Shared, finished_kept_seconds: int) -> None:
        self._shared = shared
        self._finished_kept_ms = finished_kept_seconds * 1000
        self._kept: dict[str, _Kept] = {}

    def _of(self, handle: str) -> _Kept:
        """What the handle has (made empty if nothing yet; lock held)."""
        return self._kept.setdefault(folded(handle), _Kept())

    def create(self, account: Account) -> bool:
        with self._shared.lock:
            kept = self._of(account.handle)
            if kept.account is not None:
                return False
            kept.account = account
            return True

    def load(self, handle: str) -> Account | None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            return None if kept is None else kept.account

    def update(self, handle: str, **changes: Any) -> Account | None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            if kept is None or kept.account is None or kept.account.closed:
                return None
            kept.account = replace(kept.account, **changes)
            return kept.account

    def add_game(self, handle: str, game_id: str, joined: float) -> None:
        with self._shared.lock:
            kept = self._of(handle)
            if game_id not in kept.finished:
                kept.active.setdefault(game_id, ms(joined))

    def finish_game(self, handle: str, game_id: str, ended: float) -> None:
        with self._shared.lock:
            kept = self._of(handle)
            kept.active.pop(game_id, None)
            kept.finished[game_id] = ms(ended)
            oldest = ms(ended) - self._finished_kept_ms
            kept.finished = {g: t for g, t in kept.finished.items() if t >= oldest}

    def games(self, handle: str, which: str, before: tuple[float, str] | None,
              count: int) -> list[tuple[str, float]]:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            index = {} if kept is None else getattr(kept, which)
            # as Redis reads a sorted set backwards: by score, then the members' bytes
            pairs = sorted(((t / 1000, g) for g, t in index.items()), reverse=True)
        return [(g, t) for t, g in pairs if before is None or (t, g) < before][:count]

    def finished_time(self, handle: str, game_id: str) -> int | None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            return None if kept is None else kept.finished.get(game_id)

    def finished_page(self, handle: str, after: tuple[int, str] | None, count: int, *,
                      newest_first: bool, low: int | None = None,
                      high: int | None = None) -> list[tuple[str, int]]:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            index = {} if kept is None else kept.finished
            # as Redis orders a sorted set: by score, then by the member's bytes (for ASCII
            # ids, as Python orders strings)
            pairs = sorted(((t, g) for g, t in index.items()), reverse=newest_first)
        return [(g, t) for t, g in pairs
                if (low is None or t >= low) and (high is None or t <= high)
                and (after is None or ((t, g) < after if newest_first else (t, g) > after))
                ][:count]

    def append(self, handle: str, notes: Sequence[tuple[str, Mapping[str, object]]]) -> list[int]:
        given: list[int] = []
        with self._shared.lock:
            kept = self._of(handle)
            for note_id, body in notes:
                if note_id in kept.noted:
                    continue
                seq = kept.notes[-1].seq + 1 if kept.notes else 1
                kept.notes.append(Note(seq, as_json(body)))
                kept.noted[note_id] = seq
                given.append(seq)
            while len(kept.noted) > NOTE_IDS_KEPT:  # the oldest first (dicts keep order)
                del kept.noted[next(iter(kept.noted))]
            if given:
                self._shared.announce(f"acct:{folded(handle)}")
        return given

    def notes(self, handle: str, after: int, limit: int) -> list[Note]:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            found = [] if kept is None else [n for n in kept.notes if n.seq > after][:limit]
            return [Note(n.seq, as_json(n.body)) for n in found]

    def newest(self, handle: str) -> int:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            return kept.notes[-1].seq if kept is not None and kept.notes else 0

    @contextmanager
    def watch(self, handle: str) -> Iterator[Waiter]:
        yield self._shared.waiter(f"acct:{folded(handle)}")

    def wake(self, handle: str) -> None:
        with self._shared.lock:
            self._shared.announce(f"acct:{folded(handle)}")
