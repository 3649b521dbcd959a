"""Automatic analysis (``analyse_rated``): a rated game of an account that asked for it is
queued for analysis when it finishes, by the game-finished effect (``service/play/
effects.py``), once however often the effect runs, within the account's quota
(``ANALYSIS_AUTO_PER_DAY`` in any 24 hours), on the in-memory stores. Past the quota the
game is skipped and the account hears ``analysis_skipped``; a game queued already costs
nobody anything; an account that did not ask, or an unrated game, gets no analysis."""

from __future__ import annotations

import time

from service import play
from service.config import Config
from service.play import create_account, update_settings
from service.play.effects import run_effects
from service.storage import Account, Stores, memory_stores

from .finished_games import finish_game

CLASSIC = {"preset": "classic"}  # a rated game's rules are its preset's, unchanged
DAY = 24 * 3600


def accounts(stores: Stores, *handles: str, asked: tuple[str, ...] = ()) -> list[Account]:
    """New accounts; those of ``asked`` set ``analyse_rated``."""
    made = [create_account(stores, h, False)[0] for h in handles]
    return [update_settings(stores, a, analyse_rated=True) if a.handle in asked else a
            for a in made]


def skipped(stores: Stores, handle: str) -> list[dict[str, object]]:
    return [dict(n.body) for n in stores.accounts.notes(handle, 0, 10_000)
            if n.body["type"] == "analysis_skipped"]


def run_again(stores: Stores, game_id: str, now: float) -> None:
    """The game's effects run once more from its first event (a visit after a process
    died halfway through them)."""
    stores.games.shared.games[game_id].handled = 0  # type: ignore[attr-defined]
    assert run_effects(stores, game_id, now) > 0


def test_a_rated_game_of_an_account_that_asked_is_queued_once_however_often_its_effect_runs(
        stores: Stores) -> None:
    ann, bob = accounts(stores, "ann", "bob", asked=("ann",))
    now = time.time()
    game = finish_game(stores, [ann, bob], "auto1", rules=CLASSIC, rated=True, at=now)
    state = stores.analyses.load(game)
    assert state is not None and state.status == "queued"
    assert stores.analyses.queued() == 1
    assert stores.analyses.charged("ann", now) == 1
    assert stores.analyses.charged("bob", now) == 0  # bob did not ask: nothing of his
    run_again(stores, game, now)
    run_again(stores, game, now + 60)
    assert stores.analyses.queued() == 1
    assert stores.analyses.charged("ann", now + 60) == 1
    taken = stores.analyses.take("w", 0.0, 120.0)
    assert taken is not None and taken.game_id == game
    assert taken.requester == play.requester_of("account:ann")  # the account's turn
    assert skipped(stores, "ann") == []


def test_an_account_that_did_not_ask_or_an_unrated_game_gets_no_analysis(
        stores: Stores) -> None:
    ann, bob = accounts(stores, "ann", "bob")
    rated = finish_game(stores, [ann, bob], "auto2", rules=CLASSIC, rated=True)
    assert stores.analyses.load(rated) is None
    ann = update_settings(stores, ann, analyse_rated=True)
    unrated = finish_game(stores, [ann, bob], "auto3", rules=CLASSIC)
    assert stores.analyses.load(unrated) is None
    assert stores.analyses.queued() == 0
    assert stores.analyses.charged("ann", time.time()) == 0


def test_the_quota_skips_the_next_rated_game_within_a_day_says_so_once_and_rolls_on() -> None:
    stores = memory_stores(Config(analysis_auto_per_day=2))
    ann, bob, cid = accounts(stores, "ann", "bob", "cid", asked=("ann", "bob"))
    t = time.time()
    # ann's and bob's game: queued for ann (seat 0), so bob's asking costs him nothing
    shared = finish_game(stores, [ann, bob], "q0", rules=CLASSIC, rated=True, at=t)
    assert stores.analyses.charged("ann", t) == 1 and stores.analyses.charged("bob", t) == 0
    second = finish_game(stores, [ann, cid], "q1", rules=CLASSIC, rated=True, at=t + 10)
    third = finish_game(stores, [ann, cid], "q2", rules=CLASSIC, rated=True, at=t + 20)
    assert [stores.analyses.load(g) is not None for g in (shared, second, third)] == [
        True, True, False]
    assert stores.analyses.charged("ann", t + 20) == 2
    [note] = skipped(stores, "ann")
    assert note["game_id"] == third and note["reason"] == "quota" and note["per_day"] == 2
    run_again(stores, third, t + 30)  # still past the quota: skipped, and told once
    assert stores.analyses.load(third) is None and len(skipped(stores, "ann")) == 1
    assert skipped(stores, "cid") == []
    # a day after the first game, one place is free again
    later = finish_game(stores, [ann, cid], "q3", rules=CLASSIC, rated=True, at=t + DAY + 1)
    assert stores.analyses.load(later) is not None
    assert stores.analyses.charged("ann", t + DAY + 1) == 2  # the second and this one


def test_a_full_queue_skips_the_game_uncounted_and_says_so() -> None:
    stores = memory_stores(Config(analysis_queue_max=1))
    ann, bob = accounts(stores, "ann", "bob", asked=("ann",))
    stores.analyses.request("other", time.time(), 1, "someone")  # the queue is full
    game = finish_game(stores, [ann, bob], "busy", rules=CLASSIC, rated=True)
    assert stores.analyses.load(game) is None
    assert stores.analyses.charged("ann", time.time()) == 0
    [note] = skipped(stores, "ann")
    assert note["game_id"] == game and note["reason"] == "busy"
