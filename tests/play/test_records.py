"""Records on the service layer: every way a game is played (humans, bots, resignations,
time-outs mixed with a human's own moves) finishes with a record the verifier accepts,
written once by the finishing save and never by a read."""

from __future__ import annotations

import random
import zlib
from typing import Any

import orjson
import pytest

from service.engine import view
from service.play import act, create_game, game_record, view_at
from service.play.credentials import hash_token
from service.play.errors import GameNotFinishedError, RecordNotReplayableError
from service.storage import Stores, UnknownGameError
from service.storage.memory import MemoryGameStore
from service.verify import verify

from .conftest import drain, play_out, with_games

SHORT = {"preset": "classic", "hand_sizes": [3, 4, 5]}


def _record(stores: Stores, game_id: str) -> dict:
    assert stores.records.load_record(game_id) is not None, "the finishing save wrote no record"
    record = game_record(stores, game_id).body
    return record


def test_a_game_of_bot_seats_has_a_record_that_verifies(stores: Stores) -> None:
    record, _ = create_game(stores, SHORT, [None] * 3, "bots", bots=["greedy", "strong", "random"])
    drain(stores)
    kept = _record(stores, record.game_id)
    assert [p["kind"] for p in kept["players"]] == ["bot"] * 3
    assert verify(kept) == []


def test_time_outs_between_a_humans_own_moves_replay_to_the_same_counts(
        stores: Stores) -> None:
    """A human's own move ends its run of time-outs; the replay must know which moves were
    its own, or the next time-out's count (and the seat going away) would differ."""
    now = [1000.0]
    created, tokens = create_game(stores, SHORT, ["ann", "bob"], "clock", turn_seconds=5,
                                  now=now[0])
    game_id, rng = created.game_id, random.Random(3)
    while not (state := stores.games.load(game_id).state).finished:
        seat = state.current_seat
        assert seat is not None
        if rng.random() < 0.3 or state.seat_kinds[seat] != "human":
            now[0] = (state.turn_deadline or now[0]) + 0.5
            drain(stores, clock=lambda: now[0])
        else:
            act(stores, game_id, hash_token(tokens[seat]), rng.choice(view(state, seat)["legal_actions"]))
    kept = _record(stores, game_id)
    assert sum(a["type"] == "time_out" for a in kept["actions"]) >= 3
    assert verify(kept) == []


def test_a_resigned_game_has_a_record_naming_the_resigned_seats(stores: Stores) -> None:
    created, tokens = create_game(stores, SHORT, ["ann", "bob", "cat"], "resign")
    act(stores, created.game_id, hash_token(tokens[1]), {"type": "resign"})
    play_out(stores, created.game_id, {0: tokens[0], 2: tokens[2]})
    kept = _record(stores, created.game_id)
    assert [p["kind"] for p in kept["players"]] == ["human", "resigned", "human"]
    assert [p["played_by"] for p in kept["players"]] == [None, "greedy", None]
    assert 1 not in kept["winners"] and kept["finish_reason"] == "completed"
    assert verify(kept) == []


def test_a_game_its_other_players_resigned_from_has_a_record_of_its_early_end(
        stores: Stores) -> None:
    created, tokens = create_game(stores, SHORT, ["ann", "bob", "cat"], "last")
    act(stores, created.game_id, hash_token(tokens[2]), {"type": "resign"})
    act(stores, created.game_id, hash_token(tokens[0]), {"type": "resign"})
    kept = _record(stores, created.game_id)
    assert kept["finish_reason"] == "resigned" and kept["winners"] == [1]
    assert verify(kept) == []


def test_a_record_is_never_replaced(stores: Stores) -> None:
    created, _ = create_game(stores, SHORT, [None, None], "once", bots=["greedy", "greedy"])
    drain(stores)
    first = stores.records.load_record(created.game_id)
    assert first is not None
    state = stores.games.load(created.game_id).state
    stores.games.save(created.game_id, state.version, state, [], record=b"another")
    assert stores.records.load_record(created.game_id) == first


def test_a_record_is_asked_in_vain_before_the_end_and_after_its_game_is_gone(
        stores: Stores) -> None:
    created, _ = create_game(stores, SHORT, ["ann", "bob"], "early")
    with pytest.raises(GameNotFinishedError):
        game_record(stores, created.game_id)
    with pytest.raises(UnknownGameError):
        game_record(stores, "never-made")


def test_a_game_that_finishes_between_the_records_two_reads_is_answered_with_its_record(
        stores: Stores) -> None:
    created, _ = create_game(stores, SHORT, [None, None], "race", bots=["greedy", "greedy"])
    drain(stores)
    load, reads = stores.records.load_record, []

    def finished_just_after_the_first_read(game_id: str) -> bytes | None:
        reads.append(game_id)
        return None if len(reads) == 1 else load(game_id)

    stores.records.load_record = finished_just_after_the_first_read  # type: ignore[method-assign]
    record = game_record(stores, created.game_id).body
    assert verify(record) == [] and len(reads) == 2


class ForgetsRecords(MemoryGameStore):
    """A game store whose finishing saves keep no record (as a game finished before
    records were kept, or one whose record was lost)."""

    def save(self, *args: Any, **kwargs: Any) -> Any:
        return super().save(*args, **{**kwargs, "record": None})


def test_a_finished_game_without_a_record_is_answered_as_unknown_and_none_is_made() -> None:
    stores = with_games(ForgetsRecords)
    created, _ = create_game(stores, SHORT, [None, None], "lost", bots=["greedy", "greedy"])
    drain(stores)
    assert stores.games.load(created.game_id).state.finished
    with pytest.raises(UnknownGameError):  # the API's 404 unknown_game, as an expired record
        game_record(stores, created.game_id)
    with pytest.raises(UnknownGameError):
        view_at(stores, created.game_id, None, 0)
    assert stores.records.load_record(created.game_id) is None


def test_a_past_view_of_a_record_of_an_older_format_is_refused_as_not_replayable(
        stores: Stores) -> None:
    created, _ = create_game(stores, SHORT, [None, None], "old", bots=["greedy", "greedy"])
    drain(stores)
    blob = stores.records.load_record(created.game_id)
    assert blob is not None
    data = orjson.loads(zlib.decompress(blob))
    data["record"]["format"] = "three-thirteen-record/1"
    stores.games.shared.records[created.game_id] = zlib.compress(orjson.dumps(data))  # type: ignore[attr-defined]
    with pytest.raises(RecordNotReplayableError):
        view_at(stores, created.game_id, None, 1)
