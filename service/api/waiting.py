"""Which requests wait, and their refusal before anything else of the request runs.

The limits themselves (how many requests one client may park at once) are
:class:`service.wire.waiting.WaitSlots`, shared with the push tier: see there.
"""

from __future__ import annotations

from flask import Flask, request

from service.wire.bearer import identity
from service.wire.waiting import WaitSlots, asks_to_wait

__all__ = ["install_early_refusal", "will_wait"]


def will_wait() -> bool:
    """Whether this request parks (a long-poll, a stream, a seek that waits), from its
    route and query alone: what the views do, decided before any of them runs."""
    endpoint, args = request.endpoint, request.args
    if endpoint in ("streams.Stream", "me.MyStream"):
        return True
    if endpoint == "games.Game":
        return "wait" in args or "wait_version" in args
    if endpoint in ("events.Events", "seeks.Seeks", "seeks.OneSeek"):
        return asks_to_wait(args.get("timeout"))
    return False


def install_early_refusal(app: Flask, waits: WaitSlots) -> None:
    """Refuse a wait past its client's limit before anything else of the request runs
    (install before the rate limiter, whose hook counts in Redis)."""

    @app.before_request
    def _refuse_early() -> None:
        if will_wait():
            waits.check(request.remote_addr, identity(request.headers.get("Authorization")))
