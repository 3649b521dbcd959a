"""Records of games with human seats, played on the engine as the service plays them:
every move is ``greedy``'s, made by whoever the engine says may make it now (the seat's
player for a human seat, the service for a bot seat, the stand-in of an away or resigned
seat, or the rest of a turn whose clock ran out). What the analysis' tests need and
in-process bot games cannot give: seats whose moves are partly their player's and
partly the service's, and long stalled rounds.
"""

from __future__ import annotations

from typing import Any

from service.bots.playout import greedy_move
from service.core.rules import resolve_rules
from service.engine import Event, GameState, apply, new_game, opening_events
from service.engine.seats import PLAYER, actor_of, time_out
from service.verify.record import build_record

__all__ = ["away_after_one_draw", "resigned_after_one_draw", "stalled"]

#: Three short rounds: a few dozen decisions a seat.
RULES = {"preset": "classic", "hand_sizes": [3, 4, 5]}


class _Game:
    """A game being played, its event log kept for its record."""

    def __init__(self, rules: dict[str, Any], names: list[str | None], seed: str,
                 bots: list[str | None] | None = None) -> None:
        self.state: GameState = new_game(resolve_rules(rules), names, seed, seed_salt=seed,
                                         bots=bots, turn_seconds=60)
        self.log: list[Event] = list(opening_events(self.state))

    def made(self, step: tuple[GameState, list[Event]]) -> None:
        self.state, events = step
        self.log.extend(events)

    def move(self) -> None:
        """The seat on turn makes greedy's move, by whoever may move it now."""
        seat = self.state.current_seat
        assert seat is not None
        self.made(apply(self.state, seat, greedy_move(self.state, seat),
                        actor_of(self.state, seat)))

    def record(self) -> dict[str, Any]:
        while not self.state.finished:
            self.move()
        return build_record(f"test:{self.state.seed}", self.state, self.log,
                            created_at=None, finished_at=0.0)


def resigned_after_one_draw(seed: str = "resigned") -> tuple[dict[str, Any], int]:
    """A game of two human seats and a ``greedy`` bot seat in which the first seat on
    turn draws, resigns, and the stand-in plays it to the end: the record and that seat."""
    game = _Game(RULES, ["ann", "bob", None], seed, [None, None, "greedy"])
    seat = game.state.current_seat
    assert seat is not None and seat != 2
    game.move()
    game.made(apply(game.state, seat, {"type": "resign"}, PLAYER))
    return game.record(), seat


def away_after_one_draw(seed: str = "away") -> tuple[dict[str, Any], int]:
    """A game of three human seats in which the first seat on turn draws, lets its clock
    run out (the stand-in discards), and its next turn times out too, so it is away and
    the stand-in plays it to the end: the record and that seat."""
    game = _Game(RULES, ["ann", "bob", "cid"], seed)
    seat = game.state.current_seat
    assert seat is not None
    game.move()
    game.made(time_out(game.state, seat))
    while game.state.current_seat != seat or game.state.turn_timed_out:
        game.move()
    game.made(time_out(game.state, seat))  # the second in a row: away
    return game.record(), seat


def stalled(turns: int, hand_size: int = 13, seed: str = "stalled") -> dict[str, Any]:
    """A game of two human seats and one round in which nobody ever goes out: each turn
    draws from the stock and discards the card drawn, until the rules' ``turn_limit``
    (``turns`` each) ends the round."""
    rules = {"preset": "classic", "hand_sizes": [hand_size], "turn_limit": turns}
    game = _Game(rules, ["ann", "bob"], seed)
    while not game.state.finished:
        seat = game.state.current_seat
        assert seat is not None
        game.made(apply(game.state, seat, {"type": "draw", "source": "stock"}, PLAYER))
        drawn = game.log[-1].for_seat(seat)["card"]
        game.made(apply(game.state, seat, {"type": "discard", "card": drawn}, PLAYER))
    return game.record()
