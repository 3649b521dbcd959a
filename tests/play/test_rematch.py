"""Rematches (``service/play/rematch.py``) on the in-memory stores: the new game reaches the
lobby only once it is announced, so a game made for a request that lost a race stays
out of sight."""

from __future__ import annotations

from typing import Any

from service.play import act, ask_for_rematch, create_game, lobby_page
from service.play.credentials import hash_token
from service.storage import Stores, VersionConflictError
from service.storage.memory import MemoryGameStore, Shared

from .conftest import play_out, with_games

SHORT = {"preset": "classic", "hand_sizes": [3]}


class LosesOneRace(MemoryGameStore):
    """A game store whose next save of ``game_id`` fails as if another request saved first."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(shared)
        self.lose: str | None = None

    def save(self, game_id: str, expected_version: int, *args: Any, **kwargs: Any) -> Any:
        if game_id == self.lose:
            self.lose = None
            raise VersionConflictError(f"{game_id} moved on")
        return super().save(game_id, expected_version, *args, **kwargs)


def finished_game(stores: Stores) -> tuple[str, list[str]]:
    record, tokens = create_game(stores, SHORT, ["ann", "bob", None], "rematch",
                                 bots=[None, None, "greedy"])
    play_out(stores, record.game_id, {0: tokens[0], 1: tokens[1]})
    assert stores.games.load(record.game_id).state.status == "finished"
    return record.game_id, [t for t in tokens if t is not None]


def in_progress(stores: Stores) -> set[str]:
    """The games the lobby offers to watch."""
    return {g["game_id"] for g in lobby_page(stores, "in_progress", limit=100).games}


def test_the_rematch_game_is_listed_once_it_is_announced() -> None:
    stores = with_games(LosesOneRace)
    game_id, tokens = finished_game(stores)
    ask_for_rematch(stores, game_id, hash_token(tokens[0]))
    assert in_progress(stores) == set()
    new_id = ask_for_rematch(stores, game_id, hash_token(tokens[1])).state.rematch_game
    assert new_id is not None and in_progress(stores) == {new_id}


def test_a_rematch_with_a_resigned_players_seat_open_is_listed_among_the_open_games(
        stores: Stores) -> None:
    record, tokens = create_game(stores, SHORT, ["ann", "bob", None], "reopen",
                                 bots=[None, None, "greedy"])
    act(stores, record.game_id, hash_token(tokens[1]), {"type": "resign"})
    play_out(stores, record.game_id, {0: tokens[0]})
    new_id = ask_for_rematch(stores, record.game_id, hash_token(tokens[0])).state.rematch_game
    assert [g["game_id"] for g in lobby_page(stores, "open").games] == [new_id]
    assert in_progress(stores) == set()


def test_a_rematch_game_made_for_a_lost_race_is_neither_announced_nor_listed() -> None:
    stores = with_games(LosesOneRace)
    game_id, tokens = finished_game(stores)
    ask_for_rematch(stores, game_id, hash_token(tokens[0]))
    stores.games.lose = game_id  # bob's first try creates a game, then finds the game moved on
    new_id = ask_for_rematch(stores, game_id, hash_token(tokens[1])).state.rematch_game
    announced = [e.public["game_id"] for e in stores.games.events(game_id, 0, 10_000)
                 if e.type == "rematch_started"]
    assert announced == [new_id]
    assert in_progress(stores) == {new_id}  # the first try's game is not on the lobby
