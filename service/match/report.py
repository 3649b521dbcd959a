"""A match's results as a text table, JSON, and (with matplotlib) a PNG chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

__all__ = ["format_table", "write_json", "write_png"]


def format_table(summary: dict[str, Any]) -> str:
    """The results table: one row per bot, then the mean score of each round number."""
    bots = summary["bots"]
    width = max(6, *(len(b["bot"]) for b in bots))
    lines = [
        f"{summary['games']} games, preset {summary['preset']}",
        "",
        f"{'bot':<{width}} {'games':>6} {'wins':>7} {'win%':>6} {'mean':>8} {'std':>7} "
        f"{'out%':>6}",
    ]
    for b in bots:
        lines.append(
            f"{b['bot']:<{width}} {b['games']:>6} {b['wins']:>7.1f} {100 * b['win_rate']:>5.1f}% "
            f"{b['mean_total']:>8.1f} {b['std_total']:>7.1f} {100 * b['going_out_rate']:>5.1f}%"
        )
    rounds = max((len(b["mean_score_per_round"]) for b in bots), default=0)
    if rounds:
        lines += ["", "mean score per round:",
                  f"{'round':<{width}} " + " ".join(f"{r + 1:>5}" for r in range(rounds))]
        for b in bots:
            cells = ["    -" if v is None else f"{v:>5.1f}" for v in b["mean_score_per_round"]]
            lines.append(f"{b['bot']:<{width}} " + " ".join(cells))
    lines += [
        "",
        f"mean game length: {summary['mean_game_actions']:.1f} actions, "
        f"{summary['mean_game_seconds']:.2f} s",
        f"wall time: {summary['wall_seconds']:.1f} s",
    ]
    return "\n".join(lines)


def write_json(summary: dict[str, Any], path: str | Path) -> None:
    Path(path).write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


def write_png(summary: dict[str, Any], path: str | Path) -> bool:
    """Mean score per round number, one line per bot. False when matplotlib is missing
    (it is an optional extra: ``pip install matplotlib``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for b in summary["bots"]:
        ys = b["mean_score_per_round"]
        xs = [i + 1 for i, v in enumerate(ys) if v is not None]
        ax.plot(xs, [v for v in ys if v is not None], marker="o",
                label=f"{b['bot']} (mean total {b['mean_total']:.0f})")
    ax.set_xlabel("round")
    ax.set_ylabel("mean penalty")
    ax.set_title(f"{summary['games']} games, preset {summary['preset']}")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
