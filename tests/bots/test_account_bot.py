"""A bot that runs on its account key alone (``python -m service.bots``), against a
live gunicorn with a move worker: killed mid-game and started again with only its key, it
finds its game through ``GET /v1/me/games`` and finishes it, and takes back a seat that
went ``away`` while it was down; it accepts challenges as they come on its account
stream."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import requests

from tests.conftest import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


def register(url: str, handle: str, bot: bool = True) -> str:
    r = requests.post(f"{url}/v1/accounts", json={"handle": handle, "bot": bot}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["key"]  # type: ignore[no-any-return]


def start_bot(url: str, key: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "THREE_THIRTEEN_KEY": key}
    return subprocess.Popen([sys.executable, "-m", "service.bots", "--url", url,
                             "--bot", "greedy"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def view(url: str, game_id: str, **params: Any) -> dict[str, Any]:
    r = requests.get(f"{url}/v1/games/{game_id}", params=params, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_a_bot_killed_mid_game_finds_its_game_by_its_key_and_finishes_it(
        live_server: str) -> None:
    key = register(live_server, "restarter")
    made = requests.post(f"{live_server}/v1/challenges", timeout=10,
                         headers={"Authorization": f"Bearer {key}"},
                         json={"to": ["random"], "turn_seconds": 600,
                               "rules": {"preset": "classic", "hand_sizes": [3, 4, 5, 6]}})
    assert made.status_code == 201 and made.json()["status"] == "accepted", made.text
    game_id = made.json()["game_id"]
    bot = start_bot(live_server, key)
    try:
        state = view(live_server, game_id)
        deadline = time.monotonic() + PATIENCE
        while state["version"] < 12:  # a few turns of each seat
            assert time.monotonic() < deadline and bot.poll() is None
            state = view(live_server, game_id, wait_version=state["version"], timeout=1)
        bot.send_signal(signal.SIGKILL)
        bot.wait(PATIENCE)
        killed_at = view(live_server, game_id)
        assert killed_at["status"] == "in_progress"
        time.sleep(1.0)  # nobody plays it meanwhile: its turn waits (or is the bot's)
        bot = start_bot(live_server, key)  # the key alone
        state = view(live_server, game_id)
        deadline = time.monotonic() + PATIENCE
        while state["status"] != "finished":
            assert time.monotonic() < deadline, "the restarted bot did not finish its game"
            assert bot.poll() is None, bot.stderr.read() if bot.stderr else ""
            state = view(live_server, game_id, wait_version=state["version"], timeout=1)
    finally:
        bot.kill()
        bot.wait(PATIENCE)
    record = requests.get(f"{live_server}/v1/games/{game_id}/record", timeout=10).json()
    # the action at index i made version i + 1
    mine = [(i + 1, a) for i, a in enumerate(record["actions"]) if a["seat"] == 0]
    assert mine and all(a["by"] == "player" for _, a in mine)  # no turn of its timed out
    assert any(version > killed_at["version"] for version, _ in mine)  # played on after
    games = requests.get(f"{live_server}/v1/me/games", timeout=10,
                         headers={"Authorization": f"Bearer {key}"}).json()["games"]
    assert [(g["game_id"], g["status"]) for g in games] == [(game_id, "finished")]


def game_events(url: str, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        page = requests.get(f"{url}/v1/games/{game_id}/events", timeout=10,
                            params={"after": events[-1]["seq"] if events else 0}).json()
        events += page["events"]
        if not page["more"]:
            return events


def opponent_plays_until(url: str, game_id: str, key: str,
                         done: Callable[[list[dict[str, Any]]], bool], *,
                         patient: bool = False, seconds: float = 60) -> list[dict[str, Any]]:
    """A human opponent plays its turns (the first legal action: never a claim of victory)
    until ``done(events)``. ``patient``: it takes each turn only near the end of its clock
    (waiting on the game meanwhile), so the game moves on slowly while the other seat is
    the stand-in's, yet its own seat never times out."""
    auth = {"Authorization": f"Bearer {key}"}
    give_up = time.monotonic() + seconds
    while not done(events := game_events(url, game_id)):
        assert time.monotonic() < give_up, f"not done after {seconds} s: {events[-5:]}"
        mine = requests.get(f"{url}/v1/games/{game_id}", params={"wait": "turn", "timeout": 1},
                            headers=auth, timeout=30).json()
        assert mine["status"] == "in_progress", "the game ended first"
        if not mine["legal_actions"]:
            continue
        left = datetime.fromisoformat(mine["clock"]["deadline"]).timestamp() - time.time()
        if patient and left > 2:
            view(url, game_id, wait_version=mine["version"], timeout=1)
            continue
        r = requests.post(f"{url}/v1/games/{game_id}/actions", json=mine["legal_actions"][0],
                          headers=auth, timeout=10)
        # late on a busy machine: the stand-in finishes this turn, the next is in time
        assert r.status_code == 200 or r.json()["code"] == "turn_timed_out", r.text
    return events


def test_a_bot_restarted_after_its_seat_went_away_comes_back_by_its_key_and_plays_on(
        live_server: str) -> None:
    key = register(live_server, "returner")
    ann = register(live_server, "patient", bot=False)
    made = requests.post(f"{live_server}/v1/challenges", timeout=10,
                         headers={"Authorization": f"Bearer {key}"},
                         json={"to": ["patient"], "turn_seconds": 3,
                               "rules": {"preset": "classic"}}).json()
    accepted = requests.post(f"{live_server}/v1/challenges/{made['challenge_id']}/accept",
                             headers={"Authorization": f"Bearer {ann}"}, timeout=10).json()
    game_id = accepted["game_id"]  # the challenger, the bot, is seat 0

    def moved_by_player(after: int) -> Callable[[list[dict[str, Any]]], bool]:
        return lambda events: any(
            e["seq"] > after and e.get("seat") == 0 and e.get("by") == "player"
            for e in events)

    def gone_away(after: int) -> Callable[[list[dict[str, Any]]], bool]:
        return lambda events: any(
            e["seq"] > after and e["type"] == "turn_timed_out" and e["seat"] == 0
            and e["away"] for e in events)

    bot = start_bot(live_server, key)
    try:
        events = opponent_plays_until(live_server, game_id, ann, moved_by_player(0))
        bot.send_signal(signal.SIGKILL)  # down: its clock runs out twice
        bot.wait(PATIENCE)
        events = opponent_plays_until(live_server, game_id, ann, gone_away(events[-1]["seq"]))
        away_at = [e["seq"] for e in events if gone_away(0)([e])][-1]
        assert view(live_server, game_id)["players"][0]["kind"] == "away"
        bot = start_bot(live_server, key)  # the key alone
        events = opponent_plays_until(live_server, game_id, ann, moved_by_player(away_at),
                                      patient=True, seconds=30)
        now = view(live_server, game_id)
    finally:
        bot.kill()
        bot.wait(PATIENCE)
    assert now["players"][0]["kind"] == "human"
    back = [e for e in events if e["seq"] > away_at and e["type"] == "seat_back"]
    assert [e["seat"] for e in back] == [0]  # once


def test_a_running_bot_accepts_a_challenge_from_its_stream_and_plays_it_out(
        live_server: str) -> None:
    key = register(live_server, "acceptor")
    ann = register(live_server, "human", bot=False)
    bot = start_bot(live_server, key)
    try:
        time.sleep(1.0)  # the bot is following its stream
        made = requests.post(f"{live_server}/v1/challenges", timeout=10,
                             headers={"Authorization": f"Bearer {ann}"},
                             json={"to": ["acceptor"], "turn_seconds": 600,
                                   "rules": {"preset": "classic", "hand_sizes": [3]}}).json()
        deadline = time.monotonic() + PATIENCE
        while (found := requests.get(f"{live_server}/v1/challenges/{made['challenge_id']}",
                                     headers={"Authorization": f"Bearer {ann}"},
                                     timeout=10).json())["status"] == "pending":
            assert time.monotonic() < deadline, "the bot never accepted"
            time.sleep(0.2)
        assert found["status"] == "accepted"
        game_id = found["game_id"]
        auth = {"Authorization": f"Bearer {ann}"}
        deadline = time.monotonic() + PATIENCE
        while True:
            assert time.monotonic() < deadline
            r = requests.get(f"{live_server}/v1/games/{game_id}", timeout=30,
                             params={"wait": "turn", "timeout": 2}, headers=auth)
            if r.status_code in (429, 503):  # as any client does: after the hint, again
                time.sleep(float(r.headers.get("Retry-After", "1")))
                continue
            assert r.status_code == 200, r.text
            mine = r.json()
            if mine["status"] == "finished":
                break
            if mine["legal_actions"]:
                r = requests.post(f"{live_server}/v1/games/{game_id}/actions", timeout=10,
                                  json=mine["legal_actions"][0], headers=auth)
                assert r.status_code == 200, r.text
    finally:
        bot.kill()
        bot.wait(PATIENCE)
