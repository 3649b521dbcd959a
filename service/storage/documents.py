"""Documents: the typed values the stores keep as JSON, and the one codec each has.

A challenge, a tournament, a rating (and its history, its computation), a seek and a
match are each a frozen dataclass of its store's module, with ``to_json`` (the JSON
object the store writes) and ``from_json`` (the value read back). Why one codec per
document, in the storage: the stores write and read the bytes, and every service-layer
function gets and returns the typed value, so a field is named once and a change is a
new value (``dataclasses.replace``), never an edit of a dict someone else holds.

Why the JSON stays what it was: documents written before these types existed are still
stored (a tournament is kept 30 days, a challenge a week), and a compare-and-set
compares bytes. So ``to_json`` writes the keys in the order the code before it wrote
them, ``from_json`` accepts what that code wrote (a field added since is read with its
default), and numbers come back as they went in (an ``int`` stays an ``int``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

import orjson

__all__ = ["Document", "Parse", "change_by_swap", "dumps", "loads"]


class Document(Protocol):
    """A value a store keeps as a JSON object."""

    def to_json(self) -> dict[str, object]:
        """The JSON object it is kept as."""
        ...


D = TypeVar("D", bound=Document)
#: How a document is read back from the JSON object it was kept as (its ``from_json``).
Parse = Callable[[Mapping[str, Any]], D]


def dumps(document: Document) -> bytes:
    """The bytes a store keeps of ``document``."""
    return orjson.dumps(document.to_json())


def loads(parse: Parse[D], raw: bytes | str) -> D:
    """The document a store kept as ``raw``."""
    return parse(orjson.loads(raw))


def change_by_swap(parse: Parse[D], read: Callable[[], bytes | None],
                   swap: Callable[[bytes, bytes], bool],
                   step: Callable[[D], D | None]) -> D | None:
    """A document's change by compare-and-set, as every backend makes it: ``read`` its
    bytes, run ``step`` on the document they hold, and ``swap`` in the new bytes if the
    stored ones are still those read (``False``: another change landed meanwhile, so read
    again and step from there). The document as stored after (``None``: there is none;
    the one read when ``step`` leaves it). Why shared: the memory stores must retry
    exactly as the Redis ones do, so that a step disturbed by a second change, or one
    that counts its runs, is seen doing so in the fast tests too."""
    while True:
        raw = read()
        if raw is None:
            return None
        changed = step(loads(parse, raw))
        if changed is None:
            return loads(parse, raw)
        written = dumps(changed)
        if swap(raw, written):
            return loads(parse, written)  # as stored
