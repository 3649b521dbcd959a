"""What a webhook event is: which of an account's notes are sent, and the JSON body that
carries one.

Kept here, below the service layer, because two senders build it: the service's delivery
queue (``service/play/webhooks.py``) and the developer's relay (:mod:`.relay`), which
must POST exactly what the service would.
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from service.core.instants import instant

__all__ = ["WEBHOOK_TYPES", "payload"]

#: The notes an account's webhook is sent: what a player away from the table needs to
#: hear (the others stay on the account stream).
WEBHOOK_TYPES = frozenset({"your_turn", "challenge", "game_finished"})


def payload(handle: str, note: Mapping[str, object], now: float) -> str:
    """The JSON POSTed for ``handle``'s ``note``, in the shape Standard Webhooks suggests:
    the note's ``type``, when it was queued, and the note itself as ``data`` (as the
    account stream carries it, without its stream number ``seq``, with the account's
    handle)."""
    data = {key: value for key, value in note.items() if key != "seq"} | {"account": handle}
    return orjson.dumps({"type": note["type"], "timestamp": instant(now),
                         "data": data}).decode()
