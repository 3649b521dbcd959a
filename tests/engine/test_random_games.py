"""Complete random games over every preset and option, checked after every action.

``ENGINE_GAMES`` (default 300, the CI count) sets how many games run. Each game
checks: the invariants after every action, the exact JSON round trip of every
state, every round's scores against the solver, the winners by the tie-break,
and finally that seed + salt + the action list replays to the identical state.
A tenth as many again are played by players who leave (time-outs, away seats coming
back, resignations, claims of victory, aborts), checked the same way.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest

from service.core.rules import resolve_rules

from .game_helpers import play_random_game, replay

GAMES = int(os.environ.get("ENGINE_GAMES", "300"))

SHORT = [3, 6, 9, 12]  # a few rounds of each size band keep most games quick

#: (name, rules spec, player counts, bot). Every option of the rules (docs/rules.md) appears.
CONFIGS: list[tuple[str, dict[str, Any], tuple[int, ...], str]] = [
    ("classic", {"preset": "classic"}, (2, 3, 4, 5, 6, 7, 8), "smart"),
    ("bga", {"preset": "bga"}, (2, 3, 4, 5, 6), "smart"),
    ("family", {"preset": "family"}, (2, 3, 4, 5, 6, 7, 8), "smart"),
    ("six-fourteen", {"hand_sizes": list(range(6, 15))}, (2, 4, 6), "smart"),
    ("shortened", {"preset": "family", "hand_sizes": list(range(5, 13))}, (3, 5), "smart"),
    ("jokers", {"jokers": 3, "hand_sizes": SHORT}, (2, 3, 4, 8), "smart"),
    ("lay-off", {"lay_off": True, "hand_sizes": SHORT}, (2, 3, 4, 5, 6, 7, 8), "smart"),
    ("lay-off-bga", {"preset": "bga", "lay_off": True}, (3, 6), "smart"),
    ("multiplier", {"final_round_multiplier": 3, "hand_sizes": SHORT}, (2, 4), "smart"),
    (
        "contracts",
        {
            "hand_sizes": [3, 6, 7, 9],
            "contracts": [None, {"sets": 1, "runs": 0}, {"sets": 0, "runs": 1},
                          {"sets": 1, "runs": 1}],
        },
        (2, 3, 4),
        "smart",
    ),
    ("aces-high", {"aces": "high", "hand_sizes": SHORT}, (2, 5), "smart"),
    ("aces-both", {"aces": "both", "hand_sizes": SHORT}, (3, 6), "smart"),
    ("aces-wrap", {"aces": "wrap", "hand_sizes": SHORT}, (4, 7), "smart"),
    (
        "wild-limits",
        {"max_wilds_per_meld": 1, "min_naturals_per_meld": 2, "hand_sizes": SHORT},
        (2, 4, 8),
        "smart",
    ),
    (
        "penalties",
        {"ace_penalty": 15, "wild_penalty": None, "card_values": {"K": 13},
         "tie_break": "shared", "hand_sizes": SHORT},
        (2, 3),
        "smart",
    ),
    # a tight shoe and bots that always draw from the stock: the stock runs out
    (
        "end-round",
        {"decks": 1, "stock_exhausted": "end_round", "hand_sizes": [3, 8, 10]},
        (4, 5),
        "stock",
    ),
    (
        "reshuffle",
        {"preset": "family", "decks": 1, "hand_sizes": [7, 9, 11]},
        (4,),
        "smart",
    ),
    (
        "one-card-stock",  # 4 × 13 + 1 + 1 = 54 cards: one card to draw, then reshuffles
        {"decks": 1, "jokers": 2, "hand_sizes": [3, 13]},
        (4,),
        "smart",
    ),
    # bots that never go out on their own meet the turn limit, and one of each other
    ("turn-limit", {"turn_limit": 2, "hand_sizes": [5, 9]}, (2, 3), "stock"),
    ("no-turn-limit", {"turn_limit": None, "hand_sizes": [4]}, (2,), "smart"),
]


def _games() -> list[Any]:
    out = []
    i = 0
    while len(out) < GAMES:
        for name, spec, counts, bot in CONFIGS:
            players = counts[i % len(counts)]
            name_id = f"{name}-{players}p-{i}"
            out.append(pytest.param(spec, players, bot, f"g{i}-{name}", id=name_id))
        i += 1
    return out[:GAMES]



@pytest.mark.parametrize(("spec", "players", "bot", "seed"), _games())
def test_a_random_game_keeps_every_rule_and_replays_identically(
    spec: dict[str, Any], players: int, bot: str, seed: str
) -> None:
    rules = resolve_rules(spec)
    record = play_random_game(rules, players, seed, bot)
    final = record.state
    assert record.rounds_checked == rules.rounds
    again = replay(rules, players, seed, final.seed_salt, record.actions)
    assert again == final, "seed + actions reproduce the identical final state"


def test_the_configurations_cover_every_option() -> None:
    """Every option of the rules (docs/rules.md) is set away from a preset's value by some
    configuration."""
    from service.core.rules import OPTION_NAMES

    covered = {k for _, spec, _, _ in CONFIGS for k in spec if k != "preset"}
    covered |= {"tie_break", "decks", "aces", "jokers", "min_naturals_per_meld"}
    untouched = set(OPTION_NAMES) - covered - {"min_players", "max_players", "joker_penalty"}
    assert not untouched
    assert {p for _, _, counts, _ in CONFIGS for p in counts} == set(range(2, 9))


def test_tight_shoes_exercise_every_way_a_stock_runs_out() -> None:
    """The stock-exhaustion configurations really do reshuffle and end rounds early."""
    ended = play_random_game(
        resolve_rules({"decks": 1, "stock_exhausted": "end_round", "hand_sizes": [8, 10]}),
        5, "exhaust-end", "stock",
    )
    assert ended.reasons["stock_exhausted"] == 2
    shuffled = play_random_game(
        resolve_rules({"decks": 1, "hand_sizes": [11, 12]}), 4, "exhaust-re", "smart"
    )
    assert shuffled.reshuffles > 0
    one = play_random_game(
        resolve_rules({"decks": 1, "jokers": 2, "hand_sizes": [13]}), 4, "one-card", "stock"
    )
    assert one.reshuffles > 0, "the one card of the stock is drawn, then the pile reshuffled"


def test_a_round_where_nobody_goes_out_ends_at_the_turn_limit_with_every_hand_scored() -> None:
    """Every player had ``turn_limit`` turns and nobody went out: the round ends at once
    and each player scores the deadwood of its own hand (no lay-offs, nothing laid)."""
    limited = play_random_game(resolve_rules({"turn_limit": 3, "hand_sizes": [7, 11]}), 3,
                               "limit", "stock")
    assert limited.reasons["turn_limit"] >= 1
    assert limited.state.finished


def _leaving_games() -> list[Any]:
    every = _games()
    return every[:: max(1, len(every) // max(12, GAMES // 10))]


@pytest.mark.parametrize(("spec", "players", "bot", "seed"), _leaving_games())
def test_a_random_game_whose_players_leave_keeps_every_rule_and_replays_identically(
    spec: dict[str, Any], players: int, bot: str, seed: str
) -> None:
    """Time-outs, the stand-in's turns, away seats coming back, resignations, claims of
    victory and aborts, mixed into random games: the invariants hold after each, and the
    record (who made each move included) replays to the identical state."""
    rules = resolve_rules(spec)
    record = play_random_game(rules, players, f"leave-{seed}", bot, leaving=True)
    again = replay(rules, players, f"leave-{seed}", record.state.seed_salt, record.actions)
    assert again == record.state


def test_players_who_leave_meet_every_way_out_of_a_game() -> None:
    """Short games of players who leave, until each way of leaving has happened: so the
    random games above are known to reach them."""
    events: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    game = 0
    wanted = {"turn_timed_out", "seat_back", "seat_resigned", "victory_claimed",
              "game_aborted"}
    while not (wanted <= set(events) and {"completed", "resigned", "aborted"} <= set(endings)):
        assert game < 400, f"400 games and still not every way out: {events}, {endings}"
        record = play_random_game(resolve_rules({"hand_sizes": [3, 4]}), 2 + game % 3,
                                  f"ways-{game}", leaving=True)
        events.update(e["type"] for e in record.events)
        endings[str(record.state.finish_reason)] += 1
        game += 1
