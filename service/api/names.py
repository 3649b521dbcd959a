"""Player names: what a name may hold, as one documented pattern that is also the check.

Every client shows names to other players, so a name must not be able to rearrange or
hide text around it: control characters (Unicode category Cc), format characters (Cf:
the bidirectional embeddings and overrides U+202A–U+202E and isolates U+2066–U+2069,
zero-width characters, soft hyphens…) and the line and paragraph separators (Zl, Zp)
are refused anywhere in a name, and whitespace at either end. Everything else (letters
of every script, emoji, inner spaces) is welcome.

The pattern is written as code point ranges (JSON Schema patterns have no Unicode
category classes); a test checks them against ``unicodedata`` for every code point.
Surrogates need no range: a JSON body cannot carry a lone one past the parser.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from marshmallow import ValidationError, fields, validate

__all__ = ["NAME_PATTERN", "PlayerName", "check_name"]

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


RULE = ("1 to 40 characters, no control or format characters (such as bidirectional "
        "overrides), no whitespace at either end.")


def PlayerName(description: str = "The player's name.", **kw: Any) -> fields.String:
    """A player's name in a request (game creation and seat claims)."""
    return fields.String(
        validate=[validate.Length(1, MAX_LENGTH), check_name],
        metadata={"description": f"{description} {RULE}", "pattern": NAME_PATTERN},
        **kw,
    )
