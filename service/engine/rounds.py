"""The flow between turns: dealing, starting a turn, the stock running out,
final arrangements, round scoring and the end of the game.

These are the steps :mod:`.actions` chains after a player's move; each takes
the state and an :class:`EventLog` and returns the next state. They are kept
apart from the moves so that every rule of the rules (docs/rules.md) about *what happens next*
lives in one place.

Choices where the rules (docs/rules.md) leave room (documented so bots can rely on them):

* The stock is checked when a turn begins (before the draw). If it is empty,
  ``stock_exhausted: "reshuffle"`` turns the discard pile except its top into a
  new stock at once (so drawing from the stock is always possible in a draw
  phase); if the pile has nothing under its top, the round ends at once.
  ``"end_round"`` ends the round when a turn begins with an empty stock, so the
  player who drew the last card still finishes their turn.
* A round that ends without anyone going out scores every player's optimal
  arrangement of their own hand, independently (nothing was laid down, so
  there is nothing to lay off onto). If it ends during the final turns, the
  players still owed a final turn are arranged in turn order like any final
  turn (lay-offs included when ``lay_off`` is on), without drawing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from service.core.cards import card_name, card_names
from service.solver import GAME_STEP_BUDGET, solve

from .events import EventLog, round_result_dict, round_started
from .shoe import RandomStream, build_shoe
from .state import (
    ABORTED,
    COMPLETED,
    DRAW,
    FINISHED,
    RESIGNED,
    STOCK_EXHAUSTED,
    GameState,
    RoundResult,
    SeatResult,
    TableMeld,
    updated,
)

__all__ = ["arrange_final", "begin_turn", "deal_round", "end_round", "finish", "lay_off_table",
           "penalty_score", "places", "standing_places", "winners"]


def deal_round(state: GameState, round_index: int, log: EventLog | None) -> GameState:
    """Shuffle the shoe for ``round_index``, deal, turn up the discard, start the first turn."""
    n = state.players
    rules = state.rules
    shoe = build_shoe(rules.decks_for(n), rules.jokers)
    deck = RandomStream(state.seed, f"deal:{round_index + 1}").shuffle(shoe)
    dealer = (state.first_dealer + round_index) % n
    size = rules.hand_sizes[round_index]
    hands: list[list[int]] = [[] for _ in range(n)]
    for i in range(size * n):
        hands[(dealer + 1 + i) % n].append(deck[i])
    turned_up = size * n
    state = updated(
        state,
        round_index=round_index,
        reshuffles=0,
        hands=tuple(tuple(sorted(h)) for h in hands),
        stock=tuple(deck[turned_up + 1 :]),
        discard=(deck[turned_up],),
        current_seat=(dealer + 1) % n,
        phase=DRAW,
        went_out=None,
        table=(),
        arranged=(),
        turns=0,
    )
    if log is not None:
        round_started(log, state)
    return begin_turn(state, (dealer + 1) % n, DRAW, log)


def begin_turn(state: GameState, seat: int, phase: str, log: EventLog | None) -> GameState:
    """Give ``seat`` the turn in ``phase`` (a draw phase); handle an empty stock first."""
    state = updated(state, current_seat=seat, phase=phase, turn_timed_out=False)
    if state.stock:
        return state
    if state.rules.stock_exhausted == "reshuffle" and len(state.discard) > 1:
        k = state.reshuffles + 1
        stream = RandomStream(state.seed, f"reshuffle:{state.round_index + 1}:{k}")
        stock = tuple(stream.shuffle(state.discard[:-1]))
        state = updated(state, stock=stock, discard=state.discard[-1:], reshuffles=k)
        if log is not None:
            log.add(
                "reshuffled",
                {"stock_count": len(stock), "discard_top": card_name(state.discard[-1])},
            )
        return state
    return end_round(state, STOCK_EXHAUSTED, log)


def lay_off_table(state: GameState) -> tuple[tuple[int, ...], ...]:
    """The melds a final arrangement may lay off onto (none without ``lay_off``): what
    the analysis' exact final turns solve against, so they score as this module does."""
    if not state.rules.lay_off:
        return ()
    return tuple(m.all_cards for m in state.table)


def arrange_final(state: GameState, seat: int, log: EventLog | None) -> GameState:
    """Lay ``seat``'s optimal arrangement on the table (with lay-offs when allowed).

    The hand keeps only the deadwood, so the round's score is its penalty. The solve
    runs under the solver's normal step budget, like every other.
    """
    arrangement = solve(list(state.hands[seat]), state.wild_rank, state.rules, lay_off_table(state),
                        steps=GAME_STEP_BUDGET)
    table = list(state.table)
    for index, cards in arrangement.layoffs:
        meld = table[index]
        table[index] = replace(meld, layoffs=(*meld.layoffs, (seat, tuple(cards))))
    table.extend(TableMeld(seat, tuple(m)) for m in arrangement.melds)
    hands = list(state.hands)
    hands[seat] = tuple(sorted(arrangement.deadwood))
    if log is not None:
        log.add(
            "laid_down",
            {
                "seat": seat,
                "melds": [card_names(m) for m in arrangement.melds],
                "layoffs": [{"meld": i, "cards": card_names(c)} for i, c in arrangement.layoffs],
            },
        )
    return updated(state, table=tuple(table), hands=tuple(hands), arranged=(*state.arranged, seat))


def penalty_score(state: GameState, penalty: int) -> int:
    """A hand's penalty as the round scores it (the final round's multiplier included)."""
    return penalty * (state.rules.final_round_multiplier if state.is_last_round else 1)


def _results_from_table(state: GameState) -> tuple[SeatResult, ...]:
    penalties = state.rules.penalty_table(state.wild_rank)
    out = []
    for seat in range(state.players):
        melds = tuple(m.cards for m in state.table if m.seat == seat)
        layoffs = tuple(
            (i, cards) for i, m in enumerate(state.table) for s, cards in m.layoffs if s == seat
        )
        hand = state.hands[seat]
        score = 0 if seat == state.went_out else penalty_score(state, sum(penalties[c] for c in hand))
        out.append(SeatResult(seat, melds, layoffs, hand, score))
    return tuple(out)


def _results_without_goer(state: GameState) -> tuple[SeatResult, ...]:
    out = []
    for seat, hand in enumerate(state.hands):
        a = solve(list(hand), state.wild_rank, state.rules, (), steps=GAME_STEP_BUDGET)
        out.append(
            SeatResult(
                seat,
                tuple(tuple(m) for m in a.melds),
                (),
                tuple(sorted(a.deadwood)),
                penalty_score(state, a.penalty),
            )
        )
    return tuple(out)


def end_round(state: GameState, reason: str, log: EventLog | None) -> GameState:
    """Score the round, then deal the next one or finish the game."""
    if state.went_out is None:
        results = _results_without_goer(state)
    else:
        seat = state.current_seat
        assert seat is not None
        while seat != state.went_out:
            if seat not in state.arranged:
                state = arrange_final(state, seat, log)
            seat = state.next_seat(seat)
        results = _results_from_table(state)
    result = RoundResult(
        number=state.round_index + 1,
        wild_rank=state.wild_rank,
        went_out=state.went_out,
        reason=reason,
        results=results,
    )
    scores = tuple((*s, r.score) for s, r in zip(state.scores, results, strict=True))
    state = updated(state, scores=scores, last_round=result)
    if log is not None:
        log.add("round_ended", round_result_dict(result))
    if state.round_index + 1 < state.rules.rounds:
        return deal_round(state, state.round_index + 1, log)
    return finish(state, COMPLETED, log)


def finish(state: GameState, reason: str, log: EventLog | None) -> GameState:
    """End the game: every round played (``COMPLETED``), every player but one resigned
    (``OTHERS_RESIGNED``: the round in play is not scored, the totals stand as they are),
    or a seat that had not played aborted it (``ABORTED``: no result, no winners)."""
    state = updated(state, status=FINISHED, current_seat=None, phase=None,
                    turn_timed_out=False, finish_reason=reason)
    if log is not None:
        log.add(
            "game_finished",
            {
                "winners": list(winners(state)),
                "totals": list(state.totals()),
                "seed": state.seed,
                "seed_salt": state.seed_salt,
                "reason": reason,
            },
        )
    return state


def standing_places(totals: Sequence[int], resigned: Sequence[bool],
                    zero_rounds: Sequence[int] | None) -> tuple[int, ...]:
    """Each seat's place from 1 (ties share one, the next place skips: 1, 1, 3), by the
    order :func:`winners` picks the first: who did not resign before who did, then the
    lowest total, then (``zero_rounds`` given: that tie-break) more zero-score rounds.
    Shared by the live game (:func:`places`) and its record (a rating, a tournament)."""
    keys = [(r, t, -(zero_rounds[s] if zero_rounds is not None else 0))
            for s, (t, r) in enumerate(zip(totals, resigned, strict=True))]
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)


def places(state: GameState) -> tuple[int, ...]:
    """The final places of a finished game (an aborted one has none: ``()``); the seats
    in first place are exactly :func:`winners`, unless everyone resigned."""
    if state.finish_reason == ABORTED:
        return ()
    kinds = state.seat_kinds or (None,) * state.players
    zeros = ([sum(1 for x in scores if x == 0) for scores in state.scores]
             if state.rules.tie_break == "zero_rounds" else None)
    return standing_places(state.totals(), [k == RESIGNED for k in kinds], zeros)


def winners(state: GameState) -> tuple[int, ...]:
    """Lowest total wins; ``zero_rounds`` breaks ties by more zero-score rounds, else shared.

    A player who resigned ranks below every player who did not, so only those who did
    not resign can win (all of them, should everyone have resigned: never in a game the
    service ends, which finishes when one player is left). An aborted game has none."""
    if state.finish_reason == ABORTED:
        return ()
    totals = state.totals()
    kinds = state.seat_kinds or ()
    standing = [s for s in range(state.players) if not kinds or kinds[s] != RESIGNED]
    candidates = standing or list(range(state.players))
    best = min(totals[s] for s in candidates)
    tied = [s for s in candidates if totals[s] == best]
    if state.rules.tie_break == "zero_rounds" and len(tied) > 1:
        zeros = {s: sum(1 for x in state.scores[s] if x == 0) for s in tied}
        most = max(zeros.values())
        tied = [s for s in tied if zeros[s] == most]
    return tuple(tied)
