"""An account's games (``service/play/mygames.py``) on the memory stores: when it joined
a finished game, and the running turn's deadline whoever is on turn."""

from __future__ import annotations

import time
from datetime import datetime

from service import play
from service.play.credentials import account_credential
from service.storage import Stores

from .finished_games import agreed


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_a_finished_game_says_when_it_was_joined_not_when_it_ended(stores: Stores) -> None:
    ann, _ = play.create_account(stores, "ann", False)
    bob, _ = play.create_account(stores, "bob", False)
    record, _ = play.create_game(stores, {"preset": "classic", "hand_sizes": [3]},
                                 ["ann", "bob"], None, accounts=[ann, bob],
                                 agreed=agreed(ann, bob))
    time.sleep(0.01)  # the end is a later instant than the creation
    resigned_at = time.time()
    play.act(stores, record.game_id, account_credential("bob"), {"type": "resign"})
    [entry], _ = play.my_games(stores, ann, "finished", None, 10)
    assert entry["status"] == "finished" and entry["ended"] is not None
    assert record.created_at is not None
    # joined when the game was made (instants are kept to the millisecond), before the
    # resignation that ended it began: however busy the machine
    assert record.created_at - 0.001 <= _at(entry["joined"]) < resigned_at
    assert _at(entry["joined"]) < _at(entry["ended"])


def test_the_deadline_of_the_turn_being_played_is_shown_to_both_seats(stores: Stores) -> None:
    ann, _ = play.create_account(stores, "ann", False)
    bob, _ = play.create_account(stores, "bob", False)
    record, _ = play.create_game(stores, {"preset": "classic"}, ["ann", "bob"], None,
                                 accounts=[ann, bob], agreed=agreed(ann, bob), turn_seconds=60)
    deadline = record.state.turn_deadline
    assert deadline is not None
    for account in (ann, bob):
        [entry], _ = play.my_games(stores, account, "in_progress", None, 10)
        assert abs(_at(entry["deadline"]) - deadline) < 0.002
    on_turn = record.state.current_seat
    assert [play.my_games(stores, a, "in_progress", None, 10)[0][0]["my_turn"]
            for a in (ann, bob)] == [on_turn == 0, on_turn == 1]
