"""Cards and their notation.

Cards are parsed once, at the boundary, into small integers; the engine and the
solver never look at strings. The mirror-image pair is :func:`parse_card` /
:func:`card_name` (and :func:`parse_cards` / :func:`card_names`). The notation is written
here alone: the HTTP layer documents and checks request cards with :data:`CARD_PATTERN`
(:func:`is_card_text`) and response cards with :data:`CANONICAL_CARD_PATTERN`, and refuses
a card with the message of :func:`not_a_card`, as :func:`parse_card` does.

Encoding: a natural card is ``suit * 13 + (rank - 1)`` with ranks ``1..13``
(A=1, T=10, J=11, Q=12, K=13) and suits ``0..3`` in the order ``S H D C``; a
printed joker is :data:`JOKER` (52). Several decks simply repeat the same
integers: a hand is a multiset.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import InvalidCardError

__all__ = [
    "CANONICAL_CARD_PATTERN",
    "CARD_PATTERN",
    "JOKER",
    "RANKS",
    "SUITS",
    "card_name",
    "card_names",
    "is_card_text",
    "is_joker",
    "make_card",
    "not_a_card",
    "parse_card",
    "parse_cards",
    "parse_rank",
    "rank_name",
    "rank_of",
    "suit_of",
]

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = 52

_SUIT_INPUT = {
    "S": 0,
    "H": 1,
    "D": 2,
    "C": 3,
    "♠": 0,
    "♥": 1,
    "♦": 2,
    "♣": 3,
    "♤": 0,
    "♡": 1,
    "♢": 2,
    "♧": 3,
}
_RANK_INPUT = {ch: i + 1 for i, ch in enumerate(RANKS)}
_RANK_INPUT["10"] = 10
_RANK_INPUT["1"] = 1

_NAMES = [RANKS[c % 13] + SUITS[c // 13] for c in range(52)] + ["JK"]
_BY_NAME = {name: card for card, name in enumerate(_NAMES)}

#: A card as a request may write it (docs/rules.md: rank then suit; also ``10``, lower
#: case, the suit symbols, ``JOKER``), for the API's document and its checks: every text
#: it matches :func:`parse_card` reads (which also forgives surrounding spaces).
CARD_PATTERN = r"^(?:[Jj][Oo][Kk][Ee][Rr]|[Jj][Kk]|(?:10|[2-9AaTtJjQqKk])[SHDCshdc♠♥♦♣♤♡♢♧])$"
#: A card as the service writes it: always :func:`card_name`'s two characters.
CANONICAL_CARD_PATTERN = r"^(?:[2-9TJQKA][SHDC]|JK)$"
_CARD_TEXT = re.compile(CARD_PATTERN)


def make_card(rank: int, suit: int) -> int:
    """The integer of the natural card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return suit * 13 + rank - 1


def rank_of(card: int) -> int:
    """Rank 1..13 of a natural card (undefined for the joker)."""
    return card % 13 + 1


def suit_of(card: int) -> int:
    """Suit 0..3 of a natural card (undefined for the joker)."""
    return card // 13


def is_joker(card: int) -> bool:
    return card == JOKER


def card_name(card: int) -> str:
    """Canonical two-character notation: ``7H``, ``TS``, ``JK``."""
    return _NAMES[card]


def card_names(cards: Iterable[int]) -> list[str]:
    return [_NAMES[c] for c in cards]


def parse_rank(text: object) -> int:
    """Parse a rank character (``A 2 … 9 T J Q K``, also ``10``, lower case) to 1..13."""
    if not isinstance(text, str):
        raise InvalidCardError(f"a rank must be a string like '7' or 'T', not {text!r}")
    key = text.strip().upper()
    if key == "1" or key not in _RANK_INPUT:
        raise InvalidCardError(f"{text!r} is not a rank: use one of A 2 3 4 5 6 7 8 9 T J Q K")
    return _RANK_INPUT[key]


def is_card_text(text: str) -> bool:
    """Whether ``text`` is a card as a request may write it (:data:`CARD_PATTERN`, all of
    it: ``fullmatch``, since Python's ``$`` would also let a trailing newline through)."""
    return _CARD_TEXT.fullmatch(text) is not None


def not_a_card(text: object) -> str:
    """Why ``text`` is refused as a card: the message of the :class:`InvalidCardError` that
    refuses it (raised with ``text=text``, by :func:`parse_card` and the HTTP layer)."""
    return f"{text!r} is not a card: write rank then suit, e.g. '7H', 'TS', '10♣', or 'JK'"


def parse_card(text: object) -> int:
    """Parse one card. Accepts ``10`` for ``T``, lower case and the suit symbols ♠♥♦♣.

    A bad card raises :class:`InvalidCardError` naming the text.
    """
    card = _BY_NAME.get(text) if type(text) is str else None
    if card is not None:  # the canonical spelling: what clients send back to us
        return card
    if not isinstance(text, str):
        raise InvalidCardError(f"a card must be a string like '7H', not {text!r}")
    key = text.strip().upper()
    if key in ("JK", "JOKER"):
        return JOKER
    if 2 <= len(key) <= 3:
        rank_text, suit_text = key[:-1], key[-1]
        rank = _RANK_INPUT.get(rank_text)
        suit = _SUIT_INPUT.get(suit_text)
        if rank is not None and suit is not None and rank_text != "1":
            return make_card(rank, suit)
    raise InvalidCardError(not_a_card(text), text=text)


def rank_name(rank: int) -> str:
    """Rank character of a rank 1..13: the mirror of :func:`parse_rank`."""
    return RANKS[rank - 1]


def parse_cards(texts: Iterable[object]) -> list[int]:
    return [parse_card(t) for t in texts]
