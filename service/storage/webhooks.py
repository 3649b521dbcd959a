"""Webhook deliveries waiting to be made: one queue per account, in the account's keys.

Why per account: an account's deliveries go to one URL, its cap bounds what one account
can make the service keep, and on a Redis Cluster the queue lives on the account's shard
(its hash tag) beside the account, so each operation below is one atomic step there.
Which accounts have a delivery due, and which worker is making it, is a second index
across accounts: a :class:`~service.storage.schedule.Schedule` of its own (the move
workers' kind of schedule, with leases), written after the queue and checked against it,
as the move workers' schedule is checked against the games.

Why these operations keep every event until it is delivered or given up:

* :meth:`WebhookQueue.push` adds each event once (an event id already waiting is not
  added again) and, past the cap, drops the oldest waiting events: the bound on what
  one account's receiver being down can cost (``WEBHOOK_QUEUE_MAX``).
* :meth:`WebhookQueue.head` only reads; an event leaves the queue only by
  :meth:`WebhookQueue.done` (delivered, or given up) and is otherwise put off by
  :meth:`WebhookQueue.retry`. A worker that dies between the two leaves the event where
  it was, due again, and the account's lease on the schedule runs out: another worker
  delivers it (at least once; the receiver knows a repeat by its ``webhook-id``).

Why a hold beside the schedule's lease: a lease is a score on the schedule, and an event
queued during an attempt plans the account sooner (a plan only brings a visit forward),
which ends the lease's protection: another worker could take the account and send the
same event again while the first attempt is still waiting on the receiver, and an
account whose receiver hangs and whose notes keep coming would occupy every sending
thread. :meth:`WebhookQueue.hold` is the account's own mark, on its shard, that an
attempt is under way, ending with the lease: one attempt per account at a time, however
often it is planned.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Delivery", "WebhookQueue"]


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event to POST to an account's webhook: its stable id (the ``webhook-id``), the
    JSON body (the same bytes at every attempt), the attempts made so far, when it was
    queued and when its next attempt is due (Unix seconds, kept to the millisecond: of
    one millisecond, the lower event id is the older and the one due first)."""

    event_id: str
    payload: str
    attempts: int
    queued: float
    due: float


class WebhookQueue(ABC):
    """Each account's undelivered webhook events, by handle (in any case), at most ``cap``
    of them per account (``WEBHOOK_QUEUE_MAX``)."""

    cap: int

    @abstractmethod
    def push(self, handle: str, deliveries: Sequence[Delivery]) -> tuple[int, int]:
        """Queue ``deliveries`` (those whose event id is not waiting already), then drop the
        oldest queued past the store's cap; how many were added and how many dropped."""

    @abstractmethod
    def head(self, handle: str) -> Delivery | None:
        """The delivery due first (perhaps not yet due); ``None``: the queue is empty."""

    @abstractmethod
    def done(self, handle: str, event_id: str) -> float | None:
        """Remove the event (delivered, or given up); when the next delivery is due
        (``None``: none waits)."""

    @abstractmethod
    def retry(self, handle: str, event_id: str, attempts: int, at: float) -> float | None:
        """Record ``attempts`` made and put the next attempt at ``at`` (an event no longer
        queued, dropped meanwhile, stays gone); when the next delivery is due."""

    @abstractmethod
    def hold(self, handle: str, holder: str, now: float, until: float) -> float | None:
        """Mark an attempt of ``holder`` under way for ``handle`` until ``until`` (when its
        lease ends), unless another holder's mark is still on: then when that one ends
        (and nothing is marked)."""

    @abstractmethod
    def unhold(self, handle: str, holder: str) -> None:
        """Remove ``holder``'s mark (another's, made after it ran out, stays)."""

    @abstractmethod
    def clear(self, handle: str) -> int:
        """Drop every waiting event (the account has no webhook any more); how many."""
