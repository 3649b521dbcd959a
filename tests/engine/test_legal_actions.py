"""``legal_actions`` is exact both ways, on thousands of random positions.

For each position every candidate from a superset (both draws, every one of
the 53 cards as a discard and as a go-out discard, by the seat on turn and by
every other seat) is tried: a listed action applies, any other is refused with
the right error kind.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest

from service.core.cards import JOKER, card_name, card_names
from service.core.errors import (
    EngineError,
    IllegalActionError,
    InvalidActionError,
    InvalidCardError,
    NotYourTurnError,
)
from service.core.rules import resolve_rules
from service.engine import apply, legal_actions, new_game, view
from service.engine.seats import PLAYER, SERVICE, claimable, played_by_service
from service.engine.state import DISCARD, GameState
from service.solver import analyze, go_out_cards

from .game_helpers import NAMES, act, choose, leaving_move

POSITIONS = int(os.environ.get("ENGINE_POSITIONS", "3000"))

SPECS: list[tuple[dict[str, Any], int]] = [
    ({"preset": "classic"}, 8),
    ({"preset": "bga"}, 6),
    ({"preset": "family"}, 8),
    ({"preset": "classic", "lay_off": True, "jokers": 2}, 8),
    ({"preset": "bga", "aces": "wrap", "max_wilds_per_meld": 1}, 6),
    ({"preset": "family", "hand_sizes": list(range(6, 15)),
      "contracts": [{"sets": 1, "runs": 0}] * 9}, 8),
]

CANDIDATES: list[dict[str, Any]] = [
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
    *({"type": "discard", "card": card_name(c)} for c in range(JOKER + 1)),
    *({"type": "go_out", "discard": card_name(c)} for c in range(JOKER + 1)),
]


def _positions(spec: dict[str, Any], max_players: int, count: int, seed: str) -> list[GameState]:
    """``count`` positions met along random games (every phase, every player count)."""
    rng = random.Random(seed)
    rules = resolve_rules(spec)
    out: list[GameState] = []
    game = 0
    while len(out) < count:
        players = 2 + game % (max_players - 1)
        state = new_game(rules, NAMES[:players], seed=f"{seed}-{game}")
        game += 1
        while state.status != "finished":
            if len(out) < count and rng.random() < 0.15:
                out.append(state)
            seat = state.current_seat
            assert seat is not None
            state, _ = apply(state, seat, choose(state, rng, "smart"))
        out.append(state)  # a finished game refuses everything
    return out


def _check_exact(state: GameState) -> int:
    checked = 0
    for seat in range(state.players):
        legal = legal_actions(state, seat)
        if seat != state.current_seat:
            assert legal == [], "only the seat to move has anything listed"
        for action in legal:
            new, _ = apply(state, seat, action)
            assert new.version == state.version + 1
        for action in CANDIDATES:
            if action in legal:
                continue
            expected: type[Exception]
            if state.status == "finished" or seat == state.current_seat:
                expected = IllegalActionError
            else:
                expected = NotYourTurnError
            with pytest.raises(expected):
                apply(state, seat, action)
            checked += 1
    return checked


@pytest.mark.parametrize(("spec", "max_players"), SPECS, ids=lambda p: str(p)[:40])
def test_every_listed_action_applies_and_every_other_is_refused(
    spec: dict[str, Any], max_players: int
) -> None:
    seed = f"legal{SPECS.index((spec, max_players))}"
    positions = _positions(spec, max_players, POSITIONS // len(SPECS), seed)
    assert sum(_check_exact(s) for s in positions) > 0
    phases = {s.phase for s in positions}
    assert {"draw", "discard", "final_draw", "final_discard", None} <= phases


def test_a_go_out_with_the_solvers_melds_applies_and_with_wrong_melds_is_refused() -> None:
    """Games are played until every round (3 to 13 cards) has had three go-outs tried,
    each with the solver's melds and again with one card moved: what is checked depends on
    the hand's size, and more games only repeat the sizes (the 15 games this test once
    played tried 261). The full analysis runs only on hands that the going-out test
    says can go out: it is cheaper and gives the same discards (tests/solver/test_going_out.py)."""
    rng = random.Random(5)
    rules = resolve_rules({"preset": "classic"})
    tried: Counter[int] = Counter()  # go-outs tried, by round
    game = 0
    while min(tried[r] for r in range(len(rules.hand_sizes))) < 3:
        assert game < 15, f"15 games and still rounds without three go-outs: {tried}"
        state = new_game(rules, NAMES[:3], seed=f"melds-{game}")
        game += 1
        while state.status != "finished":
            seat = state.current_seat
            assert seat is not None
            hand = state.hands[seat]
            if state.phase == DISCARD and go_out_cards(hand, state.wild_rank, state.rules,
                                                       state.contract):
                for card, arrangement in analyze(hand, state.wild_rank, state.rules, (), state.contract).go_out.items():
                    melds = [card_names(m) for m in arrangement.melds]
                    body = {"type": "go_out", "discard": card_name(card), "melds": melds}
                    apply(state, seat, body)
                    tried[state.round_index] += 1
                    # the same melds with one card moved into the wrong place
                    wrong = [m[:] for m in melds]
                    wrong[0] = wrong[0][:-1]
                    with pytest.raises(IllegalActionError):
                        apply(state, seat, {**body, "melds": wrong})
            state, _ = apply(state, seat, choose(state, rng, "smart"))


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (None, InvalidActionError),
        ([], InvalidActionError),
        ({}, InvalidActionError),
        ({"type": "pass"}, InvalidActionError),
        ({"type": "draw"}, InvalidActionError),
        ({"type": "draw", "source": "deck"}, InvalidActionError),
        ({"type": "draw", "source": "stock", "card": "7H"}, InvalidActionError),
        ({"type": "discard"}, InvalidActionError),
        ({"type": "discard", "card": "7X"}, InvalidCardError),
        ({"type": "discard", "card": 7}, InvalidCardError),
        ({"type": "go_out", "discard": "ZZ"}, InvalidCardError),
        ({"type": "go_out", "discard": "7H", "melds": "7H 8H 9H"}, InvalidActionError),
        ({"type": "go_out", "discard": "7H", "melds": [["7H", "nope"]]}, InvalidCardError),
    ],
)
def test_a_malformed_action_is_refused_as_bad_input_whoever_sends_it(
    body: Any, error: type[Exception]
) -> None:
    state = new_game(resolve_rules({}), NAMES[:3], seed="malformed")
    for seat in range(3):
        with pytest.raises(error):
            apply(state, seat, body)


def test_claims_of_victory_are_listed_on_the_claimers_turn_and_abort_applies_exactly_when_the_view_says_so(
) -> None:
    """On positions of games whose players leave (time-outs, away seats, resignations):
    every ``claim_victory`` listed for a seat applies; a claim against each seat applies
    exactly when :func:`claimable` says so, and is listed exactly when it applies and the
    seat's player is to move (after its turn moves); ``abort`` is never listed and
    applies exactly when the seat's view says ``can_abort``."""
    rng = random.Random("seat-actions")
    rules = resolve_rules({"hand_sizes": [3, 5, 7]})
    positions: list[GameState] = []
    game = 0
    while len(positions) < max(200, POSITIONS // 5):
        state = new_game(rules, NAMES[:2 + game % 3], seed=f"seat-actions-{game}")
        game += 1
        while state.status != "finished":
            if rng.random() < 0.3:
                positions.append(state)
            seat = state.current_seat
            assert seat is not None
            move = leaving_move(state, rng)
            if move is None or move[1]["type"] == "abort":  # keep the games going
                by = SERVICE if played_by_service(state, seat) else PLAYER
                move = (seat, choose(state, rng, "smart", by), by)
            state, _ = act(state, *move)
    listed_claims = off_turn_claims = aborts = 0
    for state in positions:
        for seat in range(state.players):
            legal = legal_actions(state, seat)
            assert all(a["type"] != "abort" for a in legal)
            listed = [a for a in legal if a["type"] == "claim_victory"]
            if listed:
                assert legal[0]["type"] != "claim_victory", "a turn move comes first"
            for against in range(state.players):
                body = {"type": "claim_victory", "against": against}
                if against in claimable(state, seat):
                    assert apply(state, seat, body)[0].version == state.version + 1
                    if body in listed:
                        listed_claims += 1
                    else:
                        assert not [a for a in legal if a["type"] != "claim_victory"], (
                            "a claim that applies is listed whenever the list has turn moves")
                        off_turn_claims += 1
                else:
                    assert body not in listed
                    with pytest.raises(EngineError):
                        apply(state, seat, body)
            if view(state, seat)["you"]["can_abort"]:
                aborts += 1
                assert apply(state, seat, {"type": "abort"})[0].finish_reason == "aborted"
            else:
                with pytest.raises(EngineError):
                    apply(state, seat, {"type": "abort"})
    assert listed_claims and off_turn_claims and aborts, "the positions reach all three"
