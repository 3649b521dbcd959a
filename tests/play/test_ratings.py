"""Ratings in the service layer, on the in-memory stores: a rated game's end queues it,
the rating worker's step applies it once (whoever runs it, however often, wherever it
stopped), and the ratings read back as profiles, histories and leaderboards.

Glickman's worked example runs here through the whole path: a genuine rated game of four
accounts, its record, and :func:`service.play.ratings.rate_next`."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

import pytest

import service.play.ratings as ratings_module
from service.bots import GreedyBot
from service.core.instants import instant
from service.engine import view
from service.engine.seats import played_by_service
from service.play import act, create_account, create_game, game_record
from service.play.credentials import account_credential
from service.play.errors import UnknownPresetError
from service.play.ratings import (
    BOARD_ACTIVE_DAYS,
    BoardEntry,
    board,
    history,
    rate_next,
    ratings_of,
    retry_set_aside,
)
from service.ratings import Rating, System
from service.storage import HistoryPoint, StoredRating, Stores
from tests.play.conftest import drain
from tests.play.finished_games import agreed

DAY = 86_400.0


def rated_game(stores: Stores, handles: list[str], seed: str | None = None) -> str:
    accounts = [create_account(stores, h, False)[0] if stores.accounts.load(h) is None
                else stores.accounts.load(h) for h in handles]
    record, _ = create_game(stores, {"preset": "classic"}, handles, seed, turn_seconds=600,
                            accounts=accounts, rated=True,
                            agreed=agreed(*accounts))
    return record.game_id


def play_out(stores: Stores, game_id: str, handles: list[str],
             first: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Each account plays greedy's choices (``first[seat]``: that seat's first action
    instead); the game's record once over."""
    first = dict(first or {})
    while not (state := stores.games.load(game_id).state).finished:
        seat = state.current_seat
        assert seat is not None
        if played_by_service(state, seat):  # a resigned seat: the service plays it
            assert drain(stores) > 0
            continue
        action = first.pop(seat, None) or GreedyBot().choose(view(state, seat))
        act(stores, game_id, account_credential(handles[seat]), action)
    return game_record(stores, game_id).body


def ended(record: dict[str, Any]) -> float:
    return datetime.fromisoformat(record["finished_at"].replace("Z", "+00:00")).timestamp()


def settle(stores: Stores, handle: str, rating: float, deviation: float, at: float,
           games: int = 10) -> None:
    """Give ``handle`` a classic rating as of ``at`` (as an earlier game would have)."""
    stored = StoredRating(Rating(rating, deviation, 0.06), games, at)
    point = HistoryPoint(f"before-{handle}", instant(at), rating, deviation, 1, 2, ())
    stores.ratings.apply(handle, "classic", f"before-{handle}", stored, point)


def test_glickmans_worked_example_through_a_rated_game_and_the_rating_worker(
        stores: Stores) -> None:
    handles = ["ann", "bob", "cid", "dee"]
    game_id = rated_game(stores, handles, seed="glicko-4")
    record = play_out(stores, game_id, handles)
    places = record["places"]
    assert sorted(places) == [1, 2, 3, 4], "this seed's game has no tie"
    at_place = {place: handles[seat] for seat, place in enumerate(places)}
    # the paper's player placed third: above 1400/30, below 1550/100 and 1700/300
    for place, (rating, deviation) in {1: (1550, 100), 2: (1700, 300), 3: (1500, 200),
                                       4: (1400, 30)}.items():
        settle(stores, at_place[place], rating, deviation, at=ended(record))
    assert stores.ratings.head() == game_id  # queued by the finishing move
    assert rate_next(stores, time.time(), System(tau=0.5)) == game_id
    player = stores.ratings.ratings(at_place[3])["classic"]
    assert player.value.rating == pytest.approx(1464.06, abs=0.01)
    assert player.value.deviation == pytest.approx(151.52, abs=0.01)
    assert player.value.volatility == pytest.approx(0.05999, abs=0.00001)
    assert player.games == 11
    point = history(stores, at_place[3], "classic", 0, 10)[-1]
    assert point.game_id == game_id and point.place == 3 and point.players == 4


def test_a_resigned_seat_places_last_whatever_its_total(stores: Stores) -> None:
    handles = ["ann", "bob", "cid"]
    game_id = rated_game(stores, handles, seed="resign-3")
    record = play_out(stores, game_id, handles, first={0: {"type": "resign"}})
    assert record["players"][0]["kind"] == "resigned"
    assert record["places"][0] == 3 and 3 not in record["places"][1:]
    rate_next(stores, time.time())
    ann = stores.ratings.ratings("ann")["classic"].value
    assert ann.rating < 1500 and all(
        stores.ratings.ratings(h)["classic"].value.rating > ann.rating for h in ("bob", "cid"))


def test_an_unrated_game_is_never_queued(stores: Stores) -> None:
    ann, bob = (create_account(stores, h, False)[0] for h in ("ann", "bob"))
    record, _ = create_game(stores, {"preset": "classic", "hand_sizes": [3]}, ["ann", "bob"],
                            None, accounts=[ann, bob], agreed=agreed(ann, bob))
    play_out(stores, record.game_id, ["ann", "bob"])
    assert stores.ratings.head() is None and rate_next(stores, time.time()) is None


def test_a_game_queued_again_or_stepped_twice_is_applied_once(stores: Stores) -> None:
    handles = ["ann", "bob"]
    game_id = rated_game(stores, handles)
    play_out(stores, game_id, handles, first={0: {"type": "resign"}})
    assert not stores.ratings.enqueue(game_id, time.time())  # queued by its end already
    rate_next(stores, time.time())
    assert not stores.ratings.enqueue(game_id, time.time())  # applied: not queued again
    assert rate_next(stores, time.time()) is None
    for handle in handles:
        assert stores.ratings.ratings(handle)["classic"].games == 1
        assert len(history(stores, handle, "classic", 0, 10)) == 1


def test_a_worker_stopped_after_one_account_leaves_the_same_numbers_to_the_next(
        stores: Stores) -> None:
    handles = ["ann", "bob", "cid"]
    game_id = rated_game(stores, handles)
    play_out(stores, game_id, handles, first={1: {"type": "resign"}})
    twin = _copy_of_queue_state(stores, game_id)
    # the first worker computed, applied bob's, and died
    from service.play.ratings import _compute
    result = stores.ratings.compute_once(game_id, _compute(stores, game_id, System()))
    seat = result.seats[1]
    stores.ratings.apply(seat.handle, "classic", game_id,
                         StoredRating(seat.after, 1, result.at),
                         HistoryPoint(game_id, instant(result.at), seat.after.rating,
                                      seat.after.deviation, seat.place, 3, ()))
    rate_next(stores, time.time())  # the next worker
    assert {h: stores.ratings.ratings(h)["classic"].value.rating for h in handles} == twin
    assert stores.ratings.head() is None


def _copy_of_queue_state(stores: Stores, game_id: str) -> dict[str, float]:
    """What an uninterrupted step gives each account, computed on the side (not stored)."""
    from service.play.ratings import _compute
    result = _compute(stores, game_id, System())
    assert result is not None
    return {s.handle: s.after.rating for s in result.seats}


def test_a_profile_shows_every_preset_provisional_until_rated_games_settle_it(
        stores: Stores) -> None:
    create_account(stores, "ann", False)
    now = time.time()
    fresh = ratings_of(stores, "ann", False, now)
    assert set(fresh) == {"classic", "bga", "family"}
    assert fresh["classic"].to_json() == {"rating": 1500.0, "deviation": 350.0, "games": 0,
                                          "provisional": True}
    settle(stores, "ann", 1620.0, 60.0, at=now, games=40)
    assert ratings_of(stores, "ann", False, now)["classic"].to_json() == {
        "rating": 1620.0, "deviation": 60.0, "games": 40, "provisional": False}
    # a year away: the deviation as shown has grown (nothing stored changed)
    later = ratings_of(stores, "ann", False, now + 365 * DAY)["classic"]
    assert later.rating == 1620.0 and 100 < later.deviation < 350
    assert stores.ratings.ratings("ann")["classic"].value.deviation == 60.0


def test_a_reference_bots_rating_is_its_anchor_and_a_rated_game_never_moves_it(
        stores: Stores) -> None:
    ann = create_account(stores, "ann", False)[0]
    record, _ = create_game(stores, {"preset": "classic"}, ["ann", "greedy"], None,
                            bots=[None, "greedy"], turn_seconds=600, accounts=[ann, None], agreed=agreed(ann),
                            rated=True)
    act(stores, record.game_id, account_credential("ann"), {"type": "resign"})
    before = ratings_of(stores, "greedy", True, time.time())["classic"]
    rate_next(stores, time.time())
    assert ratings_of(stores, "greedy", True, time.time())["classic"] == before
    assert before.rating == 1500.0 and before.provisional is False
    assert stores.ratings.ratings("ann")["classic"].value.rating < 1500


def test_a_leaderboard_lists_established_recent_ratings_highest_first(stores: Stores) -> None:
    now = time.time()
    for handle, rating, deviation, days_ago in [("ann", 1700, 60, 1), ("bob", 1800, 70, 2),
                                                ("cid", 1900, 200, 1), ("dee", 2000, 60, 40),
                                                ("eve", 1600, 75, 0)]:
        create_account(stores, handle, False)
        at = now - days_ago * DAY
        settle(stores, handle, rating, deviation, at=at)
        stores.ratings.rank("classic", False, handle, rating if deviation <= 75 else None)
    entries = board(stores, "classic", False, 0, 10, now)
    assert [(e.rank, e.handle) for e in entries] == [(1, "bob"), (2, "ann"), (3, "eve")]
    assert days_ago_excluded(entries, "dee") and BOARD_ACTIVE_DAYS < 40
    assert [e.handle for e in board(stores, "classic", False, 1, 1, now)] == ["ann"]
    bots = board(stores, "classic", True, 0, 10, now)
    assert [e.handle for e in bots] == ["expert", "strong", "simple", "greedy", "random"]  # the anchors
    with pytest.raises(UnknownPresetError):
        board(stores, "poker", False, 0, 10, now)


def days_ago_excluded(entries: list[BoardEntry], handle: str) -> bool:
    return handle not in {e.handle for e in entries}


def test_two_accounts_play_each_other_rated_at_most_the_pair_limit_a_day(
        stores: Stores) -> None:
    from service.play import open_challenge
    from service.play.errors import RatedPairLimitedError
    from service.play.ratings import RATED_PAIR_LIMIT
    handles = ["ann", "bob"]
    for _ in range(RATED_PAIR_LIMIT):
        game_id = rated_game(stores, handles)
        play_out(stores, game_id, handles, first={0: {"type": "resign"}})
        rate_next(stores, time.time())
    ann = stores.accounts.load("ann")
    create_account(stores, "cid", False)
    with pytest.raises(RatedPairLimitedError) as refused:
        open_challenge(stores, ann, ["bob"], {"preset": "classic"}, 60, True, 600)
    assert refused.value.details == {"pair": ["ann", "bob"], "cap": RATED_PAIR_LIMIT}
    assert open_challenge(stores, ann, ["bob"], {"preset": "classic"}, 60, False, 600)
    assert open_challenge(stores, ann, ["cid"], {"preset": "classic"}, 60, True, 600)
    # a day later the pair may play rated again
    assert open_challenge(stores, ann, ["bob"], {"preset": "classic"}, 60, True, 600,
                          now=time.time() + DAY + 1)


def test_a_game_that_cannot_be_rated_is_set_aside_and_the_next_is_rated(
        stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    """One bad rated game used to stop every later rating (the worker retried the head
    for ever). It is set aside with why, the next game is rated, and a retry queues it
    again once the cause is gone."""
    bad = rated_game(stores, ["ann", "bob"], "bad")
    good = rated_game(stores, ["cid", "dan"], "good")
    for game_id, handles in ((bad, ["ann", "bob"]), (good, ["cid", "dan"])):
        play_out(stores, game_id, handles, {0: {"type": "resign"}})
    real = ratings_module._compute

    def failing(stores: Stores, game_id: str, system: System) -> Any:
        if game_id == bad:
            raise KeyError("places")
        return real(stores, game_id, system)

    monkeypatch.setattr(ratings_module, "_compute", failing)
    assert rate_next(stores, time.time()) == bad
    assert list(stores.ratings.aside()) == [bad]
    assert "KeyError" in stores.ratings.aside()[bad].why
    assert rate_next(stores, time.time()) == good
    assert ratings_of(stores, "cid", False, time.time())["classic"].games == 1
    assert rate_next(stores, time.time()) is None  # the queue is empty, not stuck
    monkeypatch.setattr(ratings_module, "_compute", real)
    assert retry_set_aside(stores) == [bad] and stores.ratings.aside() == {}
    assert rate_next(stores, time.time()) == bad
    assert ratings_of(stores, "ann", False, time.time())["classic"].games == 1
