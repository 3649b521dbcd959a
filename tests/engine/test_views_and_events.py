"""Views show each seat only what it may see; events have public and private forms;
the state serializes compactly and exactly."""

from __future__ import annotations

import json

from service.core.rules import resolve_rules
from service.engine import apply, from_dict, legal_actions, new_game, opening_events, to_dict, view
from service.engine.state import DISCARD

from .game_helpers import NAMES, play_random_game, position

CONTRACT_KEYS = {
    "version", "status", "rules", "seed_commitment", "seeded_by_creator", "round", "players",
    "you", "legal_actions", "last_round",
}
ROUND_KEYS = {
    "number", "hand_size", "wild_rank", "dealer", "current_seat", "phase", "stock_count",
    "discard_top", "went_out",
}


def test_the_view_has_every_field_of_the_contract() -> None:
    state = new_game(resolve_rules({}), NAMES[:3], seed="fields")
    shown = view(state, state.current_seat)
    assert set(shown) >= CONTRACT_KEYS
    assert set(shown["round"]) >= ROUND_KEYS
    assert shown["round"]["number"] == 1 and shown["round"]["wild_rank"] == "3"
    assert shown["status"] == "in_progress" and shown["last_round"] is None
    assert shown["legal_actions"] == [
        {"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}
    ]
    assert set(shown["players"][0]) == {"seat", "name", "hand_count", "total", "round_scores",
                                        "kind", "bot", "account", "account_bot"}
    json.dumps(shown)


def test_a_view_shows_the_number_of_decks_in_use_where_the_rules_say_auto() -> None:
    # classic "auto": 2 decks, 3 once players × 13 + 21 exceeds 104 cards (7 or 8 players)
    for players, decks in [(2, 2), (6, 2), (7, 3), (8, 3)]:
        state = new_game(resolve_rules({}), [f"p{i}" for i in range(players)], seed="decks")
        for seat in (None, 0):
            assert view(state, seat)["rules"]["decks"] == decks
    assert view(new_game(resolve_rules({"decks": 4}), NAMES[:2]), None)["rules"]["decks"] == 4
    assert view(new_game(resolve_rules({"preset": "family"}), NAMES[:2]), 0)["rules"]["decks"] == 1


def test_a_spectator_sees_no_hand_and_no_actions() -> None:
    state = new_game(resolve_rules({}), NAMES[:3], seed="spectator")
    shown = view(state, None)
    assert shown["you"] is None and shown["legal_actions"] == []


def test_no_view_shows_another_seats_hand_the_stock_or_the_seed_before_the_end() -> None:
    state = new_game(resolve_rules({}), NAMES[:4], seed="secret-seed-xyz")
    for seat in (None, 0, 1, 2, 3):
        text = json.dumps(view(state, seat))
        assert "secret-seed-xyz" not in text and state.seed_salt not in text
        shown = view(state, seat)
        assert not _keys(shown) & {"stock", "hands", "seed", "seed_salt", "deck"}
        if seat is not None:
            assert set(shown["you"]) == {"seat", "hand", "can_abort"} and shown["you"]["seat"] == seat
            assert len(shown["you"]["hand"]) == 3
        assert all("hand" not in p for p in shown["players"])


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_a_stock_draw_shows_the_card_only_to_the_drawer() -> None:
    state = position(hands=["3H 9C 9S", "7H 8D KD"], stock="3D 2C", discard="6S",
                     current_seat=0)
    _, events = apply(state, 0, {"type": "draw", "source": "stock"})
    (draw,) = events
    assert draw.for_seat(0)["card"] == "3D"
    assert "card" not in draw.for_seat(1) and "card" not in draw.for_seat(None)
    _, events = apply(state, 0, {"type": "draw", "source": "discard"})
    assert events[0].for_seat(None)["card"] == "6S"


def test_events_are_numbered_without_gaps_over_the_whole_game() -> None:
    record = play_random_game(resolve_rules({"hand_sizes": [3, 4]}), 3, "numbering")
    seqs = [e["seq"] for e in record.events]
    assert seqs == list(range(2, 2 + len(seqs)))  # 1 is the deal of round 1
    start = new_game(resolve_rules({"hand_sizes": [3, 4]}), NAMES[:3], seed="numbering")
    (deal,) = opening_events(start)
    assert deal.seq == 1 and len(deal.for_seat(0)["hand"]) == 3
    assert "hand" not in deal.for_seat(None)
    types = {e["type"] for e in record.events}
    assert {"draw", "discard", "went_out", "laid_down", "round_ended", "round_started",
            "game_finished"} <= types


def test_the_last_round_shows_every_players_arrangement_and_score() -> None:
    state = position(hands=["9C 9S 3H 5D", "7H KD 2C"], stock="QC 4D", discard="6S",
                     current_seat=0, phase=DISCARD)
    state, _ = apply(state, 0, {"type": "go_out", "discard": "5D"})
    state, _ = apply(state, 1, {"type": "draw", "source": "stock"})
    state, _ = apply(state, 1, {"type": "discard", "card": "QC"})
    last = view(state, 1)["last_round"]
    assert last["number"] == 1 and last["wild_rank"] == "3" and last["went_out"] == 0
    assert last["results"][0]["score"] == 0 and last["results"][0]["deadwood"] == []
    assert sorted(last["results"][0]["melds"][0]) == ["3H", "9C", "9S"]
    assert sorted(last["results"][1]["deadwood"]) == ["2C", "7H", "KD"]
    assert last["results"][1]["score"] == 19
    assert view(state, 1)["players"][1]["round_scores"] == [19]


def test_a_four_player_state_in_round_eleven_is_well_under_4_kb() -> None:
    rules = resolve_rules({"preset": "bga", "lay_off": True})
    record = play_random_game(rules, 4, "size", check_every_state=False)
    assert len(json.dumps(to_dict(record.state))) < 3000
    state = position(rules, players=4, round_number=11, seed="size")
    assert len(json.dumps(to_dict(state), separators=(",", ":"))) < 3000


def test_serialization_round_trips_exactly_and_refuses_other_schemas() -> None:
    state = new_game(resolve_rules({"preset": "family", "lay_off": True}), NAMES[:5], seed="rt")
    data = json.loads(json.dumps(to_dict(state)))
    assert from_dict(data) == state
    assert legal_actions(from_dict(data), state.current_seat) == legal_actions(
        state, state.current_seat
    )
    data["schema_version"] = 99
    try:
        from_dict(data)
    except ValueError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a foreign schema_version must be refused")
