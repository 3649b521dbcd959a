"""One scenario per rule of the rules (docs/rules.md), each starting from a position built by hand.

Cards are written as in the rules (docs/rules.md). Positions come from ``position(...)``, which
sets hands, stock and discard pile directly; the comment over each test names
the sentence of docs/rules.md it pins.
"""

from __future__ import annotations

import pytest

from service.core.errors import IllegalActionError, InvalidRulesError, NotYourTurnError
from service.core.rules import resolve_rules
from service.engine import apply, legal_actions, new_game, view
from service.engine.shoe import RandomStream, sha256_hex
from service.engine.state import DISCARD, DRAW, FINAL_DRAW

from .game_helpers import NAMES, cards, hand_of, play_random_game, position

GO = "go_out"


def _go_out(state, seat, discard):  # type: ignore[no-untyped-def]
    return apply(state, seat, {"type": GO, "discard": discard})


def _results(state):  # type: ignore[no-untyped-def]
    assert state.last_round is not None
    return {r.seat: r for r in state.last_round.results}


# "The player who went out scores 0."
def test_the_player_who_goes_out_scores_zero() -> None:
    state = position(hands=["9C 9S 3H 5D", "7H KD 2C"], stock="QC 4D 8S", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "5D")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "QC"})
    results = _results(state)
    assert results[0].score == 0 and results[0].deadwood == ()
    assert results[1].score == 7 + 10 + 2
    assert state.scores == ((0,), (19,))


# "A player whose whole remaining hand is melded scores 0."
def test_a_final_turn_player_who_melds_everything_scores_zero() -> None:
    state = position(hands=["9C 9S 3H 5D", "7H 8H KD"], stock="9H 2C", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "5D")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "KD"})
    assert _results(state)[1].score == 0
    assert _results(state)[1].melds == (cards("7H 8H 9H"),)


# "Round 1 (3s wild), hand after drawing 3H 3D 9C 9S: every discard goes out."
def test_one_can_go_out_on_the_first_turn() -> None:
    state = position(hands=["3H 9C 9S", "7H 8D KD"], stock="3D 2C", discard="6S",
                     current_seat=0, phase=DRAW)
    state, _ = apply(state, 0, {"type": "draw", "source": "stock"})
    go_outs = [a["discard"] for a in legal_actions(state, 0) if a["type"] == GO]
    assert go_outs == ["9S", "3H", "3D", "9C"]  # card order: suit S H D C, then rank
    state, events = _go_out(state, 0, "3D")
    assert state.went_out == 0 and state.phase == FINAL_DRAW and state.current_seat == 1
    assert [e.type for e in events] == ["went_out"]


# "classic, round 3: a 5 left in deadwood costs 15, not 5; a king costs 10."
def test_in_classic_a_five_left_in_deadwood_in_round_three_costs_fifteen() -> None:
    state = position(round_number=3, hands=["AS 2S 3S 4S 5H 9C", "5S KD 2C 9H 7D"],
                     stock="QC 4C", discard="6S", current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "9C")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "QC"})
    result = _results(state)[1]
    assert cards("5S")[0] in result.deadwood
    assert result.score == 15 + 10 + 2 + 9 + 7


# "Play goes clockwise" — only the seat on turn may act.
def test_a_player_cannot_act_out_of_turn() -> None:
    state = new_game(resolve_rules({}), NAMES[:3], seed="turns")
    other = (state.current_seat + 1) % 3
    with pytest.raises(NotYourTurnError):
        apply(state, other, {"type": "draw", "source": "stock"})
    assert legal_actions(state, other) == []


def test_a_player_must_draw_before_discarding_and_draws_only_once() -> None:
    state = position(hands=["3H 9C 9S", "7H 8D KD"], stock="3D 2C", discard="6S",
                     current_seat=0, phase=DRAW)
    with pytest.raises(IllegalActionError):
        apply(state, 0, {"type": "discard", "card": "9C"})
    with pytest.raises(IllegalActionError):
        _go_out(state, 0, "9C")
    state, _ = apply(state, 0, {"type": "draw", "source": "discard"})
    with pytest.raises(IllegalActionError):
        apply(state, 0, {"type": "draw", "source": "stock"})
    with pytest.raises(IllegalActionError):
        apply(state, 0, {"type": "discard", "card": "KD"})  # not in the hand


# "When a player must draw from an empty stock, the discard pile except its top
# card is shuffled to form a new stock."
def test_drawing_from_an_empty_stock_reshuffles_the_discards_under_the_top() -> None:
    state = position(hands=["3H 9C 9S 8S", "7H 8D KD"], stock="", discard="2C 4D 6H",
                     current_seat=0, phase=DISCARD)
    state, events = apply(state, 0, {"type": "discard", "card": "8S"})
    assert [e.type for e in events] == ["discard", "reshuffled"]
    assert sorted(state.stock) == sorted(cards("2C 4D 6H"))
    assert state.discard == cards("8S")
    assert state.current_seat == 1 and state.phase == DRAW


# "If that leaves no card, the round ends at once and everyone scores their deadwood."
def test_a_round_with_no_card_left_to_draw_ends_at_once_and_everyone_scores_deadwood() -> None:
    state = position(hands=["3H 9C 9S 8S", "7H 8H KD"], stock="", discard="",
                     current_seat=0, phase=DISCARD)
    state, events = apply(state, 0, {"type": "discard", "card": "8S"})
    assert [e.type for e in events][:3] == ["discard", "round_ended", "round_started"]
    results = _results(state)
    assert state.last_round is not None and state.last_round.reason == "stock_exhausted"
    assert state.last_round.went_out is None
    assert results[0].score == 0  # 9C 9S 3H is a set with the wild 3
    assert results[1].score == 7 + 8 + 10  # 7H 8H KD: no meld without a wild
    assert state.round_index == 1


# "stock_exhausted: end_round ends the round at the first empty stock."
def test_with_end_round_the_round_ends_when_the_stock_is_empty() -> None:
    rules = resolve_rules({"stock_exhausted": "end_round"})
    state = position(rules, hands=["3H 9C 9S 8S", "7H 8D KD"], stock="", discard="2C 4D 6H",
                     current_seat=0, phase=DISCARD)
    state, events = apply(state, 0, {"type": "discard", "card": "8S"})
    assert "reshuffled" not in [e.type for e in events]
    assert state.last_round is not None and state.last_round.reason == "stock_exhausted"


# "Six-Fourteen = 6…14 (the 14-card round has aces wild)."
def test_the_fourteen_card_round_of_six_fourteen_has_aces_wild() -> None:
    rules = resolve_rules({"hand_sizes": list(range(6, 15))})
    hand = "2C 2D AS 4H 5H 6H 7S 8S 9S TS JC QC KC AC 9D"
    other = "2H 3H 4S 5S 6S 7H 8H 9H TH JH QH KH KS KD"
    state = position(rules, round_number=9, hands=[hand, other],
                     stock="5C 6C", discard="6D", current_seat=0, phase=DISCARD)
    assert view(state, 0)["round"]["wild_rank"] == "A"
    assert view(state, 0)["round"]["hand_size"] == 14
    assert {"type": GO, "discard": "9D"} in legal_actions(state, 0)
    assert rules.penalty_table(1)[cards("AS")[0]] == 15  # a wild ace left over costs 15


# "When a player goes out, every other player, in turn order, gets exactly one more turn."
def test_every_other_player_gets_exactly_one_final_turn_in_order() -> None:
    state = position(players=4, hands=["7H KD 2C", "9C 9S 3H 5D", "4S 6D QH", "8C JS TD"],
                     stock="QC 4D 8S 2D 5S 7C", discard="6S", current_seat=1, phase=DISCARD)
    state, _ = _go_out(state, 1, "5D")
    order = []
    while state.round_index == 0:
        seat = state.current_seat
        assert state.phase == FINAL_DRAW
        order.append(seat)
        state, _ = apply(state, seat, {"type": "draw", "source": "stock"})
        assert not any(a["type"] == GO for a in legal_actions(state, seat))
        with pytest.raises(IllegalActionError):  # a final turn cannot go out
            _go_out(state, seat, hand_of(state, seat)[0])
        state, _ = apply(state, seat, {"type": "discard", "card": hand_of(state, seat)[0]})
    assert order == [2, 3, 0]


# lay_off: "cards may be added to melds already on the table (in final turns onto
# the goer's and earlier final-turn melds)".
def test_with_lay_off_a_final_turn_player_lays_cards_onto_the_goers_meld() -> None:
    rules = resolve_rules({"lay_off": True})
    state = position(rules, hands=["7H 8H 9H KD", "TH 2C 5S"], stock="JH 4C", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "KD")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, events = apply(state, 1, {"type": "discard", "card": "5S"})
    result = _results(state)[1]
    assert result.score == 2  # only 2C is left; TH JH extend 7H 8H 9H
    assert result.layoffs == ((0, cards("TH JH")),)
    laid = next(e for e in events if e.type == "laid_down")
    assert laid.public["layoffs"] == [{"meld": 0, "cards": ["TH", "JH"]}]


def test_without_lay_off_the_same_cards_stay_in_deadwood() -> None:
    state = position(hands=["7H 8H 9H KD", "TH 2C 5S"], stock="JH 4C", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "KD")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "5S"})
    assert _results(state)[1].score == 10 + 10 + 2


# contracts: "a minimum number of sets and runs that going out must include".
def test_a_contract_refuses_going_out_without_the_required_runs() -> None:
    rules = resolve_rules({"hand_sizes": [3, 3], "contracts": [{"sets": 0, "runs": 1}, None]})
    state = position(rules, hands=["9C 9S 9H 5D", "7H KD 2C"], stock="QC", discard="6S",
                     current_seat=0, phase=DISCARD)
    assert not any(a["type"] == GO for a in legal_actions(state, 0))
    with pytest.raises(IllegalActionError):
        _go_out(state, 0, "5D")
    with pytest.raises(IllegalActionError):
        apply(state, 0, {"type": GO, "discard": "5D", "melds": [["9C", "9S", "9H"]]})
    runs = position(rules, hands=["4C 5C 6C 5D", "7H KD 2C"], stock="QC", discard="6S",
                    current_seat=0, phase=DISCARD)
    assert {"type": GO, "discard": "5D"} in legal_actions(runs, 0)


def test_explicit_melds_that_are_not_melds_are_refused() -> None:
    state = position(hands=["9C 9S 3H 5D", "7H KD 2C"], stock="QC", discard="6S",
                     current_seat=0, phase=DISCARD)
    with pytest.raises(IllegalActionError):
        apply(state, 0, {"type": GO, "discard": "3H", "melds": [["9C", "9S", "5D"]]})
    state, events = apply(state, 0, {"type": GO, "discard": "5D", "melds": [["9C", "3H", "9S"]]})
    assert events[0].public["melds"] == [["9C", "3H", "9S"]]


# "Going out always ends with a discard."
def test_going_out_puts_the_last_card_on_the_discard_pile() -> None:
    state = position(hands=["9C 9S 3H 5D", "7H KD 2C"], stock="QC", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "5D")
    assert state.discard == cards("6S 5D") and state.hands[0] == ()


# "The dealer moves one seat clockwise each round; the player left of the dealer
# plays first." "In round r every player is dealt r + 2 cards."
def test_the_dealer_rotates_and_the_player_left_of_the_dealer_plays_first() -> None:
    rules = resolve_rules({"hand_sizes": [3, 4, 5, 6]})
    record = play_random_game(rules, 3, "rotation")
    first = RandomStream("rotation", "first-dealer").below(3)
    starts = [e for e in record.events if e["type"] == "round_started"]
    assert [e["dealer"] for e in starts] == [(first + r) % 3 for r in range(1, 4)]
    assert all(e["current_seat"] == (e["dealer"] + 1) % 3 for e in starts)
    assert [e["hand_size"] for e in starts] == [4, 5, 6]


def test_the_first_round_deals_three_cards_and_turns_one_up() -> None:
    state = new_game(resolve_rules({}), NAMES[:4], seed="deal")
    assert all(len(h) == 3 for h in state.hands)
    assert len(state.discard) == 1 and len(state.stock) == 104 - 12 - 1
    assert state.current_seat == (state.dealer + 1) % 4


# "final_round_multiplier: last round's penalties doubled."
def test_the_last_rounds_penalties_are_multiplied() -> None:
    rules = resolve_rules({"hand_sizes": [3], "final_round_multiplier": 2})
    state = position(rules, hands=["9C 9S 3H 5D", "7H KD 2C"], stock="QC", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = _go_out(state, 0, "5D")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, events = apply(state, 1, {"type": "discard", "card": "QC"})
    assert state.scores == ((0,), (2 * 19,))
    assert state.status == "finished" and events[-1].type == "game_finished"


# "Ties. Preset classic: more zero-score rounds wins. Otherwise the tied players share."
@pytest.mark.parametrize(("preset", "winners"), [("classic", [0]), ("family", [0, 1])])
def test_ties_go_to_more_zero_rounds_in_classic_and_are_shared_otherwise(
    preset: str, winners: list[int]
) -> None:
    rules = resolve_rules({"preset": preset, "hand_sizes": [3, 3, 3]})
    state = position(rules, round_number=3, hands=["9C 9S 3H 5D", "7H 8H KD"], stock="9H",
                     discard="6S", current_seat=0, phase=DISCARD, scores=((0, 20), (10, 10)))
    state, _ = _go_out(state, 0, "5D")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "KD"})
    assert state.totals() == (20, 20)
    assert view(state, None)["winners"] == winners


def test_a_finished_game_refuses_every_action_and_reveals_the_seed() -> None:
    rules = resolve_rules({"hand_sizes": [3]})
    state = position(rules, hands=["9C 9S 3H 5D", "7H KD 2C"], stock="QC", discard="6S",
                     current_seat=0, phase=DISCARD, seed="7")
    state, _ = _go_out(state, 0, "5D")
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "QC"})
    for seat in (0, 1):
        with pytest.raises(IllegalActionError):
            apply(state, seat, {"type": "draw", "source": "stock"})
        assert legal_actions(state, seat) == []
    shown = view(state, None)
    assert shown["seed"] == "7"
    assert sha256_hex(f"{shown['seed_salt']}:7") == shown["seed_commitment"]


# player counts per preset; the shoe must deal every round.
def test_a_player_count_outside_the_preset_is_refused() -> None:
    with pytest.raises(InvalidRulesError):
        new_game(resolve_rules({"preset": "bga"}), NAMES[:7])
    with pytest.raises(InvalidRulesError):
        new_game(resolve_rules({}), NAMES[:1])
    with pytest.raises(InvalidRulesError):
        new_game(resolve_rules({"decks": 1}), NAMES[:4])  # 4 × 13 + 1 > 52


def test_the_same_seed_and_actions_give_the_same_game_and_no_seed_a_secret_one() -> None:
    rules = resolve_rules({})
    a = new_game(rules, NAMES[:3], seed="same", seed_salt="s")
    b = new_game(rules, NAMES[:3], seed="same", seed_salt="s")
    assert a == b
    c = new_game(rules, NAMES[:3])
    assert not c.seeded_by_creator and a.seeded_by_creator
    assert len(c.seed) == 32 and len(c.seed_salt) == 32
    assert new_game(rules, NAMES[:3], seed="other").hands != a.hands


def test_an_integer_seed_is_taken_as_its_decimal_text() -> None:
    rules = resolve_rules({})
    assert new_game(rules, NAMES[:2], seed=7, seed_salt="s") == new_game(  # type: ignore[arg-type]
        rules, NAMES[:2], seed="7", seed_salt="s"
    )
