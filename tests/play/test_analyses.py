"""Analyses in the service layer, on the in-memory stores: a finished game is queued once
and run by a worker to ``done`` with its result kept; before the end, an aborted game, a
full queue and a game never asked about are refused with their own errors; a request
never runs an analysis; a worker runs it within the step budget; the queue serves
requesters in turn; a result kept from before the format changed is not served."""

from __future__ import annotations

import time
import zlib
from dataclasses import replace

import orjson
import pytest

from service import play
from service.analysis.game import RELOOK_SHARE, analyse
from service.analysis.judge import DEFAULT, QUICK
from service.match.inprocess import record_in_process
from service.play.analyses import STEP_BUDGET
from service.play.commit import commit
from service.play.errors import AnalysisBusyError, AnalysisNotRequestedError, GameNotFinishedError
from service.storage import QueueFullError, Stores

from .finished_games import SHORT, whole_game


def finished(stores: Stores, seed: str = "an") -> str:
    record, _ = play.create_game(stores, SHORT, ["ann", "bob"], seed, unlisted=True)
    commit(stores, record.game_id, whole_game)
    return record.game_id


def test_a_finished_game_is_queued_once_and_a_worker_runs_it_to_done(stores: Stores) -> None:
    game_id = finished(stores)
    body, queued = play.request_analysis(stores, game_id, time.time(), 10, requester="r")
    assert queued and body == {"status": "queued", "progress": 0.0, "seats": [],
                               "decisions": []}
    again, queued_again = play.request_analysis(stores, game_id, time.time(), 10, requester="r")
    assert not queued_again and again["status"] == "queued"
    assert stores.analyses.queued() == 1  # the request queued it once, and ran nothing
    assert play.run_next(stores, "w1", block_seconds=0.1) == game_id
    done = play.analysis_of(stores, game_id)
    assert done["status"] == "done" and done["progress"] == 1.0
    assert [s["seat"] for s in done["seats"]] == [0, 1]
    assert done["decisions"] and done["settings"] == DEFAULT.to_dict()
    assert done["steps"]["budget"] == STEP_BUDGET
    assert stores.analyses.queued() == 0
    assert play.request_analysis(stores, game_id, time.time(), 10, requester="r") == (done, False)


def test_a_game_still_played_is_not_analysed(stores: Stores) -> None:
    record, _ = play.create_game(stores, SHORT, ["ann", "bob"], "live", unlisted=True)
    with pytest.raises(GameNotFinishedError):
        play.request_analysis(stores, record.game_id, time.time(), 10, requester="r")


def test_a_full_queue_refuses_the_next_request_and_takes_it_once_there_is_room(
        stores: Stores) -> None:
    first, second = finished(stores, "a1"), finished(stores, "a2")
    play.request_analysis(stores, first, time.time(), 1, requester="r")
    with pytest.raises(AnalysisBusyError):
        play.request_analysis(stores, second, time.time(), 1, requester="r")
    with pytest.raises(AnalysisNotRequestedError):
        play.analysis_of(stores, second)
    assert play.run_next(stores, "w1", block_seconds=0.1) == first
    assert play.request_analysis(stores, second, time.time(), 1, requester="r")[1]


def test_a_worker_judges_at_the_setting_its_deployment_chose(stores: Stores) -> None:
    game_id = finished(stores)
    play.request_analysis(stores, game_id, time.time(), 10, requester="r")
    assert play.run_next(stores, "w1", block_seconds=0.1, settings=QUICK) == game_id
    assert play.analysis_of(stores, game_id)["settings"] == QUICK.to_dict()


def test_a_game_nobody_asked_about_has_no_analysis(stores: Stores) -> None:
    with pytest.raises(AnalysisNotRequestedError):
        play.analysis_of(stores, finished(stores))


def test_an_analysis_a_live_worker_runs_is_not_run_twice_and_a_dead_ones_is_taken_over(
        stores: Stores) -> None:
    game_id = finished(stores)
    play.request_analysis(stores, game_id, time.time(), 10, requester="r")
    taken = stores.analyses.take("w1", 0.1, play.STALE_SECONDS)
    assert taken is not None and stores.analyses.start(game_id, "w1", 1000.0,
                                                       play.STALE_SECONDS)
    # w1 lives: w2 may not start it; w1 is silent past STALE_SECONDS: w2 takes it over
    assert not stores.analyses.start(game_id, "w2", 1000.0 + 1, play.STALE_SECONDS)
    assert stores.analyses.start(game_id, "w2", 1000.0 + play.STALE_SECONDS + 1,
                                 play.STALE_SECONDS)


def test_a_requester_with_many_queued_does_not_hold_up_anothers(stores: Stores) -> None:
    a, b = play.requester_of("192.0.2.1"), play.requester_of("198.51.100.7")
    for i in range(5):
        assert stores.analyses.request(f"a{i}", 0.0, 100, a) is None
    assert stores.analyses.request("b0", 0.0, 100, b) is None
    assert stores.analyses.queued() == 6
    first_two = [stores.analyses.take("w", 0.0, 60.0) for _ in range(2)]
    assert sorted(t.game_id for t in first_two if t is not None) == ["a0", "b0"]
    # a runs one at a time: its next joins once a0 is done
    assert stores.analyses.take("w", 0.0, 60.0) is None
    taken = [t for t in first_two if t is not None]
    for t in taken:
        stores.analyses.ack(t)
    while (t := stores.analyses.take("w", 0.0, 60.0)) is not None:
        taken.append(t)
        stores.analyses.ack(t)
    # a's are all taken too, once each and in the order asked, and b's is b's
    assert [t.game_id for t in taken if t.requester == a] == [f"a{i}" for i in range(5)]
    assert [t.game_id for t in taken if t.requester == b] == ["b0"]
    assert stores.analyses.queued() == 0


def test_requesters_are_kept_as_hashes_of_their_addresses() -> None:
    kept = play.requester_of("192.0.2.1")
    assert "192.0.2.1" not in kept and kept == play.requester_of("192.0.2.1")
    assert kept != play.requester_of("192.0.2.2")


def test_a_full_queue_counts_the_requests_waiting_behind_their_requesters_first(
        stores: Stores) -> None:
    for i in range(3):
        stores.analyses.request(f"a{i}", 0.0, 3, "a")
    with pytest.raises(QueueFullError):
        stores.analyses.request("b0", 0.0, 3, "b")


def test_a_result_kept_from_before_decisions_said_who_made_them_is_asked_for_again(
        stores: Stores) -> None:
    game_id = finished(stores)
    play.request_analysis(stores, game_id, time.time(), 10, requester="r")
    taken = stores.analyses.take("w1", 0.1, play.STALE_SECONDS)
    assert taken is not None and stores.analyses.start(game_id, "w1", 0.0, 60.0)
    old = {"settings": DEFAULT.to_dict(), "seats": [], "decisions": []}  # no "steps"
    stores.analyses.finish(game_id, zlib.compress(orjson.dumps(old)))
    stores.analyses.ack(taken)
    with pytest.raises(AnalysisNotRequestedError):
        play.analysis_of(stores, game_id)
    body, queued = play.request_analysis(stores, game_id, time.time(), 10, requester="r")
    assert queued and body["status"] == "queued"
    assert play.run_next(stores, "w1", block_seconds=0.1, settings=QUICK) == game_id
    assert "steps" in play.analysis_of(stores, game_id)


@pytest.mark.parametrize("hand_sizes", [
    [3, 4],  # 126 decisions, 12 second looks: the cap, reached
    pytest.param([5, 7], marks=pytest.mark.slow),  # 240 decisions, 24 second looks: the cap
])
def test_at_most_a_tenth_of_a_games_decisions_get_a_second_look(hand_sizes: list[int]) -> None:
    record = record_in_process(["random", "random"], "second-looks",
                               {"preset": "classic", "hand_sizes": hand_sizes})
    # the quick setting's playouts (no look-ahead): the cap is the budget's, whatever the look
    decisions = analyse(record, replace(QUICK, worlds=2, candidates=2))["decisions"]
    relooked = [d for d in decisions if d["relooked"]]
    assert 0 < len(relooked) <= int(len(decisions) * RELOOK_SHARE)
