"""Duplicate evaluation (``service/match/duplicate.py``): every deal once per rotation of
the seats, the statistics clustered by deal, a sequential test that stops a match early,
and the same report from the same seeds and bots. Played in this process on the engine
(``service/match/inprocess.py``); ``tests/bots/test_match_over_http.py`` plays it over HTTP."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from service.match.__main__ import main
from service.match.duplicate import Deal, Sprt, elo_of, pair_stats, report, rotations, run_duplicate
from service.match.inprocess import play_in_process
from service.match.report import write_json

SHORT = {"preset": "classic", "hand_sizes": [3, 4, 5]}


def play(bots: list[str], labels: list[str], seed: str) -> tuple[int, ...]:
    return play_in_process(bots, seed, SHORT)


def test_every_entrant_plays_every_seat_once_per_deal() -> None:
    seatings = rotations(["a", "b", "c"])
    assert seatings == [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]]
    for who in "abc":
        assert sorted(s.index(who) for s in seatings) == [0, 1, 2]


def test_two_copies_of_one_deterministic_bot_score_exactly_even() -> None:
    deals = run_duplicate(play, ["greedy", "greedy"], ["greedy", "greedy#2"], 8, seed="even")
    assert len(deals) == 8 and all(len(d.totals) == 2 for d in deals)
    assert any(d.totals[0][0] != d.totals[0][1] for d in deals)  # the seats differ, the bots not
    stats = pair_stats(deals, "greedy", "greedy#2")
    assert stats["diff"] == 0.0 and stats["diff_se"] == 0.0
    assert stats["share"] == 0.5 and stats["elo"] == 0.0


def test_the_same_seeds_and_bots_give_the_same_report() -> None:
    bots, labels = ["random", "simple", "greedy"], ["random", "simple", "greedy"]
    one = report(run_duplicate(play, bots, labels, 4, seed="same", concurrency=3), labels)
    two = report(run_duplicate(play, bots, labels, 4, seed="same"), labels)
    assert one == two
    assert [r["seed"] for r in one["rows"]] == [f"same-{i}" for i in range(4)]
    assert one["games"] == 12 and len(one["pairs"]) == 3


def test_the_intervals_are_clustered_by_deal() -> None:
    # A scores d in both rotations of a deal and B 0: per deal A - B is 10, 20 and 30
    deals = [Deal(f"s{i}", (("A", "B"), ("B", "A")), ((d, 0), (0, d)))
             for i, d in enumerate((10, 20, 30))]
    stats = pair_stats(deals, "A", "B")
    assert stats["diff"] == pytest.approx(20.0)
    # the standard error of the three per-deal differences (sd 10), not of the six games
    assert stats["diff_se"] == pytest.approx(10 / math.sqrt(3))
    assert stats["diff_low"] < stats["diff"] < stats["diff_high"]
    # B ahead every time: read half a deal from a share of 0, not as -inf (3 deals: 1/8)
    assert stats["share"] == 0.0 and stats["elo"] == pytest.approx(elo_of(1 / 8))
    assert stats["elo_low"] == stats["elo"] < stats["elo_high"] < 0


def ahead_every_time(bots: list[str], labels: list[str], seed: str) -> tuple[int, ...]:
    """A deal A finishes ahead of B in, whatever the seats: 0 points against 10."""
    return tuple(0 if label == "A" else 10 for label in labels)


def test_deals_that_all_come_out_alike_give_a_finite_interval_that_holds_the_estimate(
        tmp_path: Path) -> None:
    widths = []
    for n in (3, 6, 30):
        deals = run_duplicate(ahead_every_time, ["x", "y"], ["A", "B"], n, seed="alike")
        stats = pair_stats(deals, "A", "B")
        assert stats["share"] == 1.0 and stats["share_se"] == pytest.approx(1 / (n + 1))
        assert all(math.isfinite(stats[k]) for k in ("elo", "elo_low", "elo_high"))
        assert stats["elo_low"] < stats["elo"] <= stats["elo_high"]
        assert stats["elo_high"] == pytest.approx(400 * math.log10(2 * n + 1))
        widths.append(stats["elo_high"] - stats["elo_low"])
        out = tmp_path / f"{n}.json"
        write_json(report(deals, ["A", "B"]), out)  # what --json writes: numbers, not null
        pair = json.loads(out.read_text())["pairs"][0]
        assert None not in (pair["elo"], pair["elo_low"], pair["elo_high"])
    assert widths[0] > widths[1] > widths[2]  # fewer deals, wider


def test_two_copies_of_one_bot_even_in_every_deal_are_not_claimed_exactly_even() -> None:
    deals = run_duplicate(play, ["greedy", "greedy"], ["greedy", "greedy#2"], 6, seed="even")
    stats = pair_stats(deals, "greedy", "greedy#2")
    assert stats["share"] == 0.5 and stats["elo"] == 0.0  # every deal even: no spread
    assert stats["elo_low"] == pytest.approx(-stats["elo_high"]) and stats["elo_high"] > 100


def test_the_elo_difference_reads_the_share_as_glickos_expectation_does() -> None:
    assert elo_of(0.5) == 0.0
    assert elo_of(1 / (1 + 10 ** (-100 / 400))) == pytest.approx(100.0)
    assert elo_of(0.0) == -math.inf and elo_of(1.0) == math.inf


def test_the_sequential_test_stops_once_the_result_is_clear() -> None:
    sprt = Sprt(elo0=0, elo1=50)
    lower, upper = sprt.bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(-lower)
    assert sprt.verdict([0.9, 1.0, 0.8, 1.0] * 5) == "H1"
    assert sprt.verdict([0.1, 0.0, 0.2, 0.0] * 5) == "H0"
    assert sprt.verdict([0.4, 0.6]) is None
    assert sprt.verdict([1.0, 1.0, 1.0]) == "H1"  # no spread at all: still a verdict
    # greedy against random is clear after a few deals: the match stops long before 200
    deals = run_duplicate(play, ["greedy", "random"], ["greedy", "random"], 200, seed="sprt",
                          sprt=sprt)
    assert 2 <= len(deals) < 40
    assert report(deals, ["greedy", "random"], sprt)["sprt"]["verdict"] == "H1"


def test_the_command_prints_the_report_and_writes_it_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "d.json"
    code = main(["--duplicate", "--in-process", "--bots", "simple,greedy", "--deals", "3",
                 "--rules", json.dumps({"hand_sizes": [3, 4]}), "--seed", "cli", "--rows",
                 "--sprt", "0,50", "--json", str(out), "--quiet"])
    assert code == 0
    text = capsys.readouterr().out
    for words in ("3 deals, 6 games", "cli-0", "simple vs greedy", "95% interval", "SPRT"):
        assert words in text
    summary = json.loads(out.read_text())
    assert summary["deals"] == 3 and summary["pairs"][0]["a"] == "simple"


def test_the_command_refuses_duplicate_options_without_duplicate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--in-process", "--bots", "greedy,random"]) == 2
    assert "--duplicate" in capsys.readouterr().err
