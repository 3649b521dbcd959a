"""Analyses in the service layer, on the in-memory stores: a finished game is queued once
and run by a worker to ``done`` with its result kept; before the end, an aborted game, a
full queue and a game never asked about are refused with their own errors; a request
never runs an analysis; the budget bounds a game's playouts."""

from __future__ import annotations

import time

import pytest

from service import play
from service.analysis.game import RELOOK_SHARE, analyse
from service.analysis.judge import DEFAULT, Settings
from service.match.inprocess import record_in_process
from service.storage import Stores

from .finished_games import SHORT, whole_game


def finished(stores: Stores, seed: str = "an") -> str:
    record, _ = play.create_game(stores, SHORT, ["ann", "bob"], seed, unlisted=True)
    play.commit(stores, record.game_id, whole_game)
    return record.game_id


def test_a_finished_game_is_queued_once_and_a_worker_runs_it_to_done(stores: Stores) -> None:
    game_id = finished(stores)
    body, queued = play.request_analysis(stores, game_id, time.time(), 10)
    assert queued and body == {"status": "queued", "progress": 0.0, "seats": [],
                               "decisions": []}
    again, queued_again = play.request_analysis(stores, game_id, time.time(), 10)
    assert not queued_again and again["status"] == "queued"
    assert stores.analyses.queued() == 1  # the request queued it once, and ran nothing
    assert play.run_next(stores, "w1", block_seconds=0.1) == game_id
    done = play.analysis_of(stores, game_id)
    assert done["status"] == "done" and done["progress"] == 1.0
    assert [s["seat"] for s in done["seats"]] == [0, 1]
    assert done["decisions"] and done["settings"] == DEFAULT.to_dict()
    assert stores.analyses.queued() == 0
    assert play.request_analysis(stores, game_id, time.time(), 10) == (done, False)


def test_a_game_still_played_is_not_analysed(stores: Stores) -> None:
    record, _ = play.create_game(stores, SHORT, ["ann", "bob"], "live", unlisted=True)
    with pytest.raises(play.GameNotFinishedError):
        play.request_analysis(stores, record.game_id, time.time(), 10)


def test_a_full_queue_refuses_the_next_request_and_takes_it_once_there_is_room(
        stores: Stores) -> None:
    first, second = finished(stores, "a1"), finished(stores, "a2")
    play.request_analysis(stores, first, time.time(), 1)
    with pytest.raises(play.AnalysisBusyError):
        play.request_analysis(stores, second, time.time(), 1)
    with pytest.raises(play.AnalysisNotRequestedError):
        play.analysis_of(stores, second)
    assert play.run_next(stores, "w1", block_seconds=0.1) == first
    assert play.request_analysis(stores, second, time.time(), 1)[1]


def test_a_game_nobody_asked_about_has_no_analysis(stores: Stores) -> None:
    with pytest.raises(play.AnalysisNotRequestedError):
        play.analysis_of(stores, finished(stores))


def test_an_analysis_a_live_worker_runs_is_not_run_twice_and_a_dead_ones_is_taken_over(
        stores: Stores) -> None:
    game_id = finished(stores)
    play.request_analysis(stores, game_id, time.time(), 10)
    taken = stores.analyses.take("w1", 0.1, play.STALE_SECONDS)
    assert taken is not None and stores.analyses.start(game_id, "w1", 1000.0,
                                                       play.STALE_SECONDS)
    # w1 lives: w2 may not start it; w1 is silent past STALE_SECONDS: w2 takes it over
    assert not stores.analyses.start(game_id, "w2", 1000.0 + 1, play.STALE_SECONDS)
    assert stores.analyses.start(game_id, "w2", 1000.0 + play.STALE_SECONDS + 1,
                                 play.STALE_SECONDS)


def test_the_budget_draws_fewer_worlds_for_a_game_of_many_decisions() -> None:
    few = {"actions": [{"type": "draw"}] * 400}
    many = {"actions": [{"type": "discard"}] * 3000}
    huge = {"actions": [{"type": "discard"}] * 30_000}
    assert play.settings_for(few) == DEFAULT
    bounded = play.settings_for(many)
    assert bounded.worlds < DEFAULT.worlds
    # the first looks, and second looks for at most RELOOK_SHARE of the decisions
    assert 3000 * bounded.worlds * (bounded.candidates + 2 + RELOOK_SHARE * 3 * bounded.relook
                                    ) <= play.PLAYOUT_BUDGET
    least = play.settings_for(huge)
    assert (least.worlds, least.candidates, least.relook) == (1, 1, 1)


def test_at_most_a_tenth_of_a_games_decisions_get_a_second_look() -> None:
    record = record_in_process(["random", "random"], "second-looks",
                               {"preset": "classic", "hand_sizes": [5, 7]})
    decisions = analyse(record, Settings(worlds=2, candidates=2))["decisions"]
    relooked = [d for d in decisions if d["relooked"]]
    assert 0 < len(relooked) <= int(len(decisions) * RELOOK_SHARE)
