"""How an account is told anything: a note on its stream, and its webhook's delivery.

The notes of its games (``game_started``, ``your_turn``, ``game_finished``) come from the
games' own event logs (:mod:`.effects`), those of challenges and tournaments from
:mod:`.challenges` and :mod:`.tournaments`. A note has an id (what it is about and its
kind), so a note written twice (a retried effect) is kept once by the store
(:meth:`~service.storage.AccountStore.append`), and its webhook queued once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.storage import Stores

from .webhooks import queue_webhooks

__all__ = ["tell"]


def tell(stores: Stores, handle: str, notes: Sequence[tuple[str, Mapping[str, object]]]
         ) -> None:
    """Append ``(note id, body)`` notes to ``handle``'s stream, each once, and queue those
    its webhook is sent (:func:`.webhooks.queue_webhooks`): the one way an account is
    told anything (games' changes here, challenges in :mod:`.challenges`)."""
    if notes and stores.accounts.append(handle, notes):
        # a note already on the stream (a repeated effect) is not sent again: nothing is
        # appended, nothing queued (a batch that is partly new is queued whole: its
        # webhook events are kept once while they wait, and sent at least once)
        queue_webhooks(stores, handle, notes)
