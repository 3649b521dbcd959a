"""``legal_actions``: exactly the action bodies :func:`apply` accepts now.

The list is exact in both directions (tests prove it on random positions):
every body in it applies, and every other body is refused. Each element is a
contract body a bot can send back unchanged. Order is fixed: draws (stock
first), then discards by card order, then go-outs by card order, then the claims of
victory (by seat), so the first element is a turn move whenever there is one.

What is listed: the turn moves of the seat whose player is to move, then, on that turn
only, ``claim_victory`` against every away seat (rare, and worth a button). What is not:
``resign`` (always possible until the end), ``back`` (the seat's ``kind`` says when),
``abort`` (the view's ``you.can_abort`` says when) and a claim off the claimer's turn
(accepted all the same). Why: a client that finds the list non-empty knows it is its
turn (``legal_actions[0]`` is a turn move), and a bot choosing at random among the list
never ends a game it has barely begun.
"""

from __future__ import annotations

from service.core.cards import card_name
from service.core.shapes import Action
from service.solver import GAME_STEP_BUDGET, go_out_cards

from .seats import PLAYER, SERVICE, claimable, played_by_service, seat_kind
from .state import DISCARD, DRAW, FINAL_DISCARD, FINAL_DRAW, HUMAN, GameState

__all__ = ["legal_actions"]


def legal_actions(state: GameState, seat: int | None, by: str = PLAYER) -> list[Action]:
    """The turn moves ``by`` (the seat's player, or the service) may make for ``seat``
    now (none when it is not that seat's turn or not that actor's to move: a resigned,
    away or timed-out seat is the service's), then, when its player is to move, the
    claims of victory it may make (:func:`.seats.claimable`)."""
    if state.finished or seat is None:
        return []
    moves = _turn_moves(state, seat, by)
    if not moves or by != PLAYER:
        return moves
    claims: list[Action] = [{"type": "claim_victory", "against": s}
                                for s in claimable(state, seat)]
    return moves + claims


def _turn_moves(state: GameState, seat: int, by: str) -> list[Action]:
    if seat != state.current_seat:
        return []
    if by == SERVICE and not played_by_service(state, seat):
        return []
    if by == PLAYER and (seat_kind(state, seat) != HUMAN or state.turn_timed_out):
        return []
    if state.phase in (DRAW, FINAL_DRAW):
        actions: list[Action] = [{"type": "draw", "source": "stock"}]
        if state.discard:
            actions.append({"type": "draw", "source": "discard"})
        return actions
    hand = state.hands[seat]
    distinct = sorted(set(hand))
    actions = [{"type": "discard", "card": card_name(c)} for c in distinct]
    if state.phase == DISCARD:
        go_out = go_out_cards(hand, state.wild_rank, state.rules, state.contract,
                              steps=GAME_STEP_BUDGET)
        actions.extend({"type": "go_out", "discard": card_name(c)} for c in distinct if c in go_out)
    else:
        assert state.phase == FINAL_DISCARD
    return actions
