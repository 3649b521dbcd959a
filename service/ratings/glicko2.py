"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): one player's rating
after one rating period of results.

Why written here rather than taken from PyPI: the ``glicko2`` package (the one most
installed) keeps τ as class state and its volatility step computes with the player's
rating where the paper has the deviation (``_f`` uses ``__rating**2`` for φ²), which is
wrong for every rating but 1500; the others are unmaintained. The algorithm is the
paper's, step by step, and ``tests/ratings`` checks it against the paper's own worked
example (1500/200/0.06 at τ 0.5 → 1464.06/151.52/0.05999) through the service's path.

Pure: no state, no I/O; the parameters are a value (:class:`System`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SCALE", "Rating", "System", "update"]

#: Glicko-2's scale: rating 1500 + 173.7178 μ, deviation 173.7178 φ.
SCALE = 173.7178
#: The convergence tolerance of the volatility iteration (the paper's ε).
_EPSILON = 0.000001


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating on the Glicko scale, its deviation and its volatility."""

    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True, slots=True)
class System:
    """The parameters: the new player's rating, τ (how fast volatility may change), the
    largest deviation (a long absence brings it back to at most this), and how many
    rating periods one idle day counts for."""

    initial: Rating = Rating(1500.0, 350.0, 0.06)
    tau: float = 0.75
    max_deviation: float = 350.0
    periods_per_day: float = 0.21436

    def aged(self, player: Rating, idle_days: float) -> Rating:
        """``player`` after ``idle_days`` without a rated game: the deviation grows as the
        paper's step 6 does for a period without games, ``φ² + σ²`` a period (fractional
        periods as a fraction), up to :attr:`max_deviation`."""
        if idle_days <= 0:
            return player
        phi = player.deviation / SCALE
        grown = math.sqrt(phi * phi + idle_days * self.periods_per_day
                          * player.volatility ** 2)
        return Rating(player.rating, min(grown * SCALE, self.max_deviation), player.volatility)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the paper's Illinois iteration."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)
                / (2.0 * (phi * phi + v + ex) ** 2)) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: Sequence[tuple[Rating, float]], system: System) -> Rating:
    """``player`` after one rating period of ``results``: (opponent, score) pairs, score
    1 a win, 0.5 a draw, 0 a loss. Without results, only the deviation grows (step 6).

    The sums run in the order given; :func:`service.ratings.table.rate_table` hands the
    results over in one canonical order, so the seats' order cannot change a rating."""
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    if not results:
        return system.aged(player, 1.0 / system.periods_per_day)
    terms = []
    for opponent, score in results:
        mu_j, phi_j = (opponent.rating - 1500.0) / SCALE, opponent.deviation / SCALE
        terms.append((_g(phi_j), _expected(mu, mu_j, phi_j), score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    gained = sum(g * (s - e) for g, e, s in terms)
    sigma = _volatility(phi, player.volatility, v * gained, v, system.tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gained
    return Rating(1500.0 + SCALE * new_mu, min(SCALE * new_phi, system.max_deviation), sigma)
