"""Complete bot-vs-bot games over HTTP with the match runner against the real server.

Every game is created with open seats; each bot is its own HTTP client that claims
its seat and long-polls for its turns. ``check_game`` (run by the runner on every
game) checks the scores against the event log.

One game per table size asked for (2, 4 and 8 players), each on another preset, so the
three games cover every preset, every table size and every reference bot (``bga``
allows at most six players, so the 8-player game is another preset's). What a game here
shows is the runner and the bots' clients against the server; the rules of each preset
at every player count are the engine's random games (tests/engine/test_random_games.py),
and the server's full games per preset are tests/api/test_full_games.py, so a game for
every pairing of preset and size (nine, once) showed nothing more.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.client import ClientStats
from service.match.__main__ import main
from service.match.runner import run_match

TABLES = [
    ("classic", ["greedy", "strong"]),
    ("bga", ["strong", "random", "greedy", "random"]),
    ("family", ["greedy", "random"] * 4),
]


@pytest.mark.parametrize(
    ("preset", "bots"), TABLES, ids=[f"{p}-{len(b)}-players" for p, b in TABLES]
)
def test_a_complete_game_over_http_finishes_with_valid_scores(
    service_url: str, preset: str, bots: list[str]
) -> None:
    stats = ClientStats()
    result = run_match(service_url, bots, 1, preset=preset, seed=f"t-{preset}-{len(bots)}",
                       stats=stats)
    (game,) = result.games
    assert len(game.totals) == len(bots)
    assert all(len(scores) == 11 for scores in game.round_scores)
    assert game.totals == [sum(s) for s in game.round_scores]
    assert game.winners and all(game.totals[w] == min(game.totals) for w in game.winners)
    assert stats.actions == game.actions > 0
    summary = result.summary()
    assert sum(b["wins"] for b in summary["bots"]) == pytest.approx(1.0)


def test_seats_rotate_and_several_games_run_at_once(service_url: str) -> None:
    """Four games at once, of three rounds each (3, 5 and 7 cards): what is checked is the
    seats' rotation, the games running side by side and the summary's columns, one per
    round played; whole games are the tests above."""
    result = run_match(service_url, ["greedy", "random"], 4, concurrency=4, seed="rot",
                       rules={"hand_sizes": [3, 5, 7]})
    firsts = [g.entrants[0] for g in result.games]
    assert sorted(firsts) == ["greedy", "greedy", "random", "random"]
    summary = result.summary()
    greedy, rnd = summary["bots"]
    assert greedy["games"] == rnd["games"] == 4
    assert greedy["mean_total"] < rnd["mean_total"]  # by a mile, every time
    assert len(greedy["mean_score_per_round"]) == 3


def test_the_match_command_prints_the_table_and_writes_json_and_a_chart(
    service_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json, out_png = tmp_path / "m.json", tmp_path / "m.png"
    code = main(["--url", service_url, "--bots", "greedy,random", "--games", "2",
                 "--preset", "family", "--json", str(out_json), "--png", str(out_png),
                 "--quiet"])
    assert code == 0
    table = capsys.readouterr().out
    for word in ("games", "wins", "mean", "std", "out%", "mean score per round",
                 "mean game length", "wall time"):
        assert word in table
    summary = json.loads(out_json.read_text())
    assert summary["games"] == 2 and summary["preset"] == "family"
    assert {b["bot"] for b in summary["bots"]} == {"greedy", "random"}
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not out_png.exists()
    else:
        assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_duplicate_match_over_http_seats_a_bot_class_of_ones_own_and_scores_copies_even(
    service_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "d.json"
    # greedy by name and greedy as a class of one's own: the same deterministic player
    code = main(["--url", service_url, "--duplicate", "--deals", "2", "--seed", "http",
                 "--bots", "greedy,service.bots.simple:GreedyBot",
                 "--rules", json.dumps({"hand_sizes": [3, 4]}), "--json", str(out_json),
                 "--quiet"])
    assert code == 0
    assert "2 deals, 4 games" in capsys.readouterr().out
    pair = json.loads(out_json.read_text())["pairs"][0]
    assert pair["b"] == "service.bots.simple:GreedyBot"
    assert pair["diff"] == 0.0 and pair["share"] == 0.5
