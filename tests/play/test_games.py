"""``service/play/games.py`` on the in-memory stores: seats, tokens, the compare-and-set
loop, idempotent replies and waiting for a turn."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import orjson
import pytest

from service import play
from service.core.cards import card_name
from service.core.errors import IllegalActionError, NotYourTurnError
from service.engine import Event, GameState, apply
from service.play import AuthError, UnknownSeatError
from service.play.credentials import hash_token
from service.play.errors import (
    IdempotencyKeyReusedError,
    IdempotencyKeySupersededError,
    PreconditionFailedError,
    SeatsOpenError,
    SeatTakenError,
)
from service.storage import GameRecord, StoredReply, Stores
from service.storage.memory import MemoryGameStore, Shared

from .conftest import with_games

DRAW = {"type": "draw", "source": "stock"}


def _game(stores: Stores, names: Sequence[str | None] = ("ann", "bob")
          ) -> tuple[GameRecord, list[str | None]]:
    return play.create_game(stores, {"preset": "classic"}, list(names), "7")


def _on_turn(record: GameRecord, tokens: list[str | None]) -> tuple[int, str]:
    seat = record.state.current_seat
    assert seat is not None
    token = tokens[seat]
    assert token is not None
    return seat, token


def test_a_created_game_is_stored_with_token_hashes_and_its_opening_event(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    loaded = stores.games.load(record.game_id)
    assert loaded == record
    assert all(t is not None and play.hash_token(t) in loaded.token_hashes for t in tokens)
    assert [e.type for e in stores.games.events(record.game_id, 0, 10)] == ["round_started"]


def test_a_token_names_its_seat_and_a_foreign_token_is_refused(stores: Stores) -> None:
    record, tokens = _game(stores)
    assert [play.seat_of(record, hash_token(t)) for t in tokens] == [0, 1]
    assert play.seat_of(record, None) is None
    with pytest.raises(AuthError):
        play.seat_of(record, hash_token("not-a-token"))


def test_claiming_a_seat_is_a_new_version_with_an_engine_made_event(
    stores: Stores,
) -> None:
    record, _ = _game(stores, ("ann", None))
    claimed, token = play.claim_seat(stores, record.game_id, 1, "bob")
    assert claimed.state.version == record.state.version + 1
    assert claimed.state.names == ("ann", "bob") and claimed.open_seats == []
    assert play.seat_of(stores.games.load(record.game_id), hash_token(token)) == 1
    events = stores.games.events(record.game_id, record.state.event_seq, 10)
    assert [(e.type, e.public) for e in events] == [("seat_claimed", {"seat": 1, "name": "bob"})]
    assert events[0].seq == claimed.state.event_seq


def test_a_taken_or_missing_seat_cannot_be_claimed(stores: Stores) -> None:
    record, _ = _game(stores, ("ann", None))
    with pytest.raises(SeatTakenError):
        play.claim_seat(stores, record.game_id, 0, "eve")
    with pytest.raises(UnknownSeatError):
        play.claim_seat(stores, record.game_id, 2, "eve")


def test_nobody_acts_while_a_seat_is_open(stores: Stores) -> None:
    record, tokens = _game(stores, ("ann", None))
    with pytest.raises(SeatsOpenError):
        play.act(stores, record.game_id, hash_token(tokens[0]), DRAW)


def test_an_action_returns_the_saved_state_and_seat_for_the_caller_to_render(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    seat, token = _on_turn(record, tokens)
    result = play.act(stores, record.game_id, hash_token(token), DRAW)
    assert result.seat == seat and not result.replayed and result.reply is None
    assert result.state == stores.games.load(record.game_id).state
    assert result.state is not None and result.state.version == 1


def test_acting_needs_a_token_of_the_seat_on_turn(stores: Stores) -> None:
    record, tokens = _game(stores)
    seat, _ = _on_turn(record, tokens)
    with pytest.raises(AuthError):
        play.act(stores, record.game_id, None, DRAW)
    with pytest.raises(NotYourTurnError):
        play.act(stores, record.game_id, hash_token(tokens[1 - seat]), DRAW)


def test_if_match_on_a_stale_version_is_refused_and_nothing_is_saved(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    _, token = _on_turn(record, tokens)
    with pytest.raises(PreconditionFailedError):
        play.act(stores, record.game_id, hash_token(token), DRAW, if_match=lambda v: v == 5)
    assert stores.games.load(record.game_id).state.version == 0


class _Interleaved(MemoryGameStore):
    """A game store where another request's move lands between this request's load and save."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(shared)
        self.cut_in: list[tuple[GameState, list[Event]]] = []

    def save(self, game_id: str, expected_version: int, state: GameState,  # type: ignore[override]
             events: Sequence[Event], **kwargs: object) -> StoredReply | None:
        if self.cut_in:
            other, other_events = self.cut_in.pop()
            super().save(game_id, expected_version, other, other_events)
        return super().save(game_id, expected_version, state, events, **kwargs)  # type: ignore[arg-type]


def test_a_lost_race_without_if_match_is_revalidated_on_the_newer_state() -> None:
    stores = with_games(_Interleaved)
    record, tokens = _game(stores)
    seat, token = _on_turn(record, tokens)
    # the same seat's draw lands first (say, from a second connection of the same bot)
    stores.games.cut_in.append(apply(record.state, seat, DRAW))
    with pytest.raises(IllegalActionError):  # the engine re-checks the draw: drawn already
        play.act(stores, record.game_id, hash_token(token), DRAW)
    assert stores.games.load(record.game_id).state.version == 1  # only the first draw was applied


def test_a_lost_race_with_if_match_is_a_precondition_failure() -> None:
    stores = with_games(_Interleaved)
    record, tokens = _game(stores)
    seat, token = _on_turn(record, tokens)
    stores.games.cut_in.append(apply(record.state, seat, DRAW))
    with pytest.raises(PreconditionFailedError):
        play.act(stores, record.game_id, hash_token(token), DRAW, if_match=lambda v: v == 0)


def test_an_idempotent_retry_gets_the_first_reply_byte_for_byte_and_acts_once(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    seat, token = _on_turn(record, tokens)
    first = play.act(stores, record.game_id, hash_token(token), DRAW, idempotency_key="k")
    assert first.reply is not None and first.state is not None and not first.replayed
    assert first.reply.body == play.game_view_bytes(record.game_id, first.state, seat)
    assert first.reply.etag == '"1"'
    again = play.act(stores, record.game_id, hash_token(token), DRAW, idempotency_key="k")
    assert again.replayed and again.reply == first.reply and again.state is None
    assert stores.games.load(record.game_id).state.version == 1
    assert orjson.loads(again.reply.body)["you"]["seat"] == seat


def test_an_older_idempotency_key_of_the_seat_is_refused_as_superseded_and_acts_not_again(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    seat, token = _on_turn(record, tokens)
    drew = play.act(stores, record.game_id, hash_token(token), DRAW, idempotency_key="k1")
    assert drew.state is not None
    card = card_name(drew.state.hands[seat][0])
    play.act(stores, record.game_id, hash_token(token), {"type": "discard", "card": card},
             idempotency_key="k2")
    with pytest.raises(IdempotencyKeySupersededError):
        play.act(stores, record.game_id, hash_token(token), DRAW, idempotency_key="k1")
    assert stores.games.load(record.game_id).state.version == 2


def test_an_idempotency_key_reused_with_another_body_is_refused(stores: Stores) -> None:
    record, tokens = _game(stores)
    _, token = _on_turn(record, tokens)
    play.act(stores, record.game_id, hash_token(token), DRAW, idempotency_key="k")
    with pytest.raises(IdempotencyKeyReusedError):
        play.act(stores, record.game_id, hash_token(token), {"type": "draw", "source": "discard"},
                 idempotency_key="k")


def test_waiting_for_the_turn_sleeps_through_nothing_and_wakes_when_the_turn_comes(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    seat, token = _on_turn(record, tokens)
    other = 1 - seat
    timed_out, _, _ = play.view_when(stores, record.game_id, hash_token(tokens[other]), play.on_turn, 0.05)
    assert timed_out.state.version == 0  # nothing happened: the game as it was

    def play_the_turn() -> None:
        drawn = play.act(stores, record.game_id, hash_token(token), DRAW)
        assert drawn.state is not None
        card = drawn.state.hands[seat][0]
        play.act(stores, record.game_id, hash_token(token), {"type": "discard", "card": card_name(card)})

    mover = threading.Thread(target=play_the_turn)
    mover.start()
    woken, _, body = play.view_when(stores, record.game_id, hash_token(tokens[other]), play.on_turn, 10)
    mover.join()
    assert woken.state.current_seat == other and play.may_act(woken, other)
    assert orjson.loads(body)["legal_actions"]  # the view rendered for the woken seat


def test_waiting_for_events_returns_at_once_when_there_are_some_and_wakes_on_the_next(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    _, token = _on_turn(record, tokens)
    newest = record.state.event_seq
    assert play.events_when(stores.games, record.game_id, 0, 10, 5)  # the deal: no wait
    assert play.events_when(stores.games, record.game_id, newest, 10, 0.05) == []
    mover = threading.Timer(0.05, lambda: play.act(stores, record.game_id, hash_token(token), DRAW))
    mover.start()
    woken = play.events_when(stores.games, record.game_id, newest, 10, 10)
    mover.join()
    assert [e.type for e in woken] == ["draw"]
