"""The rating workers end to end on a real Redis: 200 rated games finished while two
``python -m service.workers`` processes apply them, one of them killed by SIGKILL twice
(and started again), and every account's rating, games count and history equal to a
single-threaded replay of the same results, in the order the games finished.

The games are made through the service layer on the test's Redis (this process): rated
games of 2 to 4 of twelve accounts, each ended by every seat but a random one resigning
(a resigned seat places below every seat that did not: the winner beats everyone, the
resigned share a place). What the workers see is what a finished game leaves: its record
and its place on the rating queue."""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from service.config import Config
from service.play import act, admission, create_account, create_game, game_record
from service.play.credentials import account_credential
from service.play.ratings import SYSTEM
from service.ratings import Rating, Seat, rate_table
from service.storage import Stores, redis_stores
from tests.api.workers import Workers
from tests.conftest import PATIENCE, wait_until
from tests.play.finished_games import agreed

HANDLES = [f"p{i:02d}" for i in range(12)]
GAMES = 200
KILLS_AT = (50, 130)


@pytest.fixture
def stores(config: Config, redis_db: Any) -> Iterator[Stores]:
    made = redis_stores(config)
    yield made
    made.close()


@pytest.fixture
def workers(config: Config, tmp_path: Path) -> Iterator[Workers]:
    made = Workers(config, tmp_path)
    yield made
    made.close()


def finish_rated_game(stores: Stores, rng: random.Random) -> str:
    handles = rng.sample(HANDLES, rng.randint(2, 4))
    accounts = [stores.accounts.load(h) for h in handles]
    record, _ = create_game(stores, {"preset": "classic"}, handles, None, turn_seconds=600,
                            accounts=accounts, rated=True,
                            agreed=agreed(*accounts))
    winner = rng.randrange(len(handles))
    for seat in rng.sample(range(len(handles)), len(handles)):
        if seat != winner:
            act(stores, record.game_id, account_credential(handles[seat]), {"type": "resign"})
    return record.game_id


def replay(stores: Stores, finished: list[str]) -> dict[str, tuple[Rating, int, float]]:
    """Every game's result applied in finish order, one after another, in this process."""
    now: dict[str, tuple[Rating, int, float]] = {}
    for game_id in finished:
        record = game_record(stores, game_id).body
        at = datetime.fromisoformat(record["finished_at"].replace("Z", "+00:00")).timestamp()
        handles = [p["account"] for p in record["players"]]
        before = []
        for handle in handles:
            rating, games, last = now.get(handle, (SYSTEM.initial, 0, at))
            before.append((SYSTEM.aged(rating, max(0.0, at - last) / 86_400.0), games))
        after = rate_table([Seat(r, place) for (r, _), place in
                            zip(before, record["places"], strict=True)], SYSTEM)
        for handle, new, (_, games) in zip(handles, after, before, strict=True):
            now[handle] = (new, games + 1, at)
    return now


def test_two_rating_workers_one_killed_twice_apply_two_hundred_games_exactly_once(
        stores: Stores, workers: Workers, monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 rated games among 12 accounts meet the daily pair limit: it is not what this
    # test is about (tests/play/test_admission.py is), so every game here is rated
    monkeypatch.setattr(admission, "RATED_PAIR_LIMIT", GAMES)
    for handle in HANDLES:
        create_account(stores, handle, False)
    first, _ = workers.start(), workers.start()
    rng = random.Random(2026)
    finished = []
    for n in range(GAMES):
        if n in KILLS_AT:  # while games are queued and being applied
            victim = first if n == KILLS_AT[0] else workers.started[-1][0]
            victim.send_signal(signal.SIGKILL)
            victim.wait(PATIENCE)
            workers.start()
        finished.append(finish_rated_game(stores, rng))
    wait_until(lambda: stores.ratings.head() is None, PATIENCE, "the rating queue drained")
    expected = replay(stores, finished)
    for handle in HANDLES:
        stored = stores.ratings.ratings(handle).get("classic")
        rating, games, _ = expected[handle]
        assert stored is not None and stored.games == games, handle
        assert stored.value.rating == pytest.approx(rating.rating, abs=1e-9), handle
        assert stored.value.deviation == pytest.approx(rating.deviation, abs=1e-9), handle
        points = stores.ratings.history(handle, "classic", 0, 1000)
        assert len(points) == games and len({p.game_id for p in points}) == games
        # in the order the games finished
        assert [p.game_id for p in points] == [g for g in finished if g in
                                               {p.game_id for p in points}]
    # the move workers' safety visits, 5 s after each end, queue nothing again
    time.sleep(6)
    assert stores.ratings.head() is None
    assert sum(stores.ratings.ratings(h)["classic"].games for h in HANDLES) == sum(
        expected[h][1] for h in HANDLES)
    assert "rating worker" not in workers.logs()  # no failure logged
