"""Who a request's bearer is: the parser lives in :mod:`service.wire.bearer`, shared with
the push tier, so both count a bearer's limits under the same name."""

from __future__ import annotations

from service.wire.bearer import identity, parse_bearer

__all__ = ["identity", "parse_bearer"]
