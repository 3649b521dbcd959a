"""``service.verify`` rejects a record whose table or authorship was altered: the decks,
``seeded_by_creator``, a seat's bot, a player's name (given at creation, claimed, or a
bot seat's), who made a move, and a bot move that is not that bot's; and accepts the
games the settled rules end early (the last player standing, rounds at the turn limit)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from service.engine.shoe import commitment
from service.verify import verify
from service.verify.table import table_of_record, table_salt

from .games import recorded_game


@pytest.fixture(scope="module")
def with_bots() -> dict[str, Any]:
    return recorded_game("bots", {"preset": "classic", "hand_sizes": [3, 5, 7]},
                         ("ann", "x", "y"), bots=(None, "greedy", "random"))


def _problems(record: dict[str, Any], change: Any) -> list[str]:
    bad = copy.deepcopy(record)
    change(bad)
    return verify(bad)


def test_the_record_with_bots_is_accepted_and_names_its_bot_seats(
        with_bots: dict[str, Any]) -> None:
    assert verify(with_bots) == []
    assert [p["name"] for p in with_bots["players"]] == ["ann", "greedy", "random"]
    assert any(a["by"] == "service" for a in with_bots["actions"])


def test_a_changed_decks_is_rejected(with_bots: dict[str, Any]) -> None:
    problems = _problems(with_bots, lambda r: r.update(decks=r["decks"] + 1))
    assert any(p.startswith("decks is") for p in problems), problems


def test_decks_changed_in_the_rules_is_rejected_as_another_table(
        with_bots: dict[str, Any]) -> None:
    def change(r: dict[str, Any]) -> None:
        r["rules"]["decks"] = 3
        r["decks"] = 3
    assert any("does not seal this table" in p for p in _problems(with_bots, change))


def test_a_flipped_seeded_by_creator_is_rejected(with_bots: dict[str, Any]) -> None:
    problems = _problems(with_bots, lambda r: r.update(
        seeded_by_creator=not r["seeded_by_creator"]))
    assert any("does not seal this table" in p for p in problems), problems


def test_a_changed_bot_is_rejected(with_bots: dict[str, Any]) -> None:
    def change(r: dict[str, Any]) -> None:
        r["players"][2]["bot"] = "greedy"
    assert any("does not seal this table" in p for p in _problems(with_bots, change))


@pytest.mark.parametrize("seat", [0, 1])
def test_a_renamed_player_or_bot_seat_is_rejected(with_bots: dict[str, Any], seat: int) -> None:
    def change(r: dict[str, Any]) -> None:
        r["players"][seat]["name"] = "mallory"
    problems = _problems(with_bots, change)
    assert problems and any("name" in p or "seal" in p for p in problems), problems


def test_a_renamed_claimed_seat_is_rejected() -> None:
    record = recorded_game("claimed", open_seat=1)
    def change(r: dict[str, Any]) -> None:
        r["players"][1]["name"] = "mallory"
    assert any("player names" in p for p in _problems(record, change))


def test_a_players_move_attributed_to_the_service_is_rejected(
        with_bots: dict[str, Any]) -> None:
    index = next(i for i, a in enumerate(with_bots["actions"])
                 if a["by"] == "player" and a["type"] == "draw")
    def change(r: dict[str, Any]) -> None:
        r["actions"][index]["by"] = "service"
    [message] = _problems(with_bots, change)
    assert f"action {index + 1} " in message and "played by its player" in message


def test_a_bot_move_attributed_to_a_player_is_rejected(with_bots: dict[str, Any]) -> None:
    index = next(i for i, a in enumerate(with_bots["actions"]) if a["by"] == "service")
    def change(r: dict[str, Any]) -> None:
        r["actions"][index]["by"] = "player"
    [message] = _problems(with_bots, change)
    assert f"action {index + 1} " in message


def test_a_game_ended_by_resignations_is_recorded_with_its_reason_and_verifies() -> None:
    record = recorded_game("last", {"preset": "classic", "hand_sizes": [3, 5, 7]},
                           ("ann", "bob", "cat"), resign_at=9, resigners=(0, 2))
    assert record["finish_reason"] == "resigned" and record["winners"] == [1]
    assert verify(record) == []
    assert any("finish_reason" in p for p in _problems(
        record, lambda r: r.update(finish_reason="completed")))


def test_a_game_whose_rounds_end_at_the_turn_limit_verifies() -> None:
    record = recorded_game("limit", {"preset": "classic", "hand_sizes": [9, 11],
                                     "turn_limit": 1}, ("ann", "bob", "cat"))
    assert {r["reason"] for r in record["rounds"]} >= {"turn_limit"}
    assert verify(record) == []


def _resealed(record: dict[str, Any]) -> None:
    """Make the salt and the commitment agree with the (altered) table again, as a forger
    holding the nonce would: then only the moves can give the forgery away."""
    record["seed_salt"] = table_salt(record["table_nonce"], table_of_record(record))
    record["seed_commitment"] = commitment(record["seed"], record["seed_salt"])


def test_a_bot_move_that_is_not_that_bots_is_rejected_naming_it(
        with_bots: dict[str, Any]) -> None:
    index, action = next((i, a) for i, a in enumerate(with_bots["actions"])
                         if a["by"] == "service" and a["type"] == "draw")
    def change(r: dict[str, Any]) -> None:
        other = "discard" if action["source"] == "stock" else "stock"
        r["actions"][index]["source"] = other
    problems = _problems(with_bots, change)
    assert any(p.startswith(f"action {index + 1} ") and "is not what its bot" in p
               for p in problems), problems


def test_a_bot_swapped_for_another_is_rejected_even_with_the_table_sealed_again(
        with_bots: dict[str, Any]) -> None:
    def change(r: dict[str, Any]) -> None:
        r["players"][1]["bot"] = "random"  # greedy's moves, recorded as random's
        _resealed(r)
    problems = _problems(with_bots, change)
    assert not any("seal" in p for p in problems)
    assert any("is not what its bot random does" in p for p in problems), problems


def test_a_renamed_player_with_the_table_sealed_again_is_rejected_by_the_bots_moves(
        with_bots: dict[str, Any]) -> None:
    """A forger holding the nonce can make a new table's salt; but the bots' randomness
    comes from the salt, so their recorded moves stop being theirs."""
    def change(r: dict[str, Any]) -> None:
        r["players"][0]["name"] = "mallory"
        _resealed(r)
    assert any("is not what its bot" in p for p in _problems(with_bots, change))


def test_without_bots_a_resealed_table_changes_the_commitment_every_view_showed() -> None:
    """What the seal cannot do alone: in a game of players only, a forger holding the
    nonce makes a self-consistent record, but its commitment differs from the one every
    view showed from the first move (the anchor a player keeps)."""
    record = recorded_game("humans")
    forged = copy.deepcopy(record)
    forged["players"][0]["name"] = "mallory"
    _resealed(forged)
    assert verify(forged) == []
    assert forged["seed_commitment"] != record["seed_commitment"]
