"""An instant in a query (``since``, ``until``): RFC 3339 read exactly, as Unix
milliseconds, for the listings that filter by when a game ended (exports, mistakes)."""

from __future__ import annotations

import re
from datetime import date

from flask import request

from .problems import ApiProblem

__all__ = ["INSTANT", "instant_ms"]

#: RFC 3339's date-time: date, ``T``, time with any fraction of a second, and a zone.
_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d+))?"
                      r"(?:[Zz]|([+-])(\d\d):(\d\d))")
#: Days of 400 Gregorian years: the calendar repeats after them (year 0000 is RFC 3339's).
_400_YEARS = 146_097
_EPOCH_DAY = date(1970, 1, 1).toordinal()
#: The schema of ``since`` and ``until`` (held to: a longer one is refused).
_INSTANT_MAX = 40
INSTANT = {"type": "string", "format": "date-time", "maxLength": _INSTANT_MAX}


def instant_ms(name: str) -> int | None:
    """An RFC 3339 date-time as Unix milliseconds, rounded up: a game's end is a whole
    millisecond, so ``end >= since`` and ``end < until`` hold for the instant given
    exactly when they hold for it rounded up. Any date-time the RFC allows is taken (a
    fraction of any length, a leap second, year 0000), so a valid one is never refused."""
    raw = request.args.get(name)
    if raw is None:
        return None
    match = _RFC3339.fullmatch(raw) if len(raw) <= _INSTANT_MAX else None
    try:
        if match is None:
            raise ValueError(raw)
        year, month, day, hour, minute, second = (int(match[i]) for i in range(1, 7))
        fraction, sign, zone_hours, zone_minutes = match[7] or "", match[8], match[9], match[10]
        day_number = date(year + 400, month, day).toordinal() - _400_YEARS - _EPOCH_DAY
        offset = 0 if sign is None else (int(zone_hours) * 60 + int(zone_minutes)) * (
            1 if sign == "+" else -1)
        if hour > 23 or minute > 59 or second > 60 or abs(offset) >= 24 * 60:
            raise ValueError(raw)
    except ValueError:
        what = "an RFC 3339 date-time with its zone, like 2026-01-01T12:00:00Z"
        raise ApiProblem(422, "invalid_query", f"query parameter {name!r} must be {what}",
                         errors={"query": {name: [what]}}) from None
    seconds = day_number * 86_400 + hour * 3600 + (minute - offset) * 60 + second
    scale: int = 10 ** len(fraction)
    return seconds * 1000 + -(-int(fraction or 0) * 1000 // scale)
