"""How many requests one client may park at once: long-polls and streams.

Waiting is cheap (a greenlet on a web worker's hub, a coroutine of a push process), but
not free: a client that opens thousands of long-polls or streams holds sockets, memory
and a place in every wake-up of its game. ``MAX_WAITS_PER_ADDRESS`` bounds the parked
requests of one client address and ``MAX_WAITS_PER_TOKEN`` those of one seat token (a
bot needs one or two: its turn long-poll and perhaps a stream); one over either is
``429 too_many_waits`` with ``Retry-After``. ``off`` disables a limit.

Counted per process (a gunicorn worker, a push process), in memory: the limit protects
the process that holds the sockets, costs no Redis round trip, and nothing leaks when a
process dies (its sockets die with it). With ``W`` such processes a client may hold up
to ``W`` times a limit in all.

Refused before any Redis work: a client looping waits past its limit must cost the
service nothing but the refusal, so Flask checks the slots in a ``before_request`` hook
that runs before the rate limiter's (which counts in Redis:
:func:`service.api.waiting.install_early_refusal`), and the push tier before it parses
anything else; the view then takes its slot as it parks (:meth:`WaitSlots.hold`).

Refusals spread out: a client looping thousands of waits past its limit, even one that
honours ``Retry-After``, would come back all at once every second, and each refusal is a
whole request of a worker's CPU that everyone else's requests queue behind. So the
refusals of one address (or token) are told to come back at ``RETRIES_PER_SECOND``: the
first after a second, each next one 1/``RETRIES_PER_SECOND`` s later than the one before,
and a client that follows them costs a worker that many refusals a second at most
(bench-push, one client looping 5,000: another client's probes' p99 11.6 s → 80 ms).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from .problems import ApiProblem

__all__ = ["RETRIES_PER_SECOND", "RETRY_AFTER_SECONDS", "WaitSlots", "asks_to_wait",
           "parse_limit"]

#: What a refused client is told to wait before trying again, at the least (a parked
#: request of its own ends within the long-poll cap; a second is enough to free a slot
#: of a stream being reopened).
RETRY_AFTER_SECONDS = 1
#: The refused waits of one address or token that a worker tells to come back in each
#: second (their ``Retry-After`` spreads them: see above).
RETRIES_PER_SECOND = 20
#: Entries of refused keys kept before the stale ones (due in the past) are dropped.
_RETRY_KEYS = 10_000


def asks_to_wait(timeout: str | None) -> bool:
    """Whether a request whose wait is its ``timeout`` query parameter (this text, ``None``
    when absent) may park: what the early refusal decides on before the parameter is
    parsed (the events, a seek's read and its opening)."""
    return timeout not in (None, "0", "0.0", "")


def parse_limit(value: str, name: str) -> int | None:
    """``"off"`` (or empty, ``0``, ``none``) is no limit; otherwise a positive integer."""
    text = value.strip().lower()
    if text in ("", "off", "0", "none", "false"):
        return None
    try:
        limit = int(text)
    except ValueError:
        raise ValueError(f"{name}={value!r} must be a positive integer or 'off'") from None
    if limit < 1:
        raise ValueError(f"{name}={value!r} must be a positive integer or 'off'")
    return limit


class WaitSlots:
    """The parked requests of this worker, counted per address and per token."""

    def __init__(self, per_address: int | None, per_token: int | None) -> None:
        self.per_address = per_address
        self.per_token = per_token
        self._lock = threading.Lock()
        self._held: Counter[str] = Counter()
        self._retry_at: dict[str, float] = {}  # key → when its next refusal is to come back

    def _keys(self, address: str | None,
              bearer: str | None) -> list[tuple[str, str, int]]:
        keys = []
        if self.per_address is not None:
            keys.append(("address", f"a:{address or 'unknown'}", self.per_address))
        if self.per_token is not None and bearer:
            keys.append(("token", f"t:{bearer}", self.per_token))
        return keys

    def _refuse_if_full(self, keys: list[tuple[str, str, int]]) -> None:
        for what, key, limit in keys:
            if self._held[key] >= limit:
                raise ApiProblem(
                    429, "too_many_waits",
                    f"this {what} already holds {limit} waiting requests (long-polls and "
                    f"streams); let one end before opening another",
                    headers={"Retry-After": str(self._retry_after(key))}, limit=limit,
                )

    def _retry_after(self, key: str) -> int:
        """Seconds until this refusal of ``key`` is to come back: the next of its retry
        times, spaced 1/``RETRIES_PER_SECOND`` s apart from a second from now on."""
        now = time.monotonic()
        if len(self._retry_at) > _RETRY_KEYS:
            self._retry_at = {k: at for k, at in self._retry_at.items() if at > now}
        at = max(self._retry_at.get(key, 0.0), now + RETRY_AFTER_SECONDS)
        self._retry_at[key] = at + 1 / RETRIES_PER_SECOND
        return max(RETRY_AFTER_SECONDS, int(at - now))  # (1.0 - ε would floor to 0)

    def check(self, address: str | None, bearer: str | None) -> None:
        """Raise the 429 problem if the address or the ``bearer`` (its identity:
        :func:`.bearer.identity`, the same however its header is spelled) is at its limit
        now."""
        keys = self._keys(address, bearer)
        with self._lock:
            self._refuse_if_full(keys)

    @contextmanager
    def hold(self, address: str | None, bearer: str | None) -> Iterator[None]:
        """Count one parked request for its address and bearer while the block runs, or
        raise the 429 problem if either is at its limit."""
        keys = self.take(address, bearer)
        try:
            yield
        finally:
            self.give(keys)

    def take(self, address: str | None, bearer: str | None) -> list[tuple[str, str, int]]:
        """:meth:`hold`'s start, for a holder that cannot keep a block open for long
        (the push tier holds a stream's slot in a few bytes, not in a generator's frame):
        the slot's keys, each to be given back once with :meth:`give`."""
        keys = self._keys(address, bearer)
        with self._lock:
            self._refuse_if_full(keys)
            for _, key, _ in keys:
                self._held[key] += 1
        return keys

    def give(self, keys: list[tuple[str, str, int]]) -> None:
        """Give back a slot :meth:`take` took."""
        with self._lock:
            for _, key, _ in keys:
                self._held[key] -= 1
                if not self._held[key]:
                    del self._held[key]

    def held(self) -> int:
        """Parked requests counted now (across addresses), for tests and metrics."""
        with self._lock:
            return sum(n for key, n in self._held.items() if key.startswith("a:"))
