"""Player names: what a name may hold, as one documented pattern that is also the check.

Every client shows names to other players, so a name must not be able to rearrange,
hide or impersonate text around it. Two layers:

* The pattern (also the OpenAPI document's): control characters (Unicode category Cc),
  format characters (Cf: the bidirectional embeddings and overrides U+202A–U+202E and
  isolates U+2066–U+2069, zero-width characters, soft hyphens…) and the line and
  paragraph separators (Zl, Zp) are refused anywhere in a name, and whitespace at
  either end. It is written as code point ranges (JSON Schema patterns have no Unicode
  category classes); a test checks them against ``unicodedata`` for every code point.
* The PRECIS Nickname profile (RFC 8266, the IETF's rule for names people show each
  other), through the well-kept ``precis-i18n`` library: a name must be in that
  profile's form already (the check never rewrites a name behind its owner's back; a
  refusal says the form to send). It refuses what no pattern of ranges says well:
  invisible fillers (U+3164 HANGUL FILLER and its kin), unassigned and private-use code
  points, old Hangul jamo, look-alike compatibility forms (``ａｎｎ`` is ``ann``), runs of
  spaces. On top of it, at most :data:`MAX_MARKS` combining marks in a row (a stack of
  dozens of accents paints over the lines around a name; no writing system needs more).

Everything else (letters of every script, emoji, inner spaces) is welcome. Surrogates
need no range: a JSON body cannot carry a lone one past the parser.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from marshmallow import ValidationError, fields, validate
from precis_i18n import get_profile

__all__ = ["NAME_PATTERN", "PlayerName", "check_name", "check_nickname"]

#: Code points of the categories Cc, Cf, Zl and Zp (Unicode 14, Python 3.11), surrogates aside.
REFUSED = (
    (0x0000, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C),
    (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
#: The whitespace that is not refused anyway (category Zs): allowed inside, not at the ends.
SPACES = (
    (0x0020, 0x0020), (0x00A0, 0x00A0), (0x1680, 0x1680), (0x2000, 0x200A), (0x202F, 0x202F),
    (0x205F, 0x205F), (0x3000, 0x3000),
)
MAX_LENGTH = 40
#: Combining marks (categories Mn, Me) allowed in a row.
MAX_MARKS = 3
_NICKNAME = get_profile("NicknameCasePreserved")


def _char(code: int) -> str:
    # a four-digit \u escape reads the same in ECMA-262, Python and Rust patterns; beyond
    # the BMP the character itself does (ECMA-262 with the "u" flag, as JSON Schema uses it)
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges)


_NO = _class(REFUSED)
_NO_END = _NO + _class(SPACES)
#: A name: no refused character anywhere, no whitespace first or last.
NAME_PATTERN = f"^[^{_NO_END}](?:[^{_NO}]*[^{_NO_END}])?$"
_NAME = re.compile(NAME_PATTERN)
_REFUSED = re.compile(f"[{_NO}]")


def check_name(name: str) -> None:
    """Refuse a name the pattern refuses, saying which character or why."""
    # fullmatch: Python's "$" would also accept a trailing newline
    if _NAME.fullmatch(name):
        return
    bad = _REFUSED.search(name)
    if bad is not None:
        char = bad.group()
        label = unicodedata.name(char, unicodedata.category(char))
        raise ValidationError(
            f"a name may not hold U+{ord(char):04X} ({label}): control, format and "
            "line-separator characters are refused"
        )
    raise ValidationError("a name may not begin or end with whitespace")


def check_nickname(name: str) -> None:
    """Refuse a name that is not in the PRECIS Nickname form, or that stacks combining
    marks (see the module's docstring)."""
    if not name:
        return  # the length check refuses it (marshmallow runs every validator)
    run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if run > MAX_MARKS:
            raise ValidationError(f"a name may not stack more than {MAX_MARKS} combining "
                                  "marks on one letter")
    try:
        canonical = _NICKNAME.enforce(name)
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start] if isinstance(exc.object, str) else "?"
        raise ValidationError(
            f"a name may not hold U+{ord(char):04X} "
            f"({unicodedata.name(char, unicodedata.category(char))}): "
            f"{exc.reason.split('/')[-1].replace('_', ' ')}") from None
    if canonical != name:
        raise ValidationError(f"send this name as {canonical!r} (its PRECIS nickname form)")


RULE = ("1 to 40 characters, no control or format characters (such as bidirectional "
        "overrides), no whitespace at either end, in the PRECIS Nickname form of RFC 8266 "
        "(no invisible fillers, no compatibility look-alikes, single inner spaces), and "
        f"no more than {MAX_MARKS} combining marks in a row.")


def PlayerName(description: str = "The player's name.", max_length: int = MAX_LENGTH,
               **kw: Any) -> fields.String:
    """A name shown to other players, in a request: a player's (game creation and seat
    claims) or a tournament's. One rule for every name (account handles are ASCII by
    their own pattern, so they meet it too)."""
    rule = RULE if max_length == MAX_LENGTH else RULE.replace("1 to 40", f"1 to {max_length}")
    return fields.String(
        validate=[validate.Length(1, max_length), check_name, check_nickname],
        metadata={"description": f"{description} {rule}", "pattern": NAME_PATTERN},
        **kw,
    )
