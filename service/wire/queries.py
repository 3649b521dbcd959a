"""The parameters of a request's URL and headers as the document gives them, from their
plain text: the one parser each of Flask's views and the push tier call, so the same
query is the same value, or the same 422, whichever process answers it.
"""

from __future__ import annotations

import math
import random
import re
from typing import overload

from .problems import ApiProblem

__all__ = ["QUERY_INT_MAX", "URL_SAFE_ID", "WAIT_JITTER", "check_events_after",
           "event_cursor", "optional_wait", "query_integer", "ticket_of", "valid_game_id",
           "wait_seconds", "wait_turn"]

#: The form of game ids and stream tickets in URLs, as the document gives it.
URL_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Largest integer a query parameter takes (versions and event numbers stay far below).
QUERY_INT_MAX = 2**53
#: What a query integer and a query number of seconds look like: ASCII digits only (Python's
#: ``int`` and ``float`` also take other scripts' digits, ``inf``, ``nan`` and ``1_000``,
#: which the document's ``integer`` and ``number`` do not describe).
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
_SECONDS = re.compile(r"[0-9]{1,18}(\.[0-9]{0,18})?([eE][+-]?[0-9]{1,3})?|\.[0-9]{1,18}")
#: Long-polls opened together (a burst of clients, a reconnection storm) time out up to
#: this share of their timeout apart, so they never all come back at once.
WAIT_JITTER = 0.1


@overload
def query_integer(name: str, raw: str | None, default: int, lo: int,
                  hi: int = ...) -> int: ...


@overload
def query_integer(name: str, raw: str | None, default: None, lo: int,
                  hi: int = ...) -> int | None: ...


def query_integer(name: str, raw: str | None, default: int | None, lo: int,
                  hi: int = QUERY_INT_MAX) -> int | None:
    """The integer query parameter ``name`` (its text ``raw``) in ``[lo, hi]`` (else a
    422), or ``default`` when it is absent."""
    if raw is None:
        return default
    value = int(raw) if _INTEGER.fullmatch(raw) else None
    if value is None or not lo <= value <= hi:
        bound = f"from {lo} to {hi}"
        raise ApiProblem(
            422, "invalid_query", f"query parameter {name!r} must be an integer {bound}",
            errors={"query": {name: [f"an integer {bound}"]}},
        )
    return value


def wait_seconds(name: str, raw: str | None, most: float) -> float:
    """A wait in seconds (ASCII decimal, finite), clamped to the server's long-poll maximum
    ``most`` and spread: up to :data:`WAIT_JITTER` of it shorter, at random."""
    if raw is None:
        value = most
    elif _SECONDS.fullmatch(raw) and math.isfinite(float(raw)):  # not 1e999 either
        value = min(float(raw), most)
    else:
        raise ApiProblem(
            422, "invalid_query", f"query parameter {name!r} must be a number of seconds ≥ 0",
            errors={"query": {name: ["a number ≥ 0, in decimal digits"]}},
        )
    return value * (1 - random.uniform(0, WAIT_JITTER))


def optional_wait(raw: str | None, most: float) -> float:
    """The ``timeout`` of a request that waits only when asked (the events, a seek):
    none when absent, else :func:`wait_seconds`."""
    return 0.0 if raw is None else wait_seconds("timeout", raw, most)


def check_events_after(after: int, newest: int) -> None:
    """Refuse an event log's cursor beyond the game's ``newest`` event: no event will ever
    come after a cursor the game never gave (422 ``invalid_cursor``)."""
    if after > newest:
        raise ApiProblem(
            422, "invalid_cursor",
            f"'after' is {after} but the newest event of this game is {newest}",
            newest=newest, errors={"query": {"after": [f"at most {newest}"]}},
        )


def valid_game_id(game_id: str) -> str:
    """Ids that could never exist are refused before asking Redis (and keep keys well-formed)."""
    if not URL_SAFE_ID.fullmatch(game_id):
        raise ApiProblem(404, "unknown_game", "there is no game with this id (or it expired)")
    return game_id


def wait_turn(raw: str | None) -> bool:
    """Whether the query asks ``wait=turn`` (422 for any other value)."""
    if raw is None:
        return False
    if raw != "turn":
        raise ApiProblem(422, "invalid_query", "query parameter 'wait' must be 'turn'",
                         errors={"query": {"wait": ["one of: turn"]}})
    return True


def event_cursor(after: str | None, last_event_id: str | None) -> int:
    """A stream's cursor: ``Last-Event-ID`` (what ``EventSource`` sends when it reconnects)
    or ``?after=`` (checked even when the header wins)."""
    cursor = query_integer("after", after, 0, 0)
    if last_event_id is None:
        return cursor
    text = last_event_id
    # as documented: digits only (EventSource never sends an empty id; it leaves the header out)
    if not (text.isascii() and text.isdigit()) or len(text) > 15 or int(text) > QUERY_INT_MAX:
        raise ApiProblem(422, "invalid_query",
                         "the Last-Event-ID header must be an event's seq (an integer ≥ 0)",
                         errors={"headers": {"Last-Event-ID": ["an integer ≥ 0"]}})
    return int(text)


def ticket_of(raw: str) -> str:
    """A stream ticket of the query, in its documented form (tickets are
    ``token_urlsafe(24)``: 32 characters), else a 422 naming the parameter."""
    if not URL_SAFE_ID.fullmatch(raw):
        raise ApiProblem(422, "invalid_query", "query parameter 'ticket' must be 1 to "
                         "64 characters of A-Z, a-z, 0-9, '_' and '-'",
                         errors={"query": {"ticket": ["1–64 URL-safe characters"]}})
    return raw
