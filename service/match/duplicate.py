"""Duplicate evaluation: every deal played once per seat rotation, the luck of the cards
cancelled by comparing the bots on the same deals.

Why: in independent games the deal decides most of a result, so telling two bots apart
takes thousands of games. Dealt again with the seats rotated, every bot holds every hand
of the deal once, and what is left of the difference is mostly play. The deals are the
units of the statistics: a deal's rotations are not independent of each other, so every
interval here is clustered by deal (the spread of the per-deal means), never by game.

For each pair of entrants (A, B) the report gives, over deals:

* ``diff``: the mean of A's total minus B's (negative: A scores fewer penalty points,
  better), with its standard error and 95% interval (normal, ``1.96 × se``);
* ``share``: how often A finished ahead of B (a tie counts a half), per deal then
  averaged, with its standard error, floored at ``1 / (n + 1)`` for ``n`` deals
  (:func:`share_interval`);
* ``elo``: the rating difference Glicko's and Elo's expectation ``1 / (1 + 10^(-d/400))``
  reads into the share, its interval the share's interval read the same way, both read
  no further than half a deal from a share of 0 or 1 (:func:`share_interval`);
* ``sprt`` (optional, for the first pair): a sequential probability ratio test of
  ``elo0`` against ``elo1`` on the per-deal shares (the normal approximation fishtest
  uses: the log-likelihood ratio ``(s1 - s0) (2 Σx - n (s0 + s1)) / (2 var)``), stopping
  at ``log(β / (1 - α))`` (H0 accepted) or ``log((1 - β) / α)`` (H1 accepted).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

__all__ = ["Deal", "PlayFn", "Sprt", "elo_of", "format_report", "pair_stats", "play_deal",
           "report", "rotations", "run_duplicate", "share_interval"]

Z95 = 1.959964
#: The least variance of the per-deal shares the SPRT assumes (a standard deviation of 0.1).
MIN_VARIANCE = 0.01


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal's rotations: per rotation, the entrant label of each seat and the totals."""

    seed: str
    seats: tuple[tuple[str, ...], ...]
    totals: tuple[tuple[int, ...], ...]

    def mean_total(self, label: str) -> float:
        """The entrant's mean total over the rotations (each plays every seat once)."""
        scores = [t[s] for seats, t in zip(self.seats, self.totals, strict=True)
                  for s, who in enumerate(seats) if who == label]
        return sum(scores) / len(scores)

    def share(self, a: str, b: str) -> float:
        """How often ``a`` finished ahead of ``b`` (lower total; a tie: a half), over the
        rotations and every pair of their seats."""
        points = met = 0.0
        for seats, t in zip(self.seats, self.totals, strict=True):
            for i, x in enumerate(seats):
                for j, y in enumerate(seats):
                    if x == a and y == b:
                        met += 1
                        points += 1.0 if t[i] < t[j] else 0.5 if t[i] == t[j] else 0.0
        return points / met


def rotations(labels: Sequence[str]) -> list[list[str]]:
    """The seatings of one deal: the table turned one seat at a time, so every entrant
    plays every seat once."""
    n = len(labels)
    return [[labels[(s - r) % n] for s in range(n)] for r in range(n)]


def elo_of(share: float) -> float:
    """The rating difference that expects ``share`` (±inf at 0 and 1)."""
    if share <= 0.0:
        return -math.inf
    if share >= 1.0:
        return math.inf
    return 400.0 * math.log10(share / (1.0 - share))


def _share_of(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _mean_se(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n)


def share_interval(shares: Sequence[float]) -> tuple[float, float, float, float, float]:
    """The per-deal ``shares``' mean, its standard error, the 95% interval's ends, and the
    share the Elo difference is read from, for ``n`` deals.

    Why a floor on the standard error: when every deal comes out the same (A ahead in
    all of them, or two copies of one bot even in all), the shares show no spread, and
    the plain standard error, 0, claimed the result exact: from 6 deals the Elo interval
    was ``[+inf, +inf]``. A share lies between 0 and 1, so the floor is what the shares'
    standard error would be had one more deal come out at the other end of that range:
    ``1 / (n + 1)``. It only matters where the deals barely differ (over 200 deals it is
    0.005, below the spread the reference bots show) and it narrows as deals are added.

    Why the reading is clipped: a share of 1 (or 0), or an interval's end past it, reads
    as an infinite rating difference, which ``n`` deals cannot show: they cannot tell a
    share of 1 from one half a deal below it. So the share the estimate and the interval's
    ends are read from is held within ``1 / (2n + 2)`` of 0 and 1: at most
    ``400 log10(2n + 1)`` Elo either way (445 for 6 deals, 921 for 100). The interval
    stays finite, holds the estimate, and is wider the fewer the deals."""
    n = len(shares)
    share, se = _mean_se(shares)
    se = max(se, 1.0 / (n + 1))
    edge = 1.0 / (2 * n + 2)

    def readable(p: float) -> float:
        return min(1.0 - edge, max(edge, p))

    return share, se, readable(share - Z95 * se), readable(share + Z95 * se), readable(share)


def pair_stats(deals: Sequence[Deal], a: str, b: str) -> dict[str, Any]:
    """A against B over ``deals``: the mean difference of totals and the share, each
    with its standard error clustered by deal, and the Elo difference with its interval
    (finite however alike the deals: :func:`share_interval`)."""
    diffs = [d.mean_total(a) - d.mean_total(b) for d in deals]
    diff, diff_se = _mean_se(diffs)
    share, share_se, lo, hi, read = share_interval([d.share(a, b) for d in deals])
    return {
        "a": a, "b": b, "deals": len(deals),
        "diff": diff, "diff_se": diff_se,
        "diff_low": diff - Z95 * diff_se, "diff_high": diff + Z95 * diff_se,
        "share": share, "share_se": share_se,
        "elo": elo_of(read), "elo_low": elo_of(lo), "elo_high": elo_of(hi),
    }


@dataclass(frozen=True, slots=True)
class Sprt:
    """H0: A is ``elo0`` points stronger than B; H1: ``elo1``. ``alpha``, ``beta``: the
    error rates the bounds are set for."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, shares: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0 given the per-deal shares (0 before
        two deals). The variance is floored at :data:`MIN_VARIANCE`: a bot that finishes
        ahead in every deal shows no spread at all, and its result is the clearest."""
        n = len(shares)
        if n < 2:
            return 0.0
        mean = sum(shares) / n
        var = max(MIN_VARIANCE, sum((x - mean) ** 2 for x in shares) / n)
        s0, s1 = _share_of(self.elo0), _share_of(self.elo1)
        return (s1 - s0) * (2 * sum(shares) - n * (s0 + s1)) / (2 * var)

    def verdict(self, shares: Sequence[float]) -> str | None:
        """``"H0"`` or ``"H1"`` once the ratio leaves the bounds, else ``None`` (go on)."""
        lo, hi = self.bounds
        llr = self.llr(shares)
        return "H1" if llr >= hi else "H0" if llr <= lo else None


def report(deals: Sequence[Deal], labels: Sequence[str], sprt: Sprt | None = None,
           ) -> dict[str, Any]:
    """The whole report: per-deal rows, each entrant's mean total, every pair's
    statistics, and the SPRT's state for the first pair."""
    entrants = list(dict.fromkeys(labels))
    out: dict[str, Any] = {
        "deals": len(deals),
        "games": sum(len(d.seats) for d in deals),
        "entrants": [{"bot": e, "mean_total": sum(d.mean_total(e) for d in deals) / len(deals)}
                     for e in entrants] if deals else [],
        "rows": [{"seed": d.seed, **{e: d.mean_total(e) for e in entrants}} for d in deals],
        "pairs": [pair_stats(deals, a, b) for i, a in enumerate(entrants)
                  for b in entrants[i + 1:]] if len(deals) else [],
    }
    if sprt is not None and len(entrants) >= 2:
        shares = [d.share(entrants[0], entrants[1]) for d in deals]
        lo, hi = sprt.bounds
        out["sprt"] = {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                       "beta": sprt.beta, "llr": sprt.llr(shares), "lower": lo, "upper": hi,
                       "verdict": sprt.verdict(shares)}
    return out


def format_report(summary: dict[str, Any], rows: bool = False) -> str:
    """The report as text: each entrant's mean total, each pair's difference and Elo
    with their 95% intervals, the SPRT's state; with ``rows``, one line per deal."""
    lines = [f"{summary['deals']} deals, {summary['games']} games (every deal once per "
             "seat rotation)", ""]
    entrants = [e["bot"] for e in summary["entrants"]]
    if rows:
        lines.append("seed".ljust(24) + "".join(f"{e:>10}" for e in entrants))
        for r in summary["rows"]:
            lines.append(f"{r['seed']:<24}" + "".join(f"{r[e]:>10.1f}" for e in entrants))
        lines.append("")
    for e in summary["entrants"]:
        lines.append(f"{e['bot']:<12} mean total {e['mean_total']:8.2f}")
    lines.append("")
    lines.append(f"{'pair':<24} {'A - B':>8} {'95% interval':>18} {'A ahead':>8} "
                 f"{'elo':>6} {'95% interval':>16}")
    for p in summary["pairs"]:
        lines.append(
            f"{p['a'] + ' vs ' + p['b']:<24} {p['diff']:>+8.2f} "
            f"{'[' + format(p['diff_low'], '+.2f') + ', ' + format(p['diff_high'], '+.2f') + ']':>18} "
            f"{100 * p['share']:>7.1f}% {p['elo']:>+6.0f} "
            f"{'[' + format(p['elo_low'], '+.0f') + ', ' + format(p['elo_high'], '+.0f') + ']':>16}")
    if "sprt" in summary:
        s = summary["sprt"]
        lines += ["", f"SPRT elo0 {s['elo0']:+.0f} elo1 {s['elo1']:+.0f} (alpha {s['alpha']}, "
                      f"beta {s['beta']}): LLR {s['llr']:+.2f} in [{s['lower']:.2f}, "
                      f"{s['upper']:.2f}] -> {s['verdict'] or 'go on'}"]
    return "\n".join(lines)


#: Plays one game: (the bot of each seat, the entrant label of each seat, the deal's seed)
#: -> the totals by seat.
PlayFn = Callable[[list[str], list[str], str], Sequence[int]]


def play_deal(play: PlayFn, bots: Sequence[str], labels: Sequence[str], seed: str) -> Deal:
    """One deal, dealt from ``seed``, played once per rotation of the seats."""
    by_label = dict(zip(labels, bots, strict=True))
    seatings = rotations(labels)
    return Deal(seed, tuple(tuple(s) for s in seatings),
                tuple(tuple(play([by_label[x] for x in s], s, seed)) for s in seatings))


def run_duplicate(play: PlayFn, bots: Sequence[str], labels: Sequence[str], deals: int, *,
                  seed: str, concurrency: int = 1, sprt: Sprt | None = None,
                  progress: Callable[[int, Deal], None] | None = None) -> list[Deal]:
    """Play ``deals`` deals (deal ``i`` from ``f"{seed}-{i}"``), each once per rotation of
    the seats, ``concurrency`` deals at once. With ``sprt``, stop after the first batch of
    deals at which the test has a verdict. The deals come back in order, so the same
    seeds and bots give the same report."""
    out: list[Deal] = []
    batch = max(1, concurrency)
    with ThreadPoolExecutor(batch) as pool:
        for start in range(0, deals, batch):
            seeds = [f"{seed}-{i}" for i in range(start, min(deals, start + batch))]
            for deal in pool.map(lambda s: play_deal(play, bots, labels, s), seeds):
                out.append(deal)
                if progress is not None:
                    progress(len(out), deal)
            if sprt is not None and sprt.verdict(
                    [d.share(labels[0], labels[1]) for d in out]) is not None:
                break
    return out
