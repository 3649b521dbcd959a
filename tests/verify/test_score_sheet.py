"""The text score sheet of a known seeded game is the golden file, line for line."""

from __future__ import annotations

import os
from pathlib import Path

from service.verify import score_sheet

from .games import recorded_game

GOLDEN = Path(__file__).parent / "golden" / "score_sheet.txt"


def test_the_score_sheet_of_the_seeded_game_equals_the_golden_file() -> None:
    sheet = score_sheet(recorded_game())
    if os.environ.get("UPDATE_GOLDEN") == "1":  # regenerate after a deliberate change
        GOLDEN.write_text(sheet, encoding="utf-8")
    assert sheet == GOLDEN.read_text(encoding="utf-8")


def test_the_score_sheet_says_how_a_game_ended_early_and_a_round_at_the_turn_limit() -> None:
    resigned = score_sheet(recorded_game("last", {"preset": "classic", "hand_sizes": [3, 5]},
                                         ("ann", "bob", "cat"), resign_at=3, resigners=(0, 2)))
    assert "not scored: the others resigned" in resigned
    assert "Winner: bob (every other player resigned)" in resigned
    limited = score_sheet(recorded_game("limit", {"preset": "classic", "hand_sizes": [9],
                                                  "turn_limit": 1}, ("ann", "bob", "cat")))
    assert "every player had the turn limit of turns" in limited
    aborted = score_sheet(recorded_game("aborted", abort_at=1))
    assert "not scored: the game was aborted" in aborted
    assert "No result: the game was aborted before every player had played" in aborted
    assert "Winner" not in aborted
