"""Player names (``service/api/names.py``): control, format and separator characters and
whitespace at the ends are refused with a 422 naming the ``name`` field, at game creation
and at seat claims; the documented pattern is exactly that rule."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from flask.testing import FlaskClient

from service.api.names import NAME_PATTERN

from .conftest import new_table

REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}
HOSTILE = [
    "ann\u202e",  # right-to-left override
    "\u2066bob",  # left-to-right isolate
    "eve\u200b",  # zero width space
    "a\u0000b", "a\tb", "a\nb", "a\x1bb", "a\x85b",  # controls (C0, C1)
    "a\u2028b", "a\u2029b",  # line and paragraph separators
    "a\U000e0041b",  # a tag character
    " ann", "ann ", "\u3000ann", "ann\u00a0",  # whitespace at either end
]


def test_the_name_pattern_refuses_exactly_the_refused_categories_anywhere() -> None:
    name = re.compile(NAME_PATTERN)
    chars = [chr(c) for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)) != "Cs"]  # no JSON body carries a lone surrogate
    refused = {c for c in chars if unicodedata.category(c) in REFUSED_CATEGORIES}
    for char in chars:  # at both ends: refused, and whitespace too
        expected = char not in refused and not char.isspace()
        assert (name.fullmatch(f"{char}b{char}") is not None) == expected, hex(ord(char))
    for char in refused:  # inside: refused
        assert name.fullmatch(f"a{char}b") is None, hex(ord(char))
    # inside: everything else, whitespace included
    assert name.fullmatch("a" + "".join(c for c in chars if c not in refused) + "b")


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_is_422_naming_the_field_at_creation(
    client: FlaskClient, name: str
) -> None:
    r = client.post("/v1/games", json={"players": [{"name": "ann"}, {"name": name}]})
    assert r.status_code == 422 and r.json["code"] == "invalid_body"
    assert list(r.json["errors"]["players"]["1"]) == ["name"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_is_422_naming_the_field_at_a_seat_claim(
    client: FlaskClient, name: str
) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    r = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": name})
    assert r.status_code == 422 and r.json["code"] == "invalid_body"
    assert list(r.json["errors"]) == ["name"]
    assert table.view()["open_seats"] == [1]


def test_names_in_any_script_with_inner_spaces_and_emoji_are_welcome(
    client: FlaskClient,
) -> None:
    names = ["Zoë", "李雷", "أحمد", "Анна Мария", "🃏 joker", "o'brien-smith"]
    table = new_table(client, players=[{"name": n} for n in names[:5]] + [{"name": None}])
    r = client.post(f"/v1/games/{table.game_id}/seats/5/claim", json={"name": names[5]})
    assert r.status_code == 200
    assert [p["name"] for p in table.view()["players"]] == names


@pytest.mark.parametrize(("name", "says"), [
    ("\u3164", "HANGUL"),  # an invisible filler that passes the pattern
    ("ann\u3164bob", "HANGUL"),
    ("e" + "\u0301" * 39, "combining marks"),  # a stack of accents
    ("\uff41\uff4e\uff4e", "'ann'"),  # full-width look-alikes: the form to send is named
    ("ann  bob", "'ann bob'"),  # runs of spaces
    ("a\ue000b", "U+E000"),  # private use
])
def test_names_outside_the_precis_nickname_form_are_refused_saying_why(
    client: FlaskClient, name: str, says: str,
) -> None:
    r = client.post("/v1/games", json={"players": [{"name": name}, {"name": "bob"}]})
    assert r.status_code == 422, name
    assert says in str(r.json["errors"]), r.json


@pytest.mark.parametrize("name", ["Zoë", "李小龙", "Nguyễn", "🎲 dice", "O'Brien", "ann-bob",
                                  unicodedata.normalize("NFC", "a\u0308\u0301")])
def test_names_of_every_script_are_welcome(client: FlaskClient, name: str) -> None:
    r = client.post("/v1/games", json={"players": [{"name": name}, {"name": "bob"}]})
    assert r.status_code == 201, r.json
    assert r.json["seats"][0]["name"] == name
