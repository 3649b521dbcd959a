"""Filing an analysed game's mistakes (``service/play/mistakes.py``), on the in-memory
stores: each account seat gets its own ``by: player`` decisions of at least the floor's
regret and nothing else (not a stand-in's moves made for it after it resigned, not a
seat played by the service); filed again, a game's entries are replaced."""

from __future__ import annotations

import copy

import pytest

from service import play
from service.analysis.game import analyse
from service.analysis.judge import Settings
from service.core.errors import IllegalActionError
from service.core.rules import preset_rules
from service.play.mistakes import file_mistakes
from service.play.records import FinishedRecord
from service.storage import Account, Stores
from tests.analysis.records import resigned_after_one_draw


def test_each_account_seat_gets_its_own_player_decisions_of_enough_regret_only(
        stores: Stores) -> None:
    body, resigned = resigned_after_one_draw()
    analysis = analyse(body, Settings(worlds=2, candidates=2))
    body = copy.deepcopy(body)
    handles = ["ann", "bob", "cid"]
    for seat, player in enumerate(body["players"]):
        player["account"] = handles[seat]  # the bot seat's too: its moves are the service's
    record = FinishedRecord(body, (None, None, None))
    file_mistakes(stores, "g1", record, analysis)
    bot_seat = next(s for s, p in enumerate(body["players"]) if p["bot"])
    for seat, handle in enumerate(handles):
        filed = stores.mistakes.page(handle, None, 0.0, None, 1000)
        expected = sorted((d["version"] for d in analysis["decisions"]
                           if d["seat"] == seat and d["by"] == "player"
                           and d["regret"] >= play.MISTAKE_FLOOR), reverse=True)
        assert [e.body["version"] for e in filed] == expected
        if seat == bot_seat:
            assert not filed and any(d["seat"] == seat and d["regret"] >= play.MISTAKE_FLOOR
                                     for d in analysis["decisions"])
        if seat == resigned:  # one draw of its own, then the stand-in's: at most that draw
            assert len(filed) <= 1
    other = next(s for s in range(3) if s not in (bot_seat, resigned))
    assert stores.mistakes.page(handles[other], None, 0.0, None, 1000)
    file_mistakes(stores, "g1", record, {**analysis, "decisions": []})
    assert stores.mistakes.page(handles[other], None, 0.0, None, 1000) == []


def test_a_go_out_answer_must_go_out_with_its_discard(stores: Stores) -> None:
    """The puzzle names one go-out, its best; an answer that goes out discarding a card
    that leaves the rest unmelded is refused as the engine refuses it, not marked right."""
    ann = Account("ann", False, "hash", 0.0)
    position = {"round": 1, "hand_size": 3, "wild_rank": "3", "phase": "discard",
                "hand": ["4H", "5H", "6H", "KC"], "discard_top": "9D", "stock_count": 30}
    puzzle = {"game_id": "g1", "version": 7, "seat": 0, "regret": 10.0,
              "standard_error": 0.0, "judgement": "blunder",
              "action": {"type": "discard", "card": "4H"},
              "best": {"type": "go_out", "discard": "KC"},
              "values": {"go_out": 0.0, "discard:4H": 10.0, "discard:KC": 3.0},
              "exact": True, "position": position, "preset": "classic",
              "rules": preset_rules("classic").to_dict(), "ended": "2026-12-06T00:00:00Z"}
    stores.mistakes.file("ann", "g1", 0, [puzzle])
    right = play.answer_mistake(stores, ann, "g1", 7, {"type": "go_out", "discard": "KC"})
    assert right["correct"] is True and right["saves"] == 10.0
    with pytest.raises(IllegalActionError, match="cannot all be melded"):
        play.answer_mistake(stores, ann, "g1", 7, {"type": "go_out", "discard": "4H"})
