"""An account's mistakes as puzzles (``GET /v1/me/mistakes``, ``POST
/v1/me/mistakes/{game_id}/{version}``; docs/analysis.md#your-mistakes).

What is filed: when a game's analysis finishes (:func:`file_mistakes`, called by the
analysis worker before the analysis is marked done, so a worker that dies in between
files them again), each seat an account held gets its **own** decisions (``by:
player``: not a stand-in's nor a timed-out turn's moves made for it) whose regret is at
least :data:`MISTAKE_FLOOR` points, each with the position as its seat saw it (round, wild rank,
phase, hand, discard pile's top), the move taken, the best, the values compared and the
game's rules. Only games the account played, only analysed ones: the index is written
from the game's analysis and the record's seats, nowhere else.

How an answer is checked (:func:`answer_mistake`): it must be a move the position
allows (a draw in a draw phase, a card of the hand to discard or go out with); it is
``correct`` when it is the best move or a candidate valued as well; ``saves`` is the
points it saves against the move taken, from the values the analysis compared
(``null`` for a discard it did not compare: it cannot say).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from service.analysis.game import Position
from service.analysis.judge import THRESHOLDS, key_of
from service.core.cards import card_name, parse_card
from service.core.errors import IllegalActionError
from service.core.instants import instant
from service.engine.seats import PLAYER
from service.engine.serialize import rules_from_json
from service.engine.state import DRAW, FINAL_DRAW
from service.solver import GAME_STEP_BUDGET, go_out_cards
from service.storage import Account, Stores

from .cursors import decode_cursor, encode_cursor
from .errors import UnknownMistakeError
from .records import FinishedRecord

__all__ = ["MISTAKE_FLOOR", "answer_mistake", "file_mistakes", "my_mistakes"]

#: The least regret filed (an inaccuracy's): below it a decision is no lesson.
MISTAKE_FLOOR = THRESHOLDS["inaccuracy"]


def file_mistakes(stores: Stores, game_id: str, record: FinishedRecord,
                  analysis: Mapping[str, Any]) -> None:
    """File the analysed game's mistakes under each account that held a seat in it
    (replacing what was filed for this game before)."""
    ended_ms = round(record.finished_at * 1000)
    for seat, who in enumerate(record.seats):
        if who.account is None:
            continue
        bodies = [_puzzle(game_id, record, d) for d in analysis["decisions"]
                  if d["seat"] == seat and d["by"] == PLAYER and d["regret"] >= MISTAKE_FLOOR]
        stores.mistakes.file(who.account, game_id, ended_ms, bodies)


class Puzzle(TypedDict):
    """A mistake as filed and listed (``GET /v1/me/mistakes``'s ``MistakeSchema``): the
    decision's verdict as the analysis gave it, with the game's rules and end."""

    game_id: str
    version: int
    seat: int
    regret: float
    standard_error: float
    judgement: str | None
    action: dict[str, Any]
    best: dict[str, Any]
    values: dict[str, float]
    exact: bool
    position: Position
    preset: str | None
    rules: dict[str, Any]
    ended: str


def _puzzle(game_id: str, record: FinishedRecord, d: Mapping[str, Any]) -> Puzzle:
    return {"game_id": game_id, "version": d["version"], "seat": d["seat"],
            "regret": d["regret"], "standard_error": d["standard_error"],
            "judgement": d["judgement"], "action": d["action"], "best": d["best"],
            "values": d["values"], "exact": d["exact"], "position": d["position"],
            "preset": record.preset, "rules": record.body["rules"],
            "ended": instant(record.finished_at)}


def my_mistakes(stores: Stores, account: Account, since_ms: int | None, min_regret: float,
                cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the account's mistakes, newest first, and the cursor of the next page
    (``None``: no more)."""
    after = None if cursor is None else decode_cursor(cursor, int)
    page = stores.mistakes.page(account.handle, since_ms, min_regret, after, limit + 1)
    more = len(page) > limit
    page = page[:limit]
    return [dict(e.body) for e in page], encode_cursor(*page[-1].position) if more else None


def answer_mistake(stores: Stores, account: Account, game_id: str, version: int,
                   answer: Mapping[str, Any]) -> dict[str, Any]:
    """Check ``answer`` (a draw, discard or go-out) against the account's mistake at
    ``version`` of ``game_id``: whether it is the best move and the points it saves
    against the move taken. :class:`UnknownMistakeError` when there is none;
    :class:`IllegalActionError` when the position does not allow the answer."""
    found = stores.mistakes.one(account.handle, game_id, version)
    if found is None:
        raise UnknownMistakeError(
            f"no mistake of yours at version {version} of game {game_id}: see "
            "GET /v1/me/mistakes")
    puzzle = found.body
    key = _legal_key(puzzle, answer)
    values: Mapping[str, float] = puzzle["values"]
    best, taken = key_of(puzzle["best"]), key_of(puzzle["action"])
    correct = key == best or (key in values and values[key] <= values[best])
    return {"game_id": game_id, "version": version, "answer": dict(answer),
            "correct": correct, "best": puzzle["best"], "action": puzzle["action"],
            "regret": puzzle["regret"],
            "saves": round(values[taken] - values[key], 3) if key in values else None}


def _legal_key(puzzle: Mapping[str, Any], answer: Mapping[str, Any]) -> str:
    """The answer's candidate name (:func:`key_of`), once the position allows it."""
    position = puzzle["position"]
    phase, kind = position["phase"], answer["type"]
    drawing = phase in (DRAW, FINAL_DRAW)
    if drawing != (kind == "draw"):
        raise IllegalActionError(f"a {kind} is not the move here: the seat must "
                                 f"{'draw' if drawing else 'discard'}")
    if kind == "draw":
        if answer["source"] == "discard" and position["discard_top"] is None:
            raise IllegalActionError("the discard pile is empty here")
        return key_of(answer)
    code = parse_card(answer["card" if kind == "discard" else "discard"])
    card = card_name(code)
    if card not in position["hand"]:
        raise IllegalActionError(f"{card} is not in the hand")
    if kind == "go_out":
        if "go_out" not in puzzle["values"]:
            raise IllegalActionError("the seat could not go out here")
        if code not in _go_out_cards(puzzle):
            raise IllegalActionError(f"discarding {card} leaves cards that cannot all be "
                                     "melded: go out with another card")
        return "go_out"
    return key_of({**answer, "card": card})


def _go_out_cards(puzzle: Mapping[str, Any]) -> frozenset[int]:
    """The cards whose discard goes out from the puzzle's position, as the engine's turn
    test finds them (the analysis compared one go-out: its best; any of these is it)."""
    rules = rules_from_json(puzzle["rules"])
    position = puzzle["position"]
    index = position["round"] - 1
    return go_out_cards([parse_card(c) for c in position["hand"]], rules.wild_rank(index),
                        rules, rules.contract(index), steps=GAME_STEP_BUDGET)
