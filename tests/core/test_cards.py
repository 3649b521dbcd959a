"""The card notation is written once (``service/core/cards.py``): the parser, the names the
service writes, and the patterns the HTTP layer documents and checks request cards with
all come from there, so a card the API lets through is one the engine reads."""

from __future__ import annotations

import ast
import re
from itertools import product
from pathlib import Path

import pytest

import service
from service.api.web import check_action_cards
from service.core.cards import (
    CANONICAL_CARD_PATTERN,
    JOKER,
    card_name,
    is_card_text,
    parse_card,
)
from service.core.errors import InvalidCardError

SERVICE = Path(service.__file__).parent
HOME = SERVICE / "core" / "cards.py"

RANK_SPELLINGS = {"A": "Aa", "T": ["T", "t", "10"], **{r: r for r in "23456789"},
                  "J": "Jj", "Q": "Qq", "K": "Kk"}
SUIT_SPELLINGS = {"S": "Ss♠♤", "H": "Hh♥♡", "D": "Dd♦♢", "C": "Cc♣♧"}


def test_every_name_the_service_writes_is_canonical_and_reads_back() -> None:
    for card in range(JOKER + 1):
        name = card_name(card)
        assert re.fullmatch(CANONICAL_CARD_PATTERN, name) and is_card_text(name)
        assert parse_card(name) == card


def test_every_spelling_a_request_may_use_is_read_as_its_card() -> None:
    for (rank, ranks), (suit, suits) in product(RANK_SPELLINGS.items(),
                                                SUIT_SPELLINGS.items()):
        for text in (r + s for r, s in product(ranks, suits)):
            assert is_card_text(text), text
            assert card_name(parse_card(text)) == rank + suit
    for text in ("JK", "jk", "Jk", "JOKER", "joker", "Joker"):
        assert is_card_text(text) and parse_card(text) == JOKER


@pytest.mark.parametrize("text", ["7X", "1S", "11H", "7H\n", " 7H", "7", "", "JKR", "10"])
def test_what_is_not_card_text_is_refused_at_the_boundary(text: str) -> None:
    assert not is_card_text(text)


def test_the_http_layer_refuses_a_card_with_the_parsers_own_error() -> None:
    with pytest.raises(InvalidCardError) as parsed:
        parse_card("7X")
    with pytest.raises(InvalidCardError) as checked:
        check_action_cards({"type": "discard", "card": "7X"})
    assert (checked.value.message, checked.value.details) == (
        parsed.value.message, parsed.value.details)


def test_no_other_module_of_the_service_spells_out_the_ranks_or_the_suits() -> None:
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path == HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and re.search(r"SHDC|TJQK|2-9", node.value)):
                found.append(f"{path.relative_to(SERVICE)}:{node.lineno}")
    assert found == []
