"""Webhooks as the service sends them: where one may go (:mod:`.addresses`) and one
signed attempt (:mod:`.send`). What is sent, when and how often is the service layer's
(``service/play/webhooks.py``, ``service/play/deliveries.py``); the delivery workers run
it (``service/workers/deliveries.py``). Nothing here knows the stores."""

from .addresses import Resolver, Target, UnsafeUrlError, check_port, refusal, resolve, target
from .send import READ_MAX, USER_AGENT, Attempt, Send, post, sign

__all__ = [
    "READ_MAX",
    "USER_AGENT",
    "Attempt",
    "Resolver",
    "Send",
    "Target",
    "UnsafeUrlError",
    "check_port",
    "post",
    "refusal",
    "resolve",
    "sign",
    "target",
]
