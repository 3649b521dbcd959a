"""Evaluations in the service layer, on the in-memory stores: who may start one and what it
may ask; the move worker's visits dealing duplicate deals (two games per deal, one per
seat order, dealt from the evaluation's seed) that the account's bot plays from its
stream's ``your_turn`` notes, until the sequential test decides or the deal limit is
reached; the stop rule itself (pure); the quota of one evaluation at a time; and that
an account reads only its own."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from service.engine import view
from service.match.duplicate import Deal, report, rotations
from service.play import act, create_account
from service.play.credentials import account_credential
from service.play.errors import (
    EvaluationForBotsError,
    InvalidEvaluationError,
    TooManyEvaluationsError,
    UnknownEvaluationError,
)
from service.play.evaluation_ids import evaluation_of, game_id_for
from service.play.evaluations import (
    BOT,
    GAMES_AT_ONCE,
    SPRT,
    advance,
    evaluation_json,
    read_evaluation,
    start_evaluation,
)
from service.storage import Account, AnchorRun, Evaluation, PlayedDeal, Stores
from service.tournaments.ids import tournament_of
from tests.play.conftest import drain

Choose = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def bot_account(stores: Stores, handle: str = "robo") -> Account:
    return create_account(stores, handle, True)[0]


def resigns(seat_view: Mapping[str, Any]) -> Mapping[str, Any]:
    """A bot that gives up at its first turn: it finishes behind in every game."""
    return {"type": "resign"}


def aborts(seat_view: Mapping[str, Any]) -> Mapping[str, Any]:
    """A bot that aborts every game before its first move: no game has a result."""
    return {"type": "abort"}


def run_to_the_end(stores: Stores, account: Account, evaluation_id: str, choose: Choose,
                   ) -> tuple[Evaluation, list[Mapping[str, object]]]:
    """The move worker's visits (the evaluation's, the anchors' moves) and the account's
    bot, which plays each ``your_turn`` note of its stream with ``choose`` and its key,
    until the evaluation is done: the evaluation and the notes the account heard."""
    heard: list[Mapping[str, object]] = []
    after = 0
    credential = account_credential(account.handle)
    for _ in range(2_000):
        drain(stores)
        evaluation = stores.evaluations.load(evaluation_id)
        assert evaluation is not None
        if evaluation.status == "done":
            heard += [n.body for n in stores.accounts.notes(account.handle, after, 1000)]
            return evaluation, heard
        notes = stores.accounts.notes(account.handle, after, 1000)
        assert notes, "the evaluation waits for nobody but the account's bot"
        for note in notes:
            after = note.seq
            heard.append(note.body)
            if note.body["type"] == "your_turn":
                game_id = str(note.body["game_id"])
                state = stores.games.load(game_id).state
                seat = int(str(note.body["seat"]))
                if not state.finished and state.current_seat == seat:
                    act(stores, game_id, credential, choose(view(state, seat)))
    raise AssertionError("the evaluation never finished")


def test_only_a_bot_account_evaluates_against_reference_bots_within_the_deal_limits(
        stores: Stores) -> None:
    human = create_account(stores, "ann", False)[0]
    with pytest.raises(EvaluationForBotsError):
        start_evaluation(stores, human, "classic", ["greedy"], time.time())
    robo = bot_account(stores)
    for preset, anchors, deals in (("poker", ["greedy"], None), ("classic", [], None),
                                   ("classic", ["greedy", "deep_blue"], None),
                                   ("classic", ["greedy", "greedy"], None),
                                   ("classic", ["greedy"], 1), ("classic", ["greedy"], 201)):
        with pytest.raises(InvalidEvaluationError):
            start_evaluation(stores, robo, preset, anchors, time.time(), max_deals=deals)
    assert stores.evaluations.indexed("robo", time.time()) == []  # nothing was started


def test_a_bot_that_always_finishes_behind_is_found_weaker_after_two_deals_of_two_games(
        stores: Stores) -> None:
    robo = bot_account(stores)
    started = start_evaluation(stores, robo, "classic", ["random", "greedy"], time.time(),
                               max_deals=6, seed="s1")
    assert started.status == "queued"
    done, heard = run_to_the_end(stores, robo, started.evaluation_id, resigns)
    assert done.status == "done" and done.finished is not None
    for run in done.runs:
        # every deal a loss: the test decides as soon as it may (two deals), well within 6
        assert run.stop == "weaker" and [d.number for d in run.deals] == [0, 1]
        for deal in run.deals:
            assert deal.places == ((2, 1), (1, 2))  # the account resigned in both seats
            states = [stores.games.load(g).state for g in deal.games]
            # dealt from the evaluation's seed, once from each seat, unrated, clocked
            assert [s.seed for s in states] == [f"s1-{deal.number}"] * 2
            assert [list(s.accounts) for s in states] == [["robo", None], [None, "robo"]]
            assert [list(s.bots) for s in states] == [[None, run.anchor], [run.anchor, None]]
            assert not any(s.rated for s in states)
            assert all(s.turn_seconds == 60 for s in states)
            assert all(s.seeded_by_creator for s in states)  # the account chose "s1"
            assert [evaluation_of(g) for g in deal.games] == [done.evaluation_id] * 2
    results = evaluation_json(done)["results"]
    assert isinstance(results, list)
    for result in results:
        assert result["deals"] == 2 and result["share"] == 0.0 and result["stop"] == "weaker"
        # two deals tell little: the interval is wide, and reaches past the anchor
        assert result["elo_low"] <= result["elo"] < 0 < result["elo_high"]
        assert len(result["games"]) == 4
    # its bot played from its stream, and heard the progress, the last one done
    kinds = {n["type"] for n in heard}
    assert {"game_started", "your_turn", "game_finished", "evaluation_progress"} <= kinds
    progress = [n for n in heard if n["type"] == "evaluation_progress"]
    assert progress[-1]["status"] == "done"
    assert progress[-1]["results"] == results_without_games(results)


def results_without_games(results: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in r.items() if k != "games"} for r in results]


def test_the_figures_are_the_duplicate_matchs_on_the_same_deals_and_seats(
        stores: Stores) -> None:
    """What ``python -m service.match --duplicate --seed s2 --bots <bot>,greedy
    --sprt -50,50`` reports for the same deals, read off the evaluation's own games."""
    robo = bot_account(stores)
    started = start_evaluation(stores, robo, "classic", ["greedy"], time.time(),
                               max_deals=3, seed="s2")
    done, _ = run_to_the_end(stores, robo, started.evaluation_id, resigns)
    [run] = done.runs
    deals = []
    for deal in run.deals:
        states = [stores.games.load(g).state for g in deal.games]
        seats = tuple(tuple(BOT if a == "robo" else "greedy" for a in s.accounts or ())
                      for s in states)
        assert seats == tuple(tuple(r) for r in rotations([BOT, "greedy"]))
        # the account resigned: behind whatever its total
        deals.append(Deal(states[0].seed, seats, tuple(
            tuple(1000 if a == "robo" else 0 for a in s.accounts or ()) for s in states)))
    offline = report(deals, [BOT, "greedy"], SPRT)
    [pair] = offline["pairs"]
    [result] = evaluation_json(done)["results"]  # type: ignore[misc]
    assert [d.seed for d in deals] == ["s2-0", "s2-1"]
    assert (result["elo"], result["elo_low"], result["elo_high"], result["deals"]) == (
        pair["elo"], pair["elo_low"], pair["elo_high"], pair["deals"])
    assert offline["sprt"]["verdict"] == "H0" and result["stop"] == "weaker"


def test_an_aborted_game_voids_its_deal_which_is_dealt_again_up_to_twice_the_limit(
        stores: Stores) -> None:
    robo = bot_account(stores)
    started = start_evaluation(stores, robo, "classic", ["random"], time.time(),
                               max_deals=2, seed="s3")
    done, _ = run_to_the_end(stores, robo, started.evaluation_id, aborts)
    [run] = done.runs
    # no deal had a result; deals 0 to 3 were dealt, each void, then the limit
    assert [(d.number, d.places) for d in run.deals] == [(n, ()) for n in range(4)]
    assert run.stop == "deal_limit"
    assert [stores.games.load(game_id_for(done.evaluation_id, "random", n, 0)).state.seed
            for n in range(4)] == [f"s3-{n}" for n in range(4)]
    [result] = evaluation_json(done)["results"]  # type: ignore[misc]
    assert result["deals"] == 0 and result["elo"] is None


def evaluation(runs: tuple[AnchorRun, ...], max_deals: int = 10) -> Evaluation:
    return Evaluation("e" * 12, "robo", "classic", "s", max_deals, "running", 1.0, runs)


def finished(number: int, ahead: float) -> PlayedDeal:
    """A finished deal of which the account won ``ahead`` of its two games (a half: a tie
    in each)."""
    places = {1.0: ((1, 2), (2, 1)), 0.5: ((1, 1), (1, 1)), 0.0: ((2, 1), (1, 2))}[ahead]
    return PlayedDeal(number, (f"g{number}a", f"g{number}b"), places)


def test_deals_go_on_while_the_test_is_undecided_and_stop_at_the_limit() -> None:
    even = AnchorRun("greedy", tuple(finished(n, 0.5 if n % 2 else 1.0) for n in range(3)))
    going = advance(evaluation((even,), max_deals=4), {}, 5.0)
    [run] = going.runs
    assert run.stop is None and going.status == "running"
    assert run.playing is not None and run.playing.number == 3  # the next deal, dealt
    last = {run.playing.games: ((1, 1), (1, 1))}
    stopped = advance(going, last, 6.0)
    assert stopped.runs[0].stop == "deal_limit" and stopped.runs[0].playing is None
    assert stopped.status == "done" and stopped.finished == 6.0


def test_the_sequential_test_stops_a_bot_far_ahead_or_far_behind_as_soon_as_it_may() -> None:
    one_ahead = AnchorRun("random", (finished(0, 1.0),))
    two_ahead = AnchorRun("random", (finished(0, 1.0), finished(1, 1.0)))
    two_behind = AnchorRun("strong", (finished(0, 0.0), finished(1, 0.0)))
    after = advance(evaluation((one_ahead, two_ahead, two_behind)), {}, 2.0)
    assert [r.stop for r in after.runs] == [None, "stronger", "weaker"]
    assert after.status == "running"


def test_a_visit_keeps_at_most_four_games_in_play_and_deals_for_the_others_later() -> None:
    fresh = evaluation(tuple(AnchorRun(a) for a in ("random", "greedy", "strong")))
    first = advance(dataclasses.replace(fresh, status="queued"), {}, 1.0)
    playing = [r.playing for r in first.runs]
    assert sum(2 for p in playing if p is not None) == GAMES_AT_ONCE
    assert playing[2] is None and first.status == "running"
    assert [p.games for p in playing if p is not None] == [
        tuple(game_id_for("e" * 12, a, 0, r) for r in (0, 1)) for a in ("random", "greedy")]
    assert all(evaluation_of(g) == "e" * 12 and tournament_of(g) is None
               for p in playing if p is not None for g in p.games)
    over = {playing[0].games: ((1, 2), (2, 1))} if playing[0] is not None else {}
    second = advance(first, over, 2.0)
    assert [r.playing.number if r.playing else None for r in second.runs] == [None, 0, 0]
    assert [len(r.finished) for r in second.runs] == [1, 0, 0]
    assert second.runs[0].stop is None  # one deal decides nothing: dealt again once room


def test_one_evaluation_at_a_time_and_each_account_reads_only_its_own(stores: Stores) -> None:
    robo, droid = bot_account(stores, "robo"), bot_account(stores, "droid")
    mine = start_evaluation(stores, robo, "classic", ["greedy"], time.time(), max_deals=2)
    with pytest.raises(TooManyEvaluationsError) as refused:
        start_evaluation(stores, robo, "bga", ["random"], time.time())
    assert refused.value.details["evaluation_id"] == mine.evaluation_id
    theirs = start_evaluation(stores, droid, "classic", ["greedy"], time.time())  # its own
    assert read_evaluation(stores, robo, mine.evaluation_id) == mine
    with pytest.raises(UnknownEvaluationError):
        read_evaluation(stores, robo, theirs.evaluation_id)
    with pytest.raises(UnknownEvaluationError):
        read_evaluation(stores, robo, "nothing-here")
    # a seed the service drew deals every card: told only once the evaluation is done
    assert evaluation_json(mine)["seed"] is None
    over, _ = run_to_the_end(stores, robo, mine.evaluation_id, resigns)
    assert evaluation_json(over)["seed"] == over.seed == mine.seed
    first_game = stores.games.load(over.runs[0].deals[0].games[0]).state
    assert first_game.seed == f"{mine.seed}-0" and not first_game.seeded_by_creator
    again = start_evaluation(stores, robo, "bga", ["random"], time.time(), max_deals=2)
    assert again.evaluation_id != mine.evaluation_id  # the last one done: a new one runs


def test_a_closed_account_has_its_anchors_canceled_once_their_deals_in_play_end() -> None:
    playing = AnchorRun("greedy", (finished(0, 1.0), PlayedDeal(1, ("g1a", "g1b"))))
    waiting = AnchorRun("strong", (finished(0, 0.5),))
    after = advance(evaluation((playing, waiting)), {}, 3.0, closed=True)
    assert [r.stop for r in after.runs] == [None, "canceled"]  # its seat times out first
    assert after.runs[0].playing is not None and after.status == "running"
    ended = advance(after, {("g1a", "g1b"): ((2, 1), (1, 2))}, 4.0, closed=True)
    assert [r.stop for r in ended.runs] == ["canceled", "canceled"] and ended.status == "done"
