"""What a change causes, run from the game's own log (``service/play/effects.py``), on the
memory stores: every turn an account's seat begins is told once (final turns after a
player goes out included), seats are indexed once at their first time, and a repeat
of the effects tells nobody twice."""

from __future__ import annotations

import random
from collections import Counter

from service.bots import GreedyBot
from service.engine import view
from service.engine.seats import played_by_service
from service.play import act, create_account, create_game
from service.play.credentials import account_credential
from service.play.effects import run_effects
from service.storage import Stores

from .finished_games import agreed
from .test_webhooks import hooked, waiting

RULES = {"preset": "classic", "hand_sizes": [3, 4, 5, 6]}


def _notes(stores: Stores, handle: str, kind: str) -> list[dict[str, object]]:
    return [n.body for n in stores.accounts.notes(handle, 0, 10_000) if n.body["type"] == kind]


def test_every_turn_an_accounts_seat_begins_is_told_once(stores: Stores) -> None:
    handles = ["ann", "bob", "cid"]
    accounts = [create_account(stores, h, False)[0] for h in handles]
    record, _ = create_game(stores, RULES, handles, "turns", accounts=accounts,
                            agreed=agreed(*accounts))
    game = record.game_id
    begun: Counter[str] = Counter()
    seen: set[tuple[int, int, int]] = set()
    rng = random.Random(3)
    while True:
        state = stores.games.load(game).state
        if state.finished:
            break
        seat = state.current_seat
        assert seat is not None
        turn = (state.round_index, state.turns, seat)
        if turn not in seen and not played_by_service(state, seat):
            seen.add(turn)
            begun[handles[seat]] += 1
            told = [n for n in _notes(stores, handles[seat], "your_turn")
                    if n["game_id"] == game and n["version"] <= state.version]
            assert told and told[-1]["round"] == state.round_index + 1, (turn, state.phase)
        actions = view(state, seat)["legal_actions"]
        out = [a for a in actions if a["type"] == "go_out"]
        action = out[0] if out and rng.random() < 0.7 else GreedyBot().choose(view(state, seat))
        act(stores, game, account_credential(handles[seat]), action)
    assert any(t for t in seen if t[1] > 0)  # final turns after a go-out were played
    for handle in handles:
        assert len(_notes(stores, handle, "your_turn")) == begun[handle], handle
        assert len(_notes(stores, handle, "game_started")) == 1
        assert len(_notes(stores, handle, "game_finished")) == 1


def test_effects_run_again_tell_nobody_twice_and_keep_the_join_time(stores: Stores) -> None:
    """A visit that runs a change's effects again (its process died after some of them)
    appends no note twice, queues no webhook twice, and moves no join time."""
    ann, _ = hooked(stores, "ann")
    bob, _ = hooked(stores, "bob")
    record, _ = create_game(stores, RULES, ["ann", "bob"], "again", accounts=[ann, bob],
                            agreed=agreed(ann, bob))
    game = record.game_id
    joined = stores.accounts.games("ann", "active", None, 10)
    notes = {h: len(stores.accounts.notes(h, 0, 1000)) for h in ("ann", "bob")}
    assert notes["ann"] and notes["bob"]
    queued = {h: [d.event_id for d in waiting(stores, h)] for h in ("ann", "bob")}
    assert queued["ann"] or queued["bob"]  # game_started, and one's your_turn, were sent
    stores.games.shared.games[game].handled = 0  # type: ignore[attr-defined]  # run again
    assert run_effects(stores, game, 10**10) > 0
    assert {h: len(stores.accounts.notes(h, 0, 1000)) for h in ("ann", "bob")} == notes
    assert stores.accounts.games("ann", "active", None, 10) == joined
    assert all(waiting(stores, h) == [] for h in ("ann", "bob"))  # nothing queued again
