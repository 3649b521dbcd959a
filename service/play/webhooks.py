"""An account's webhook: registering its URL, its signing secret, and the events queued
for it.

An account may register one URL (``PATCH /v1/me``). Registering or changing it makes a
new signing secret in the Standard Webhooks form (``whsec_`` and the base64 of 32 random
bytes), shown once in that answer; ``POST /v1/me/webhook-secret`` makes another. The
secret is stored as it is (a delivery must sign with it), and shown nowhere else.
The URL is checked when it is registered (:func:`service.webhooks.target`: 422
``invalid_webhook_url`` with the reason) and again at every delivery.

Which events: ``your_turn``, ``challenge`` and ``game_finished``
(:data:`service.webhooks.WEBHOOK_TYPES`), what a player away from the table needs to
hear; the others stay on the account stream. Each is sent as
:func:`service.webhooks.payload` writes it.
:func:`queue_webhooks` is called by :func:`.notes.tell`, the one function that tells an
account anything, so every such note of an account with a URL is queued, once per note:
its event id (the ``webhook-id``) is derived from the account and the note's own id, so
it is the same at every attempt and for a note told twice. The queue is written first
and the account's visit planned after it (a plan only brings a visit forward), so a
worker that takes the account always finds what was queued; a failed plan is made
again by the account's next event. The deliveries themselves are the workers'
(:mod:`.deliveries`), never a request's.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping, Sequence

from service.storage import Account, Delivery, Stores, folded
from service.webhooks import (
    SECRET_PREFIX,
    WEBHOOK_TYPES,
    Resolver,
    UnsafeUrlError,
    check_port,
    new_secret,
    payload,
    resolve,
    target,
)

from .accounts import update_settings
from .errors import InvalidWebhookUrlError, NoWebhookError

__all__ = ["SECRET_PREFIX", "WEBHOOK_TYPES", "event_id", "new_secret", "queue_webhooks",
           "rotate_webhook_secret", "set_webhook"]

log = logging.getLogger(__name__)

def set_webhook(stores: Stores, account: Account, url: str | None, *, allow_private: bool,
                resolver: Resolver = resolve) -> tuple[Account, str | None]:
    """Register ``url`` as ``account``'s webhook (``None``: remove it and drop what waits);
    the account as changed, and the new secret when one was made (a new or changed URL;
    the same URL again keeps its secret)."""
    if url is None:
        changed = update_settings(stores, account, webhook_url=None, webhook_secret=None)
        stores.webhooks.clear(account.handle)
        return changed, None
    if url == account.webhook_url:
        return account, None
    try:
        check_port(target(url, allow_private, resolver), allow_private)
    except UnsafeUrlError as refused:
        raise InvalidWebhookUrlError(str(refused)) from None
    secret = new_secret()
    return update_settings(stores, account, webhook_url=url, webhook_secret=secret), secret


def rotate_webhook_secret(stores: Stores, account: Account) -> str:
    """A new secret for ``account``'s webhook (shown once): every delivery from now on,
    retries included, is signed with it alone."""
    if account.webhook_url is None:
        raise NoWebhookError("register a webhook_url first (PATCH /v1/me)")
    secret = new_secret()
    update_settings(stores, account, webhook_secret=secret)
    return secret


def event_id(handle: str, note_id: str) -> str:
    """The ``webhook-id`` of the note ``note_id`` of ``handle``: the same for every attempt
    and every telling of that note, different for every account and note."""
    digest = hashlib.sha256(f"{folded(handle)}\n{note_id}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


def queue_webhooks(stores: Stores, handle: str,
                   notes: Sequence[tuple[str, Mapping[str, object]]],
                   now: float | None = None) -> int:
    """Queue the notes of :data:`WEBHOOK_TYPES` for ``handle``'s webhook, if it has one,
    and plan the account's delivery now; how many were queued."""
    wanted = [(note_id, body) for note_id, body in notes if body.get("type") in WEBHOOK_TYPES]
    if not wanted:
        return 0
    account = stores.accounts.load(handle)
    if account is None or account.closed or account.webhook_url is None:
        return 0
    now = time.time() if now is None else now
    added, dropped = stores.webhooks.push(handle, [
        Delivery(event_id(handle, note_id), payload(account.handle, body, now), 0, now, now)
        for note_id, body in wanted])
    if dropped:
        log.warning("the webhook queue of %s is full: its %d oldest events dropped",
                    account.handle, dropped)
    stores.webhook_schedule.plan(folded(handle), now)  # also when nothing was new: a repair
    return added
