"""``rules_from_json``: the remembered ``resolve_rules`` for parsed JSON tells apart what
``resolve_rules`` tells apart, and never remembers a refusal."""

from __future__ import annotations

import pytest

from service.engine.errors import InvalidRulesError
from service.engine.rules import resolve_rules
from service.engine.serialize import rules_from_json


def test_equal_specs_give_the_same_resolved_rules() -> None:
    spec = {"preset": "bga", "aces": "wrap", "card_values": {"A": 15}}
    first = rules_from_json(spec)
    assert first == resolve_rules(spec)
    assert rules_from_json({"preset": "bga", "aces": "wrap", "card_values": {"A": 15}}) is first
    assert rules_from_json(None) == resolve_rules(None)


def test_true_and_one_are_different_specs() -> None:
    assert rules_from_json({"lay_off": True}).lay_off is True
    for _ in range(2):  # the valid spec above is remembered; this one is refused each time
        with pytest.raises(InvalidRulesError):
            rules_from_json({"lay_off": 1})


def test_an_invalid_spec_is_refused_every_time() -> None:
    for _ in range(3):
        with pytest.raises(InvalidRulesError):
            rules_from_json({"preset": "classic", "decks": 2.5})
    assert rules_from_json({"preset": "classic", "decks": 2}).decks == 2
