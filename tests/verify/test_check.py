"""``service.verify``: a true record is accepted; one changed card, action or score is
rejected with a message naming it; the command line says so with its exit code."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.verify import verify
from service.verify.__main__ import main

from .games import recorded_game


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return recorded_game()


def _changed(record: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(record)


def test_a_true_record_is_accepted(record: dict[str, Any]) -> None:
    assert verify(record) == []


def test_records_of_every_preset_and_of_claims_resigns_and_time_outs_are_accepted() -> None:
    for preset, players in (("classic", 3), ("bga", 2), ("family", 4)):
        names = tuple(f"p{s}" for s in range(players))
        assert verify(recorded_game(f"seed-{preset}", {"preset": preset}, names)) == []
    assert verify(recorded_game("claimed", open_seat=1)) == []
    resigned = recorded_game("resigned", resign_at=5)
    assert resigned["players"][0]["kind"] == "resigned"
    assert verify(resigned) == []
    timed = recorded_game("clock", time_out_at=3)
    assert any(a["type"] == "time_out" for a in timed["actions"])
    assert verify(timed) == []


def test_records_of_an_aborted_game_and_of_a_claimed_victory_replay_to_their_ends() -> None:
    aborted = recorded_game("aborted", abort_at=1)
    assert [a["type"] for a in aborted["actions"]] == ["draw", "abort"]
    assert (aborted["finish_reason"], aborted["winners"]) == ("aborted", [])
    assert verify(aborted) == []
    claimed = recorded_game("absent", {"preset": "classic", "hand_sizes": [3, 4, 5]}, absent=1)
    assert claimed["actions"][-1] == {**claimed["actions"][-1], "type": "claim_victory",
                                      "seat": 0, "against": 1, "by": "player"}
    assert (claimed["finish_reason"], claimed["winners"]) == ("resigned", [0])
    assert verify(claimed) == []
    for record in (aborted, claimed):  # the ending is replayed, not taken on trust
        bad = _changed(record)
        bad["finish_reason"] = "completed"
        assert any("finish_reason" in p for p in verify(bad))


def test_a_changed_card_in_an_action_is_rejected_naming_the_action_and_card(
        record: dict[str, Any]) -> None:
    bad = _changed(record)
    index = next(i for i, a in enumerate(bad["actions"]) if a["type"] == "discard")
    other = next(c for c in ("2C", "3D", "4H", "5S", "KC") if c != bad["actions"][index]["card"])
    bad["actions"][index]["card"] = other
    [message] = verify(bad)
    assert f"action {index + 1} " in message and f"card {other}" in message, message
    assert "refused" in message


def test_a_changed_action_is_rejected_naming_it(record: dict[str, Any]) -> None:
    bad = _changed(record)
    index = next(i for i, a in enumerate(bad["actions"])
                 if a["type"] == "draw" and a["source"] == "stock")
    bad["actions"][index]["source"] = "discard"
    problems = verify(bad)
    assert problems, "a draw from the discard pile instead of the stock went unnoticed"
    assert any(f"action {index + 2} " in p or "round 1" in p for p in problems), problems


def test_a_changed_score_is_rejected_naming_the_round_seat_and_score(
        record: dict[str, Any]) -> None:
    bad = _changed(record)
    result = bad["rounds"][3]["results"][1]
    result["score"] += 5
    problems = verify(bad)
    assert f"round 4, seat 1: score {result['score']} in the record, " \
           f"{result['score'] - 5} on replay" in problems


def test_a_changed_card_of_a_final_arrangement_is_rejected_naming_it(
        record: dict[str, Any]) -> None:
    bad = _changed(record)
    rnd = next(r for r in bad["rounds"] if any(res["deadwood"] for res in r["results"]))
    res = next(res for res in rnd["results"] if res["deadwood"])
    res["deadwood"][0] = "JK" if res["deadwood"][0] != "JK" else "2C"
    problems = verify(bad)
    assert any(p.startswith(f"round {rnd['number']}, seat {res['seat']}: deadwood")
               for p in problems), problems


def test_changed_totals_winners_seed_or_commitment_are_each_named(
        record: dict[str, Any]) -> None:
    bad = _changed(record)
    bad["winners"] = [1 - record["winners"][0]]
    bad["totals"] = [t + 1 for t in record["totals"]]
    problems = verify(bad)
    assert any(p.startswith("winners ") for p in problems)
    assert any(p.startswith("totals ") for p in problems)
    bad = _changed(record)
    bad["seed_commitment"] = "0" * 64
    assert any(p.startswith("seed commitment") for p in verify(bad))
    bad = _changed(record)
    bad["seed"] = "another"
    assert verify(bad)  # another seed deals other cards, and fails its commitment
    bad = _changed(record)
    del bad["actions"][-40:]
    assert any("before the game is finished" in p for p in verify(bad))


def test_the_command_line_exits_0_for_a_true_record_and_1_naming_a_change(
        record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    assert main([str(good)]) == 0
    assert capsys.readouterr().out.startswith("ok: game g0ld3nGame01")
    bad = _changed(record)
    bad["rounds"][0]["results"][0]["score"] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main([str(path)]) == 1
    assert "round 1, seat 0: score" in capsys.readouterr().out
    (tmp_path / "junk.json").write_text("[1, 2")
    assert main([str(tmp_path / "junk.json")]) == 2


def test_python_dash_m_service_verify_runs(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = subprocess.run([sys.executable, "-m", "service.verify", str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
