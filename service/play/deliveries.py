"""The webhook deliveries: one attempt per visit of an account, retried on a schedule.

Who makes them: only the delivery workers (``python -m service.workers``), never a
request. :func:`.webhooks.queue_webhooks` plans the account on the webhook schedule; a
worker takes the earliest due account under a lease, marks the attempt under way on the
account's queue (:meth:`~service.storage.WebhookQueue.hold`: an event queued meanwhile
plans the account again, which a lease alone would not survive), makes **one** attempt
of its delivery due first (:func:`deliver`) and releases the account at its next due
delivery, behind every account due before it. So deliveries to one account go one at a
time, and one account's slow or failing receiver holds one sending thread for at most an
attempt's deadline, while every other account is served by the other threads.

Each event is attempted at once, then after each wait of ``WEBHOOK_RETRY_SECONDS``
while its attempts fail (any answer but a 2xx, a timeout, a refused address), and
given up after the last (by default 5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h: Standard
Webhooks' schedule kept within a day, the last attempt 23 h 35 min after the first). A
delivery is removed from the queue only once its attempt succeeded or its last failed,
so a worker that died during an attempt leaves it queued: another makes it again when
the lease runs out, with the same ``webhook-id`` and body (at least once). Every attempt
reads the account's URL and secret afresh: a changed URL gets the events still waiting,
signed with its new secret; an account that removed its webhook, or closed, has its
queue dropped.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

from service.storage import Delivery, Lease, Stores
from service.webhooks import Attempt, Send

__all__ = ["LEASE_MARGIN_SECONDS", "deliver", "lease_seconds"]

log = logging.getLogger(__name__)

#: What a lease allows beyond an attempt's two timeouts (connecting, then reading): the
#: name's resolution and the queue's reads and writes.
LEASE_MARGIN_SECONDS = 10.0


def lease_seconds(timeout: float) -> float:
    """How long a worker holds an account for one attempt with this ``timeout``: longer
    than any attempt, so only a worker that died leaves a lease to run out."""
    return 2 * timeout + LEASE_MARGIN_SECONDS


def deliver(stores: Stores, lease: Lease, send: Send, retries: tuple[float, ...],
            clock: Callable[[], float] = time.time) -> str | None:
    """Make the one attempt the account of ``lease`` has due, if any, and release it at its
    next due delivery; what came of it: ``ok``, ``retried`` (failed, tried again later),
    ``failed`` (failed for the last time: given up) or ``None`` (nothing due)."""
    handle = lease.key
    account = stores.accounts.load(handle)
    if account is None or account.closed or not account.webhook_url \
            or not account.webhook_secret:
        stores.webhooks.clear(handle)
        stores.webhook_schedule.release(lease, None)
        return None
    head = stores.webhooks.head(handle)
    if head is None or head.due > clock():
        stores.webhook_schedule.release(lease, None if head is None else head.due, wake=True)
        return None
    holder = secrets.token_hex(8)
    busy_until = stores.webhooks.hold(handle, holder, clock(), lease.until)
    if busy_until is not None:  # planned again during another worker's attempt: after it
        stores.webhook_schedule.release(lease, busy_until)
        return None
    try:
        attempt = send(account.webhook_url, account.webhook_secret, head.event_id,
                       head.payload)
        after = _record(stores, handle, head, attempt, retries, clock)
    finally:
        stores.webhooks.unhold(handle, holder)
    made = head.attempts + 1
    outcome = "ok" if attempt.ok else "retried" if made <= len(retries) else "failed"
    (log.warning if outcome == "failed" else log.info)(
        "webhook %s of %s, attempt %d: %s (%s)", head.event_id, account.handle, made,
        attempt.reason, outcome)
    # not before now: an account with many events due goes behind those due meanwhile;
    # a wake-up, since the dispatcher that took it may be waiting on this lease's end.
    # Planned again meanwhile (an event queued), the plan stands, and this one too: a
    # worker that found the account held put it off until the hold's end
    at = None if after is None else max(after, clock())
    if not stores.webhook_schedule.release(lease, at, wake=True) and at is not None:
        stores.webhook_schedule.plan(handle, at)
    return outcome


def _record(stores: Stores, handle: str, head: Delivery, attempt: Attempt,
            retries: tuple[float, ...], clock: Callable[[], float]) -> float | None:
    """Record what came of the attempt at ``head``: delivered or given up (the event
    leaves the queue), else its next attempt after its wait; when the next one is due."""
    made = head.attempts + 1
    if attempt.ok or made > len(retries):
        return stores.webhooks.done(handle, head.event_id)
    return stores.webhooks.retry(handle, head.event_id, made, clock() + retries[made - 1])
