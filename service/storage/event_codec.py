"""The stored form of an event: small, and turned back into exactly the event it was.

Why: the event log is most of what a finished game keeps in Redis (a stream entry per
event, hundreds per game). The engine's events are in contract notation, ready to
serve: ``{"seat": 0, "by": "player", "source": "stock"}`` plus ``{"0": {"card": "7H"}}``
privately, about 85 bytes of JSON for a draw. Stored here instead as positional lists
under a small type number, with cards as their integers (0..52, :mod:`service.core.cards`)
and the actor as its index::

    [41, 0, [0, 0, "stock"], [[0, [19]]]]    event 41, seat 0's draw from the stock ("7H" is 19)

the same draw takes 35 bytes. The ``seq`` stays in the stored bytes (also the stream
entry's id) so that an entry read on its own is a whole event.

Exactness comes first: :func:`encode` checks that :func:`decode` of its output gives
the event back with the same fields in the same order (so the JSON served is byte for
byte what the engine made), and otherwise stores the event whole, tagged as such. An
event type or field this table does not know (a newer engine) is therefore stored
whole, never lost or changed. Compact events are JSON lists, whole ones JSON objects;
:func:`decode` also reads the first stored form (``[seq, type, public, private]``), so
games saved before this form keep being served.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from service.core.cards import card_name
from service.engine import Event
from service.engine.seats import ACTORS

__all__ = ["COMPACT_TYPES", "decode", "encode"]

_CARDS = {card_name(c): c for c in range(53)}

# A field's kind says how its value is stored: "v" as it is, "c" a card (or null),
# "cs" a list of cards, "ms" a list of melds (lists of cards), "a" who made a move (its
# index in ACTORS: 0 the player, 1 the service), or a nested template.
_LAYOFF = (("meld", "v"), ("cards", "cs"))
_RESULT = (("seat", "v"), ("melds", "ms"), ("layoffs", [_LAYOFF]), ("deadwood", "cs"),
           ("score", "v"))

#: type -> (type number, public template, private template); a template lists the fields
#: in the engine's order, and a stored body holds the values of a prefix of them.
_TYPES: dict[str, tuple[int, tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]] = {
    "draw": (0, (("seat", "v"), ("by", "a"), ("source", "v"), ("card", "c")),
             (("card", "c"),)),
    "discard": (1, (("seat", "v"), ("by", "a"), ("card", "c")), ()),
    "round_started": (2, (("round", "v"), ("hand_size", "v"), ("wild_rank", "v"),
                          ("dealer", "v"), ("current_seat", "v"), ("discard_top", "c"),
                          ("stock_count", "v"), ("number", "v")), (("hand", "cs"),)),
    "went_out": (3, (("seat", "v"), ("by", "a"), ("discard", "c"), ("melds", "ms")), ()),
    "laid_down": (4, (("seat", "v"), ("melds", "ms"), ("layoffs", [_LAYOFF])), ()),
    "round_ended": (5, (("number", "v"), ("wild_rank", "v"), ("went_out", "v"),
                        ("reason", "v"), ("results", [_RESULT])), ()),
    "game_finished": (6, (("winners", "v"), ("totals", "v"), ("seed", "v"),
                          ("seed_salt", "v"), ("reason", "v")), ()),
    "reshuffled": (7, (("stock_count", "v"), ("discard_top", "c")), ()),
    "seat_claimed": (8, (("seat", "v"), ("name", "v")), ()),
}
#: The event types stored compact (any other is stored whole).
COMPACT_TYPES = frozenset(_TYPES)
_BY_NUMBER = {number: (name, pub, priv) for name, (number, pub, priv) in _TYPES.items()}


class _NotCompact(Exception):
    """A value does not fit its template: the event is stored whole."""


def _pack(kind: Any, value: Any) -> Any:
    if kind == "v":
        return value
    if kind == "c":
        return None if value is None else _CARDS[value]
    if kind == "cs":
        return [_CARDS[c] for c in value]
    if kind == "ms":
        return [[_CARDS[c] for c in meld] for meld in value]
    if kind == "a":
        return ACTORS.index(value)
    if isinstance(kind, list):  # a list of objects of one template
        return [_pack_obj(kind[0], item) for item in value]
    raise _NotCompact(kind)


def _unpack(kind: Any, value: Any) -> Any:
    if kind == "v":
        return value
    if kind == "c":
        return None if value is None else card_name(value)
    if kind == "cs":
        return [card_name(c) for c in value]
    if kind == "ms":
        return [[card_name(c) for c in meld] for meld in value]
    if kind == "a":
        return ACTORS[value]
    return [_unpack_obj(kind[0], item) for item in value]


def _pack_obj(template: tuple[tuple[str, Any], ...], obj: Mapping[str, Any]) -> list[Any]:
    names = [name for name, _ in template[: len(obj)]]
    if list(obj) != names:
        raise _NotCompact(list(obj))
    return [_pack(kind, obj[name]) for name, kind in template[: len(obj)]]


def _unpack_obj(template: tuple[tuple[str, Any], ...], values: list[Any]) -> dict[str, Any]:
    return {name: _unpack(kind, v) for (name, kind), v in zip(template, values, strict=False)}


def _whole(event: Event) -> bytes:
    return orjson.dumps({"q": event.seq, "t": event.type, "p": event.public,
                         "s": event.private},
                        option=orjson.OPT_NON_STR_KEYS)


def _same(a: Event, b: Event) -> bool:
    """Equal with the fields in the same order (the JSON served depends on the order)."""
    def body(e: Event) -> bytes:
        return orjson.dumps([e.type, e.public, list(e.private.items())])
    return a.seq == b.seq and body(a) == body(b)


def encode(event: Event) -> bytes:
    """The stored bytes of ``event``."""
    spec = _TYPES.get(event.type)
    if spec is None:
        return _whole(event)
    number, pub, priv = spec
    try:
        packed: list[Any] = [event.seq, number, _pack_obj(pub, event.public)]
        if event.private:
            packed.append([[seat, _pack_obj(priv, body)] for seat, body in event.private.items()])
    except (_NotCompact, KeyError, TypeError, ValueError):
        return _whole(event)
    blob = orjson.dumps(packed)
    if not _same(decode(blob), event):
        return _whole(event)
    return blob


def decode(blob: bytes) -> Event:
    """The event stored as ``blob`` by :func:`encode`."""
    data = orjson.loads(blob)
    if isinstance(data, list) and len(data) == 4 and isinstance(data[1], str):
        # the first stored form, [seq, type, public, private], of games saved before
        seq, type_, public, private = data
        return _renamed(Event(seq, type_, public, {int(k): v for k, v in private.items()}))
    if isinstance(data, dict):
        return _renamed(Event(data["q"], data["t"], data["p"],
                              {int(k): v for k, v in data["s"].items()}))
    name, pub, priv = _BY_NUMBER[data[1]]
    private = {} if len(data) < 4 else {
        int(seat): _unpack_obj(priv, body) for seat, body in data[3]}
    return _renamed(Event(data[0], name, _unpack_obj(pub, data[2]), private))


def _renamed(event: Event) -> Event:
    """A ``round_started`` stored before it carried ``number`` (its ``round`` renamed, the
    old name still sent) gets it, so every served event has the fields the document says."""
    if event.type != "round_started" or "number" in event.public:
        return event
    return Event(event.seq, event.type, {**event.public, "number": event.public["round"]},
                 event.private)
