"""The cursor of a listing paged newest first by ``(when, name)``: an account's games
over (:mod:`.mygames`) and its mistakes (:mod:`.mistakes`).

Why opaque: a client passes back what it was given and reads nothing in it, so the
order's key can change without a client noticing. Why one codec for both: the same
``[when, name]`` pair, the same refusal (:class:`InvalidCursorError`) of a cursor no
listing gave.
"""

from __future__ import annotations

import base64
import binascii
from typing import TypeVar

import orjson

from .errors import InvalidCursorError

__all__ = ["decode_cursor", "encode_cursor"]

#: How the listing's ``when`` is read back: its own number type.
When = TypeVar("When", int, float)


def encode_cursor(when: float, name: str) -> str:
    """The cursor past the entry at ``(when, name)``."""
    return base64.urlsafe_b64encode(orjson.dumps([when, name])).decode()


def decode_cursor(cursor: str, when: type[When]) -> tuple[When, str]:
    """The ``(when, name)`` of a cursor :func:`encode_cursor` gave, ``when`` read as its
    listing's type; :class:`InvalidCursorError` for any other text."""
    try:
        at, name = orjson.loads(base64.urlsafe_b64decode(cursor.encode()))
        return when(at), str(name)
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
        raise InvalidCursorError("this cursor is not one this listing gave") from None
