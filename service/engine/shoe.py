"""The shoe and every random choice of a game, derived from the seed alone.

Why not :mod:`random`: its algorithms are an implementation detail of CPython,
and the rules (docs/rules.md) promise that anyone can replay and verify a finished game from
its revealed seed. So the randomness is spelled out here and is portable:

* A *stream* for a label (``"first-dealer"``, ``"deal:3"``, ``"reshuffle:3:1"``)
  is the concatenation of ``SHA-256(f"{seed}:{label}:{counter}")`` for
  ``counter = 0, 1, 2, …``, read as big-endian unsigned 64-bit words.
* ``below(n)`` takes words until one is ``< 2**64 - 2**64 % n`` (rejection
  sampling, so no bias) and returns it modulo ``n``.
* ``shuffle(cards)`` is Fisher–Yates: for ``i`` from ``len - 1`` down to ``1``,
  swap ``cards[i]`` with ``cards[below(i + 1)]``.

Derivation for a game with seed ``s`` and ``n`` players:

* first dealer = ``below(n)`` of the stream ``"first-dealer"``;
* round ``r`` (1-based) shuffles the ordered shoe (each deck's cards 0…51 in
  order, deck after deck, then the printed jokers) with the stream ``"deal:r"``;
  the shuffled list is dealt from its start, one card at a time, beginning with
  the player left of the dealer and going clockwise; the next card is turned up
  to start the discard pile; the rest, in order, is the stock (its first card is
  drawn first);
* the ``k``-th reshuffle (1-based) of round ``r`` shuffles the discard pile
  minus its top, bottom card first, with the stream ``"reshuffle:r:k"``; the
  result, in order, is the new stock (its first card drawn first).

The commitment shown from the start is ``sha256_hex(seed_salt + ":" + seed)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

from service.core.cards import JOKER

__all__ = ["RandomStream", "build_shoe", "commitment", "sha256_hex"]

_WORD = 1 << 64


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def commitment(seed: str, salt: str) -> str:
    """What every view shows before the end: binds the seed without revealing it."""
    return sha256_hex(f"{salt}:{seed}")


def build_shoe(decks: int, jokers: int) -> tuple[int, ...]:
    """The ordered shoe: ``decks`` standard decks then ``jokers`` printed jokers."""
    return tuple(range(52)) * decks + (JOKER,) * jokers


class RandomStream:
    """A portable random stream for one ``label`` of one seed (see the module doc)."""

    __slots__ = ("_words",)

    def __init__(self, seed: str, label: str) -> None:
        self._words = self._generate(f"{seed}:{label}:")

    @staticmethod
    def _generate(prefix: str) -> Iterator[int]:
        counter = 0
        while True:
            digest = hashlib.sha256(f"{prefix}{counter}".encode()).digest()
            for i in range(0, 32, 8):
                yield int.from_bytes(digest[i : i + 8], "big")
            counter += 1

    def below(self, n: int) -> int:
        """A uniform integer in ``0 … n-1``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _WORD - _WORD % n
        while True:
            word = next(self._words)
            if word < limit:
                return word % n

    def shuffle(self, cards: Sequence[int]) -> list[int]:
        """A Fisher–Yates shuffled copy of ``cards``."""
        out = list(cards)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out
