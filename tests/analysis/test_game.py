"""A finished game's analysis from its record (``service/analysis/game.py``): every turn
move a seat's player made judged once, in order, from that seat's own view and events,
with who made it; the service's moves for a human seat (a stand-in's) not judged; each
seat summed up from its player's decisions; the same record and settings give the same
analysis."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from service.analysis.game import DECISIONS, analyse, decisions_of
from service.analysis.judge import Settings, accuracy, forced
from service.match.inprocess import record_in_process

from .records import away_after_one_draw, resigned_after_one_draw

QUICK = Settings(worlds=2, candidates=2)
RULES = {"preset": "classic", "hand_sizes": [3, 4, 5]}


@pytest.fixture(scope="module")
def record() -> dict:
    return record_in_process(["greedy", "random", "simple"], "analysed", RULES)


@pytest.fixture(scope="module")
def analysed_with_progress(record: dict) -> tuple[dict, list[tuple[int, int]]]:
    """The record's analysis at ``QUICK``, made once for the tests that only read it, and
    the progress it reported: (done, total) after each decision."""
    calls: list[tuple[int, int]] = []
    return analyse(record, QUICK, progress=lambda done, total: calls.append((done, total))), calls


@pytest.fixture(scope="module")
def analysed(analysed_with_progress: tuple[dict, list[tuple[int, int]]]) -> dict:
    return analysed_with_progress[0]


def test_every_turn_move_is_judged_once_in_order_with_progress_after_each(
        record: dict, analysed_with_progress: tuple[dict, list[tuple[int, int]]]) -> None:
    result, calls = analysed_with_progress
    moves = [(v, a) for v, a in enumerate(record["actions"]) if a["type"] in DECISIONS]
    # a bot seat's moves are the service's (by its bot, the seat's player): all judged
    assert [(d["version"], d["seat"], d["by"]) for d in result["decisions"]] == [
        (v, a["seat"], "service") for v, a in moves]
    assert calls == [(n, len(moves)) for n in range(1, len(moves) + 1)]
    assert result["settings"] == QUICK.to_dict()
    assert result["steps"]["budget"] is None and result["steps"]["spent"] > len(moves)
    assert {d["worlds"] for d in result["decisions"]} <= {0, QUICK.worlds}
    assert all(row["service_moves"] == 0 and row["unjudged"] == 0 for row in result["seats"])


def test_each_seat_is_summed_up_from_its_own_decisions(analysed: dict) -> None:
    result = analysed
    for row in result["seats"]:
        own = [d for d in result["decisions"] if d["seat"] == row["seat"]]
        assert row["decisions"] == len(own)
        assert row["accuracy"] == round(sum(accuracy(d["regret"]) for d in own) / len(own), 1)
        assert row["expected_loss"] == pytest.approx(sum(d["regret"] for d in own), abs=0.01)
        for word, count in (("inaccuracy", "inaccuracies"), ("mistake", "mistakes"),
                            ("blunder", "blunders")):
            assert row[count] == sum(d["judgement"] == word for d in own)


def test_a_seats_luck_sums_its_draws_and_its_adjusted_total_takes_it_out(
        record: dict, analysed: dict) -> None:
    # the luck of each draw is tests/analysis/test_luck.py's; here, how a seat sums it up
    assert any(d["luck"] for d in analysed["decisions"])
    for row in analysed["seats"]:
        own = [d for d in analysed["decisions"] if d["seat"] == row["seat"]]
        luck = sum(d["luck"] for d in own if d["luck"] is not None)
        assert row["luck"] == pytest.approx(luck, abs=0.01)
        assert row["total"] == record["totals"][row["seat"]]
        # luck counts the points the draws saved, so taking it out adds it back
        assert row["adjusted_total"] == pytest.approx(row["total"] + row["luck"], abs=0.01)
        assert sum(r["luck"] for r in row["rounds"]) == pytest.approx(row["luck"], abs=0.05)
        assert [r["score"] for r in row["rounds"]] == [
            r["results"][row["seat"]]["score"] for r in record["rounds"]]
        for d in own:
            if d["action"]["type"] != "draw":
                assert d["luck"] is None
            elif d["action"]["source"] == "stock":
                assert d["drawn"] is not None and d["luck"] is not None


@pytest.mark.parametrize("made", [
    pytest.param(resigned_after_one_draw, id="resigned"),
    # the same judging of a stand-in's moves, after two time-outs: make test's
    pytest.param(away_after_one_draw, id="away", marks=pytest.mark.slow)])
def test_a_seat_the_service_played_for_is_judged_on_its_players_own_moves_only(
        made: Callable[[], tuple[dict[str, Any], int]]) -> None:
    record, seat = made()
    moves = [(v, a) for v, a in enumerate(record["actions"]) if a["type"] in DECISIONS]
    own = [v for v, a in moves if a["seat"] == seat and a["by"] == "player"]
    stood_in = [v for v, a in moves if a["seat"] == seat and a["by"] == "service"]
    assert len(own) == 1 and len(stood_in) > 10  # one draw, then the stand-in's game
    result = analyse(record, QUICK)
    # every decision listed says who made it, as the record does
    by = {v: a["by"] for v, a in moves}
    assert result["decisions"] and all(d["by"] == by[d["version"]] for d in result["decisions"])
    mine = [d for d in result["decisions"] if d["seat"] == seat]
    assert [(d["version"], d["by"]) for d in mine] == [(own[0], "player")]
    row = result["seats"][seat]
    assert row["decisions"] == 1 and row["service_moves"] == len(stood_in)
    assert row["accuracy"] == round(accuracy(mine[0]["regret"]), 1)
    assert row["expected_loss"] == pytest.approx(mine[0]["regret"], abs=0.01)
    assert row["inaccuracies"] + row["mistakes"] + row["blunders"] <= 1
    # the other seats: every move of theirs judged (a bot seat's, by the service, too)
    for other in result["seats"]:
        if other["seat"] != seat:
            theirs = [v for v, a in moves if a["seat"] == other["seat"]]
            assert other["decisions"] == len(theirs) and other["service_moves"] == 0


def test_the_same_record_and_settings_give_the_same_analysis(record: dict,
                                                            analysed: dict) -> None:
    assert analyse(record, QUICK) == analysed


def test_a_seat_is_given_only_its_own_share_of_the_events(record: dict) -> None:
    others_drew = 0
    for d in decisions_of(record):
        assert d.seat_view["you"]["seat"] == d.seat
        for e in d.seat_events:
            if e["type"] == "draw" and e["source"] == "stock" and e["seat"] != d.seat:
                assert "card" not in e  # another seat's card from the stock stays hidden
                others_drew += 1
    assert others_drew > 0


def test_an_aborted_game_is_not_analysed(record: dict) -> None:
    with pytest.raises(ValueError, match="aborted"):
        analyse({**record, "finish_reason": "aborted"}, QUICK)


def test_the_error_rate_is_the_expected_loss_per_decision_that_was_not_forced(
        analysed: dict) -> None:
    for row in analysed["seats"]:
        own = [d for d in analysed["decisions"] if d["seat"] == row["seat"]]
        free = [d for d in own if not d["forced"]]
        assert row["forced"] == len(own) - len(free)
        assert row["error_rate"] == pytest.approx(
            sum(d["regret"] for d in free) / len(free), abs=0.001)
        for r in row["rounds"]:
            theirs = [d for d in own if d["position"]["round"] == r["round"]]
            assert r["decisions"] == len(theirs)
            assert r["expected_loss"] == pytest.approx(sum(d["regret"] for d in theirs),
                                                       abs=0.01)


def test_a_forced_move_is_one_with_a_single_choice(record: dict) -> None:
    d = next(x for x in decisions_of(record) if x.action["type"] == "draw"
             and x.state.phase == "draw")
    assert not forced(d.state, d.seat)  # the stock or the pile
    assert forced(replace(d.state, discard=()), d.seat)  # no pile: the stock only
    d = next(x for x in decisions_of(record) if x.action["type"] == "discard"
             and len(set(x.state.hands[x.seat])) > 1)
    assert not forced(d.state, d.seat)


def test_each_decision_shows_the_position_its_seat_saw(record: dict, analysed: dict) -> None:
    for d, row in zip(decisions_of(record), analysed["decisions"], strict=True):
        position = row["position"]
        assert position["hand"] == d.seat_view["you"]["hand"]
        assert position["discard_top"] == d.seat_view["round"]["discard_top"]
        assert position["round"] == d.state.round_index + 1
        assert position["wild_rank"] == d.seat_view["round"]["wild_rank"]
        assert position["phase"] == d.state.phase
