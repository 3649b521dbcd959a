"""Webhooks as the service sends them: where one may go (:mod:`.addresses`), what one
carries (:mod:`.events`) and one signed attempt (:mod:`.send`). When and how often is
the service layer's (``service/play/webhooks.py``, ``service/play/deliveries.py``); the
delivery workers run it (``service/workers/deliveries.py``). Nothing here knows the
stores. ``python -m service.webhooks.relay`` (:mod:`.relay`) sends an account's notes to
a developer's local receiver the same way."""

from .addresses import Resolver, Target, UnsafeUrlError, check_port, refusal, resolve, target
from .events import WEBHOOK_TYPES, payload
from .send import READ_MAX, SECRET_PREFIX, USER_AGENT, Attempt, Send, new_secret, post, sign

__all__ = [
    "READ_MAX",
    "SECRET_PREFIX",
    "USER_AGENT",
    "WEBHOOK_TYPES",
    "Attempt",
    "Resolver",
    "Send",
    "Target",
    "UnsafeUrlError",
    "check_port",
    "new_secret",
    "payload",
    "post",
    "refusal",
    "resolve",
    "sign",
    "target",
]
