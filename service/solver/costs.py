"""Per-card costs of a search state as one integer: a field per kind of card.

Why: the search returns, with each state's minimum cost, the minimum cost of the
state without one card of each kind (that is what makes the analysis of every
discard one search). Those costs are merged by an element-wise minimum at every
option of every state; packed into one integer, the minimum is a few integer
operations (SWAR) instead of a loop.

Each field is ``width`` bits. A finite cost stays below ``2 ** (width - 2)``, which
stands for "no such card" (infinite); the top bit of each field is the guard the
subtraction in ``minimum`` borrows from.
"""

from __future__ import annotations

__all__ = ["CostVector"]


class CostVector:
    """The packing for one search: ``fields`` costs below ``limit`` each."""

    def __init__(self, fields: int, limit: int) -> None:
        self.width = width = (limit + 1).bit_length() + 2
        self.mask = (1 << width) - 1
        self.inf = 1 << (width - 2)
        self.ones = ((1 << width * fields) - 1) // self.mask  # a 1 in every field
        self._high = self.ones << (width - 1)
        self.all_inf = self.ones * self.inf

    def minimum(self, a: int, b: int) -> int:
        """Element-wise minimum of two vectors."""
        high = self._high
        m = ((a | high) - b) & high  # the guard survives where a >= b
        return a ^ ((a ^ b) & (m - (m >> (self.width - 1))))

    def get(self, v: int, k: int) -> int | None:
        """Field ``k``, or ``None`` when infinite."""
        value = (v >> self.width * k) & self.mask
        return None if value >= self.inf else value

    def put(self, v: int, k: int, value: int | None) -> int:
        """``v`` with field ``k`` set (``None``: infinite)."""
        value = self.inf if value is None or value >= self.inf else value
        shift = self.width * k
        return (v & ~(self.mask << shift)) | (value << shift)

    def field(self, k: int) -> int:
        """The bits of field ``k`` (to test fields for zero with ``&``)."""
        return self.mask << self.width * k
