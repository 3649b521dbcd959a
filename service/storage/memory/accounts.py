"""The in-memory :class:`~service.storage.accounts.AccountStore`: what the Redis store keeps,
in dicts under the bundle's shared lock, each append announced on the account's channel
(``acct:<handle folded>``, as on the Redis hub)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from ..accounts import Account, AccountStore, Note, folded
from ..seeks import Waiter
from .shared import Shared

__all__ = ["MemoryAccounts"]


@dataclass
class _Kept:
    account: Account
    active: dict[str, float] = field(default_factory=dict)
    finished: dict[str, float] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    noted: set[str] = field(default_factory=set)


class MemoryAccounts(AccountStore):
    """The accounts in a dict of ``shared``'s lock."""

    def __init__(self, shared: Shared, finished_kept_seconds: int) -> None:
        self._shared = shared
        self._finished_kept = finished_kept_seconds
        self._kept: dict[str, _Kept] = {}

    def create(self, account: Account) -> bool:
        with self._shared.lock:
            if folded(account.handle) in self._kept:
                return False
            self._kept[folded(account.handle)] = _Kept(account)
            return True

    def load(self, handle: str) -> Account | None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            return None if kept is None else kept.account

    def update(self, handle: str, **changes: Any) -> Account | None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            if kept is None or kept.account.closed:
                return None
            kept.account = replace(kept.account, **changes)
            return kept.account

    def add_game(self, handle: str, game_id: str, joined: float) -> None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            if kept is not None:
                kept.active[game_id] = round(joined * 1000) / 1000

    def finish_game(self, handle: str, game_id: str, ended: float) -> None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            if kept is not None:
                kept.active.pop(game_id, None)
                kept.finished[game_id] = round(ended * 1000) / 1000
                oldest = kept.finished[game_id] - self._finished_kept
                kept.finished = {g: t for g, t in kept.finished.items() if t >= oldest}

    def games(self, handle: str, which: str, before: tuple[float, str] | None,
              count: int) -> list[tuple[str, float]]:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            index = {} if kept is None else getattr(kept, which)
            pairs = sorted(((t, g) for g, t in index.items()), reverse=True)
        return [(g, t) for t, g in pairs if before is None or (t, g) < before][:count]

    def finished_time(self, handle: str, game_id: str) -> int | None:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            ended = None if kept is None else kept.finished.get(game_id)
        return None if ended is None else round(ended * 1000)

    def finished_page(self, handle: str, after: tuple[int, str] | None, count: int, *,
                      newest_first: bool, low: int | None = None,
                      high: int | None = None) -> list[tuple[str, int]]:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            index = {} if kept is None else kept.finished
            # as Redis orders a sorted set: by score, then by the member's bytes (for ASCII
            # ids, as Python orders strings)
            pairs = sorted(((round(t * 1000), g) for g, t in index.items()),
                           reverse=newest_first)
        return [(g, t) for t, g in pairs
                if (low is None or t >= low) and (high is None or t <= high)
                and (after is None or ((t, g) < after if newest_first else (t, g) > after))
                ][:count]

    def append(self, handle: str, notes: Sequence[tuple[str, dict[str, Any]]]) -> list[int]:
        given: list[int] = []
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            if kept is None:
                return given
            for note_id, body in notes:
                if note_id in kept.noted:
                    continue
                kept.noted.add(note_id)
                seq = kept.notes[-1].seq + 1 if kept.notes else 1
                kept.notes.append(Note(seq, dict(body)))
                given.append(seq)
            if given:
                self._shared.announce(f"acct:{folded(handle)}")
        return given

    def notes(self, handle: str, after: int, limit: int) -> list[Note]:
        with self._shared.lock:
            kept = self._kept.get(folded(handle))
            return [] if kept is None else [n for n in kept.notes if n.seq > after][:limit]

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
