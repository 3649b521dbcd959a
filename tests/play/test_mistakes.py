"""Filing an analysed game's mistakes (``service/play/mistakes.py``), on the in-memory
stores: each account seat gets its own ``by: player`` decisions of at least the floor's
regret and nothing else (not a stand-in's moves made for it after it resigned, not a
seat played by the service); filed again, a game's entries are replaced."""

from __future__ import annotations

import copy

from service import play
from service.analysis.game import analyse
from service.analysis.judge import Settings
from service.play.mistakes import file_mistakes
from service.play.records import FinishedRecord
from service.storage import Stores
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
