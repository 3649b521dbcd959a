"""Resolvable designs: round robins in which every pair of players meets exactly once
(pure: no I/O).

A round robin of ``n`` players at tables of ``k`` in which each pair meets once is a
*resolvable 2-(n, k, 1) design*: its tables (blocks) fall into rounds (parallel classes)
that each seat everyone once, ``(n - 1) / (k - 1)`` of them. Such a design needs
``n ≡ k (mod k(k - 1))``; these are the ones built here, players numbered ``0 … n - 1``:

* **Two seats**, every even ``n``: the circle method (a 1-factorization of the complete
  graph).
* **Affine geometry** AG(d, q), ``n = q^d`` at ``q``-seat tables (q a prime power up to
  8): its lines, one round per direction. 9 and 27 at 3 seats (the affine plane and
  space over GF(3)), 16 and 64 at 4, 25 at 5, 49 at 7, 64 at 8.
* **Cyclic developments** for the Kirkman triple systems (3 seats) of 15, 21, 33, 39,
  45, 51, 57 and 63 players and the resolvable designs of 28, 40 and 52 players at 4
  seats (:data:`_KIRKMAN`, :data:`_FOURS`). A handful of base tables on the points
  ``Z_g × levels`` (plus a fixed point ∞) is shifted through ``Z_g``: each shift is a
  round, and the base tables' differences are chosen so that every pair turns up in
  exactly one shift. The base tables are a computer search's (an exact cover of the
  differences); ``tests/tournaments/test_designs.py`` checks every design built here.

Every ``n ≡ 3 (mod 6)`` up to 64 has its Kirkman system and every ``n ≡ 4 (mod 12)`` its
4-seat design. At 5 to 8 seats the other sizes that pass the divisibility test are 36 at
6 seats (no such design: there is no affine plane of order 6) and 45 at 5 seats (not
known to exist); those, like every size that fails the test, are left to the search of
:mod:`.covering`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

__all__ = ["Design", "resolvable"]

#: A design: its rounds, each a list of tables of player numbers.
Design = list[list[tuple[int, ...]]]

#: The irreducible polynomials of the two fields of prime-power order the tables need
#: (coefficients, lowest first, of the monic polynomial over GF(2)).
_MODULUS = {4: (1, 1, 1), 8: (1, 1, 0, 1)}

#: Kirkman triple systems by their order: ``(g, base, invariant)`` on ``Z_g × {a, b}``
#: plus ∞ (no ``invariant``: ``g`` rounds, the base round with the table ``{∞, 0a, 0b}``)
#: or on ``Z_g × {a, b, c}`` (``g`` shifted rounds and one round per ``(s, t)`` in
#: ``invariant``: the tables ``{xa, (x + s)b, (x + t)c}`` for every ``x``).
_KIRKMAN: dict[int, tuple[int, tuple[str, ...], tuple[tuple[int, int], ...]]] = {
    15: (7, ("1a 6a 5b", "1b 2b 4b", "2a 5a 3b", "3a 4a 6b"), ()),
    21: (7, ("0a 2a 6b", "0b 2b 1c", "0c 4c 6c", "1a 4a 3c", "1b 5b 5c", "3a 3b 4b",
             "5a 6a 2c"), ((2, 5), (3, 1), (5, 0))),
    33: (11, ("0a 3b 10b", "0b 2c 10c", "1a 10a 6b", "1b 1c 8c", "2a 7a 9c", "2b 0c 6c",
              "3a 4b 9b", "4a 5a 8a", "5b 7b 8b", "6a 5c 7c", "9a 3c 4c"),
         ((0, 8), (2, 3), (4, 9), (8, 0), (9, 4))),
    39: (19, ("1a 10b 14b", "2a 12a 15a", "2b 3b 15b", "3a 8a 9b", "4a 5a 16a", "6a 1b 18b",
              "7a 4b 12b", "9a 11a 13b", "10a 14a 6b", "13a 11b 16b", "17a 5b 8b",
              "18a 7b 17b"), ()),
    45: (15, ("0a 9a 13a", "10b 1c 14c", "11a 14b 7c", "12a 3c 11c", "1a 4a 12b", "1b 4b 9b",
              "2a 2b 3b", "2c 6c 12c", "3a 0b 0c", "5a 10a 8c", "6a 14a 5b", "6b 4c 5c",
              "7a 8a 9c", "7b 11b 13b", "8b 10c 13c"),
         ((2, 9), (4, 7), (5, 0), (7, 8), (9, 5), (10, 4), (13, 10))),
    51: (25, ("1a 4b 23b", "2a 16a 6b", "3a 9a 14b", "3b 7b 8b", "4a 16b 24b", "5a 14a 15a",
              "6a 5b 19b", "7a 11a 17b", "8a 1b 10b", "9b 12b 22b", "10a 22a 18b",
              "12a 20a 21b", "13a 2b 20b", "17a 24a 15b", "18a 21a 23a", "19a 11b 13b"), ()),
    57: (19, ("0a 18a 7c", "11c 12c 15c", "15a 17a 1c", "16a 8c 18c", "1a 11a 11b",
              "1b 17b 0c", "2a 6a 7b", "2b 14b 9c", "3a 10a 18b", "3b 8b 4c", "3c 5c 17c",
              "4a 12a 2c", "4b 10c 16c", "5a 8a 0b", "5b 15b 16b", "6b 10b 12b", "7a 13a 13c",
              "9a 14a 13b", "9b 6c 14c"),
         ((2, 13), (3, 16), (6, 10), (7, 15), (9, 18), (12, 12), (13, 4), (16, 14), (17, 1))),
    63: (31, ("1a 5a 6a", "2a 12a 5b", "3a 9a 16a", "4a 3b 8b", "4b 6b 18b", "7a 22a 12b",
              "7b 14b 30b", "8a 17b 26b", "10a 18a 20b", "11a 23a 25a", "13a 19b 25b",
              "14a 2b 29b", "15a 22b 23b", "17a 28a 13b", "19a 1b 11b", "20a 29a 9b",
              "21a 24a 15b", "26a 21b 24b", "27a 10b 28b", "30a 16b 27b"), ()),
}

#: Resolvable designs at 4 seats of ``3g + 1`` players on ``Z_g × {0, 1, 2}`` plus ∞: the
#: base round holds ``{∞, 0₀, 0₁, 0₂}`` and, for each ``(i, s, j, t)``, the table
#: ``{s_i, -s_i, t_j, -t_j}`` (so the base round is symmetric under negation).
_FOURS: dict[int, tuple[int, tuple[tuple[int, int, int, int], ...]]] = {
    28: (9, ((0, 1, 2, 3), (0, 2, 2, 1), (0, 3, 1, 4), (0, 4, 1, 1), (1, 2, 2, 4),
             (1, 3, 2, 2))),
    40: (13, ((0, 1, 2, 5), (0, 2, 1, 3), (0, 3, 2, 2), (0, 4, 1, 6), (0, 5, 1, 1),
              (0, 6, 2, 4), (1, 2, 2, 3), (1, 4, 2, 6), (1, 5, 2, 1))),
    52: (17, ((0, 1, 2, 4), (0, 2, 1, 3), (0, 3, 2, 5), (0, 4, 1, 6), (0, 5, 1, 8),
              (0, 6, 2, 7), (0, 7, 1, 1), (0, 8, 2, 2), (1, 2, 2, 3), (1, 4, 2, 6),
              (1, 5, 2, 8), (1, 7, 2, 1))),
}


def circle(n: int) -> Design:
    """The circle method for an even ``n``: player ``n - 1`` stays put while the others
    turn one place a round, each round pairing opposite places."""
    ring = list(range(n))
    rounds: Design = []
    for _ in range(n - 1):
        rounds.append([(ring[i], ring[n - 1 - i]) for i in range(n // 2)])
        ring = [ring[-2], *ring[:-2], ring[-1]]
    return rounds


def _field(q: int) -> tuple[list[list[int]], list[list[int]]]:
    """The addition and multiplication tables of GF(q), q a prime or 4 or 8 (elements:
    the integers whose binary digits are a polynomial's coefficients, for 4 and 8)."""
    if q not in _MODULUS:
        return ([[(a + b) % q for b in range(q)] for a in range(q)],
                [[a * b % q for b in range(q)] for a in range(q)])
    modulus = _MODULUS[q]
    degree = len(modulus) - 1
    reduce_by = sum(c << i for i, c in enumerate(modulus))

    def times(a: int, b: int) -> int:
        product = 0
        for i in range(degree):
            if b >> i & 1:
                product ^= a << i
        for i in range(2 * degree - 2, degree - 1, -1):
            if product >> i & 1:
                product ^= reduce_by << (i - degree)
        return product

    return ([[a ^ b for b in range(q)] for a in range(q)],
            [[times(a, b) for b in range(q)] for a in range(q)])


def affine(q: int, d: int) -> Design:
    """The lines of AG(d, q), one round per direction (a point is its coordinates read
    as the digits of a base-``q`` number)."""
    add, mul = _field(q)
    points = list(itertools.product(range(q), repeat=d))
    number = {p: i for i, p in enumerate(points)}
    rounds: Design = []
    for direction in points:
        if not any(direction) or direction[next(i for i, c in enumerate(direction) if c)] != 1:
            continue  # a direction is named once: its first non-zero coordinate is 1
        seen: set[int] = set()
        lines: list[tuple[int, ...]] = []
        for p in points:
            if number[p] in seen:
                continue
            line = tuple(sorted(number[tuple(add[c][mul[t][v]] for c, v in zip(p, direction,
                                                                              strict=True))]
                                for t in range(q)))
            seen.update(line)
            lines.append(line)
        rounds.append(lines)
    return rounds


def _develop(g: int, levels: int, base: Sequence[Sequence[tuple[int, int]]],
             invariant: Sequence[tuple[int, int]]) -> Design:
    """The rounds of a cyclic design: ``base`` (tables of ``(x, level)``, ``level`` -1 for
    ∞) shifted by each ``s`` in ``Z_g``, then one round per transversal in ``invariant``.
    Point ``(x, level)`` is player ``level * g + x``, ∞ is player ``levels * g``."""
    def player(x: int, level: int) -> int:
        return levels * g if level < 0 else level * g + x % g

    rounds = [[tuple(sorted(player(x + s, level) for x, level in table)) for table in base]
              for s in range(g)]
    rounds += [[(player(x, 0), player(x + a, 1), player(x + b, 2)) for x in range(g)]
               for a, b in invariant]
    return rounds


def _kirkman(n: int) -> Design:
    g, tables, invariant = _KIRKMAN[n]
    base = [[(int(p[:-1]), "abc".index(p[-1])) for p in t.split()] for t in tables]
    if not invariant:
        base.append([(0, -1), (0, 0), (0, 1)])
    return _develop(g, 3 if invariant else 2, base, invariant)


def _fours(n: int) -> Design:
    g, pairs = _FOURS[n]
    base = [[(s, i), (-s, i), (t, j), (-t, j)] for i, s, j, t in pairs]
    base.append([(0, -1), (0, 0), (0, 1), (0, 2)])
    return _develop(g, 3, base, ())


def _power(n: int, q: int) -> int | None:
    """``d`` if ``n == q ** d`` (d ≥ 1), else ``None``."""
    d, size = 1, q
    while size < n:
        d, size = d + 1, size * q
    return d if size == n else None


def resolvable(n: int, k: int) -> Design | None:
    """A resolvable 2-(n, k, 1) design, if one is built here (see the module)."""
    if n == k:
        return [[tuple(range(n))]]
    if k == 2:
        return circle(n) if n % 2 == 0 else None
    if k in (3, 4, 5, 7, 8) and (d := _power(n, k)) is not None:
        return affine(k, d)
    if k == 3 and n in _KIRKMAN:
        return _kirkman(n)
    if k == 4 and n in _FOURS:
        return _fours(n)
    return None
